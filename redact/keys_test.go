package redact

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testKeys returns private keys as files hold them: PKCS#1 RSA, PKCS#8
// EC, and an OpenSSH-format body (70-character lines).
func testKeys(t testing.TB) map[string]string {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(ek)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 400)
	rand.Read(raw)
	body := base64.StdEncoding.EncodeToString(append([]byte("openssh-key-v1\x00"), raw...))
	var ssh strings.Builder
	ssh.WriteString("-----BEGIN OPENSSH PRIVATE KEY-----\n")
	for len(body) > 70 {
		ssh.WriteString(body[:70] + "\n")
		body = body[70:]
	}
	ssh.WriteString(body + "\n-----END OPENSSH PRIVATE KEY-----\n")
	return map[string]string{
		"rsa":     string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)})),
		"ec":      string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"openssh": ssh.String(),
	}
}

// bodyLines returns the lines of a PEM text between its armour.
func bodyLines(key string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(key), "\n") {
		if !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

// excerpts returns the shapes in which part of a key file reaches the
// output: each as a command or tool would print it.
func excerpts(key string) map[string]string {
	lines := strings.Split(strings.TrimSuffix(key, "\n"), "\n")
	n := len(lines)
	numbered := func(from, to int) string { // the read tool's shape
		var b strings.Builder
		for i := max(0, from); i < min(to, len(lines)); i++ {
			fmt.Fprintf(&b, "%6d\t%s\n", i+1, lines[i])
		}
		return b.String()
	}
	grepped := func(sub string) string { // file:line:text
		var b strings.Builder
		for i, l := range lines {
			if strings.Contains(l, sub) {
				fmt.Fprintf(&b, "id_key:%d:%s\n", i+1, l)
			}
		}
		return b.String()
	}
	one := strings.Join(bodyLines(key), "")
	js, _ := json.Marshal(map[string]string{"type": "service_account", "private_key": key})
	return map[string]string{
		"head -2":            strings.Join(lines[:2], "\n") + "\n",
		"tail -2":            strings.Join(lines[n-2:], "\n") + "\n",
		"grep -v -----":      strings.Join(lines[1:n-1], "\n") + "\n",
		"sed -n 3,5p":        strings.Join(lines[2:5], "\n") + "\n",
		"tail -c 120":        key[len(key)-120:],
		"read offset/limit":  numbered(2, 6),
		"read last lines":    numbered(n-3, n),
		"grep match":         grepped(lines[3][10:30]),
		"one-line env":       "PRIVATE_KEY=" + one + "\n",
		"json excerpt":       string(js)[40:min(len(js), 400)],
		"json escaped lines": strings.ReplaceAll(strings.Join(lines[1:n-1], "\n"), "\n", `\n`) + `\n`,
		"base64 of the file": base64.StdEncoding.EncodeToString([]byte(key)),
	}
}

// leaks returns the key's body lines (at least tailMin characters, the
// shortest this package masks) found in out.
func leaks(key, out string) []string {
	var found []string
	for _, l := range bodyLines(key) {
		if len(l) >= tailMin && strings.Contains(out, l) {
			found = append(found, l)
		}
	}
	return found
}

// TestKeyExcerpts: key material reaches the output without its armour
// in a dozen shapes; none of its lines may come out of the redactor.
func TestKeyExcerpts(t *testing.T) {
	r := New()
	total, leaked := 0, 0
	for kname, key := range testKeys(t) {
		for shape, text := range excerpts(key) {
			total++
			out := r.String("before\n" + text + "\nafter\n")
			if l := leaks(key, out); len(l) > 0 {
				leaked++
				t.Errorf("%s, %s: %d body lines leaked: %q", kname, shape, len(l), out)
			}
			if shape == "base64 of the file" {
				continue
			}
			if !strings.HasPrefix(out, "before\n") || !strings.HasSuffix(out, "after\n") {
				t.Errorf("%s, %s: the text around the key changed: %q", kname, shape, out)
			}
		}
	}
	t.Logf("%d excerpts of %d keys: %d leaked", total, len(testKeys(t)), leaked)
}

func TestURLPasswords(t *testing.T) {
	r := New()
	for _, c := range []struct{ in, want string }{
		{"DATABASE_URL=postgres://app:s3cr3t-Pass@db:5432/app", "DATABASE_URL=postgres://app:[REDACTED]@db:5432/app"},
		{`{"dsn":"mysql://root:hunter2@tcp(127.0.0.1)/x"}`, `{"dsn":"mysql://root:[REDACTED]@tcp(127.0.0.1)/x"}`},
		{"clone https://user:ghx-token@git.example.com/r.git", "clone https://user:[REDACTED]@git.example.com/r.git"},
		{"redis://:onlypass@cache:6379", "redis://:[REDACTED]@cache:6379"},
		// Not passwords: left alone.
		{"https://example.com:8443/path?q=a:b@c", "https://example.com:8443/path?q=a:b@c"},
		{"ssh://git@github.com/org/repo", "ssh://git@github.com/org/repo"},
		{"git@github.com:org/repo.git", "git@github.com:org/repo.git"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestOrdinaryContentKept measures the false positives of the key and
// URL rules on this repository's own files — go.sum and package-lock
// hashes, encrypted reasoning in provider recordings, base64 test data,
// code and docs — line by line. Files of this package (which plant keys
// on purpose) are left out; a few files elsewhere that plant test keys
// are listed. A rule that starts masking ordinary content fails.
func TestOrdinaryContentKept(t *testing.T) {
	files, lines, maskedLines := 0, 0, 0
	var where []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", ".rein", "redact":
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 4<<20 || strings.IndexByte(string(data[:min(len(data), 8000)]), 0) >= 0 {
			return nil
		}
		files++
		for i, line := range strings.Split(string(data), "\n") {
			lines++
			if maskURLPasswords(maskKeyMaterial(line)) != line {
				maskedLines++
				where = append(where, fmt.Sprintf("%s:%d", path, i+1))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d text files, %d lines: %d lines masked by the key and URL rules: %v", files, lines, maskedLines, where)
	if files < 100 {
		t.Fatalf("only %d files read; the walk missed the repository", files)
	}
	// Measured: 1 (a test that plants an OpenSSH key on purpose).
	if maskedLines > 4 {
		t.Errorf("%d lines of ordinary files masked: %v", maskedLines, where)
	}
}
