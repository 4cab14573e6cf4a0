package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedSecrets returns secrets of every kind the redactor knows, made
// at run time.
func plantedSecrets() (env map[string]string, file map[string]string) {
	r := strings.Repeat
	env = map[string]string{
		"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/" + r("bPxRfiCY", 3),
		"GITHUB_TOKEN":          "ghp_" + r("E9v2", 9),
		"ANTHROPIC_API_KEY":     "sk-ant-api03-" + r("Kq7_", 12),
		"MY_SERVICE_PASSWORD":   "correct-horse-" + r("battery", 2),
	}
	file = map[string]string{
		"ghp":   "ghp_" + r("Zz81", 9),
		"aws":   "AKIA" + r("Q4", 8),
		"slack": "xoxp-" + r("9876-", 4),
		"jwt":   "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJyZWluLXRlc3QifQ." + r("c2ln", 6),
		"pem":   "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA" + r("QUJD", 16) + "\n-----END OPENSSH PRIVATE KEY-----",
		"oai":   "sk-proj-" + r("Tt5u", 10),
	}
	return env, file
}

// TestPlantedSecretsNeverWritten runs a scripted session that meets
// planted secrets in every channel — a file read with read and cat, the
// environment, /proc/*/environ, a long output saved to a log, the model's
// own text and tool arguments, a provider error — and then searches
// everything rein wrote: stdout (text and stream-json), stderr, and
// every file under the workspace's .rein directory.
func TestPlantedSecretsNeverWritten(t *testing.T) {
	envSecrets, fileSecrets := plantedSecrets()
	for k, v := range envSecrets {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	var content strings.Builder
	for _, v := range fileSecrets {
		content.WriteString("secret: " + v + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "secrets.txt"), []byte(content.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(name string, args any) map[string]any { return map[string]any{"name": name, "arguments": args} }
	bash := func(cmd string) map[string]any { return call("bash", map[string]any{"command": cmd}) }
	lines := []map[string]any{
		{"text": "Looking around.", "tool_calls": []any{
			call("read", map[string]any{"path": "secrets.txt"}),
			bash("cat secrets.txt"),
			bash("printenv AWS_SECRET_ACCESS_KEY GITHUB_TOKEN ANTHROPIC_API_KEY; env | grep -i -e key -e token -e pass; echo done"),
			bash("tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -a -e SECRET -e TOKEN -e API_KEY; echo scanned"),
			bash("s=$(<secrets.txt); for i in $(seq 100); do echo \"$s\"; done"),
		}},
		{"text": "The token in the file is " + fileSecrets["ghp"] + " and the key " + envSecrets["ANTHROPIC_API_KEY"] + ".", "tool_calls": []any{
			bash("echo " + fileSecrets["oai"] + " " + envSecrets["MY_SERVICE_PASSWORD"]),
		}},
		{"error": map[string]any{"code": "auth", "message": "invalid x-api-key " + envSecrets["ANTHROPIC_API_KEY"] + " / " + fileSecrets["jwt"]}},
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
	for _, mode := range []string{"text", "rein-stream-json", "json", "stream-json", "rein-json"} {
		// Each run needs its own script (replies are consumed).
		_, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", scriptPath, "-C", dir, "-o", mode, "look at secrets.txt")
		outputs = append(outputs, out, errOut)
		if mode == "rein-stream-json" {
			// A secret streamed across several deltas must not be
			// recoverable by joining them.
			outputs = append(outputs, joinDeltas(t, out))
		}
		if !strings.Contains(out+errOut, "[REDACTED]") {
			t.Errorf("%s: no mask in the output; the secrets may not have been met:\n%s\n%s", mode, out, errOut)
		}
	}
	// Everything rein wrote under .rein: session logs, output logs.
	var files int
	err := filepath.WalkDir(filepath.Join(dir, ".rein"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		outputs = append(outputs, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{}
	for k, v := range envSecrets {
		all["env "+k] = v
	}
	for k, v := range fileSecrets {
		all["file "+k] = v
	}
	found := 0
	for name, v := range all {
		for i, o := range outputs {
			if strings.Contains(o, v) {
				found++
				t.Errorf("%s found in output %d", name, i)
			}
		}
	}
	t.Logf("searched %d outputs (%d files under .rein) for %d planted secrets: %d found", len(outputs), files, len(all), found)
}

// joinDeltas concatenates the deltas of stream-json output, per block.
func joinDeltas(t *testing.T, out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Delta *struct {
				Type  string `json:"type"`
				Delta string `json:"delta"`
			} `json:"delta"`
		}
		if line == "" || json.Unmarshal([]byte(line), &ev) != nil || ev.Delta == nil {
			continue
		}
		if strings.HasSuffix(ev.Delta.Type, "_delta") {
			b.WriteString(ev.Delta.Delta)
		} else if strings.HasSuffix(ev.Delta.Type, "_end") {
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		t.Error("no deltas in the stream-json output")
	}
	return b.String()
}
