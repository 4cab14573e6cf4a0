package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyExcerptsNeverWritten plants a private key, an OpenSSH-shaped
// key, a one-line key and a database URL with a password, and shows
// them to the model in the shapes that carry no BEGIN…END pair — head,
// tail, grep -v, sed ranges, tail -c, the read tool with an offset, the
// grep tool, base64 of the file, stderr of a command — in text, json and
// stream-json output. Then it searches stdout, stderr and every file
// under .rein for any body line of the keys and for the password.
func TestKeyExcerptsNeverWritten(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaPEM := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)}))
	raw := make([]byte, 300)
	rand.Read(raw)
	body := base64.StdEncoding.EncodeToString(append([]byte("openssh-key-v1\x00"), raw...))
	var ssh strings.Builder
	ssh.WriteString("-----BEGIN OPENSSH PRIVATE KEY-----\n")
	for len(body) > 70 {
		ssh.WriteString(body[:70] + "\n")
		body = body[70:]
	}
	ssh.WriteString(body + "\n-----END OPENSSH PRIVATE KEY-----\n")
	password := "Zq8-" + base64.RawURLEncoding.EncodeToString(raw[:9])
	oneLine := strings.Join(keyBody(rsaPEM), "")[:200]
	dir := t.TempDir()
	files := map[string]string{
		"deploy/key.pem": rsaPEM,
		"id_ed25519":     ssh.String(),
		".env":           "PRIVATE_KEY=" + oneLine + "\nDATABASE_URL=postgres://app:" + password + "@db:5432/app\nDEBUG=1\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	line4 := keyBody(rsaPEM)[3]
	call := func(name string, args any) map[string]any { return map[string]any{"name": name, "arguments": args} }
	bash := func(cmd string) map[string]any { return call("bash", map[string]any{"command": cmd}) }
	shapes := []map[string]any{
		bash("head -2 deploy/key.pem"),
		bash("tail -2 deploy/key.pem"),
		bash("grep -v -- ----- deploy/key.pem"),
		bash("sed -n 5,8p deploy/key.pem"),
		bash("tail -c 150 deploy/key.pem"),
		bash("sed -n 2,3p id_ed25519; tail -3 id_ed25519"),
		bash("awk 'NR>1 && NR<6' deploy/key.pem >&2; echo to-stderr"),
		bash("base64 -w0 deploy/key.pem"),
		bash("cat .env"),
		call("read", map[string]any{"path": "deploy/key.pem", "offset": 3, "limit": 4}),
		call("read", map[string]any{"path": "deploy/key.pem", "offset": len(keyBody(rsaPEM)) - 1}),
		call("read", map[string]any{"path": ".env"}),
		call("grep", map[string]any{"pattern": line4[5:25], "literal": true}),
		call("grep", map[string]any{"pattern": "^[A-Za-z0-9+/]{40,}"}),
	}
	lines := []map[string]any{
		{"text": "Looking at the keys.", "tool_calls": shapes},
		{"text": "Done."},
	}
	var script strings.Builder
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		script.Write(b)
		script.WriteByte('\n')
	}
	scriptPath := writeScript(t, t.TempDir(), script.String())
	var outputs []string
	for _, mode := range []string{"text", "json", "stream-json"} {
		_, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", scriptPath, "-C", dir, "-o", mode, "look at the keys")
		outputs = append(outputs, out, errOut)
		if !strings.Contains(out+errOut, "[REDACTED]") {
			t.Errorf("%s: no mask in the output; the keys may not have been met:\n%s\n%s", mode, out, errOut)
		}
	}
	err = filepath.WalkDir(filepath.Join(dir, ".rein"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		outputs = append(outputs, string(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"password": password}
	for i, l := range keyBody(rsaPEM) {
		secrets["rsa line "+string(rune('a'+i))] = l
	}
	for i, l := range keyBody(ssh.String()) {
		secrets["openssh line "+string(rune('a'+i))] = l
	}
	leaks := 0
	for name, v := range secrets {
		if len(v) < 8 {
			continue
		}
		for i, o := range outputs {
			if strings.Contains(o, v) {
				leaks++
				j := strings.Index(o, v)
				t.Errorf("%s found in output %d: %q", name, i, o[max(0, j-200):min(len(o), j+len(v)+100)])
			}
		}
	}
	t.Logf("%d excerpt shapes in 3 output modes; %d outputs searched for %d key lines and a password: %d leaks", len(shapes), len(outputs), len(secrets), leaks)
}

// keyBody returns the lines of a PEM text between its armour lines.
func keyBody(key string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(key), "\n") {
		if !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}
