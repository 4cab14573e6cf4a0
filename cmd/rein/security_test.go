package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/sandbox"
)

func TestSecurityConfigErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"sandbox": "jail"}`, `sandbox mode "jail" is not one of read-only, workspace-write, off`},
		{`{"unavailable": "maybe"}`, `unavailable "maybe" is not unconfined or refuse`},
		{`{"context_files": "hide"}`, `context file policy "hide" is not warn or withhold`},
		{`{"sandbox": `, `.rein/security.json`},
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".rein"), 0o755)
		os.WriteFile(filepath.Join(dir, ".rein", "security.json"), []byte(c.body), 0o644)
		script := writeScript(t, t.TempDir(), `{"text": "hi"}`)
		code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "hi")
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", c.body, code, errOut, c.want)
		}
	}
}

func TestReadOnlySandboxFromConfig(t *testing.T) {
	if sandbox.Effective(sandbox.Policy{Mode: sandbox.ReadOnly}) == sandbox.None {
		if os.Getenv("CI") != "" {
			t.Fatal("no sandbox mechanism; .ci/run installs bubblewrap")
		}
		t.Skip("bubblewrap is not installed and the kernel has no Landlock")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".rein"), 0o755)
	os.WriteFile(filepath.Join(dir, ".rein", "security.json"), []byte(`{"sandbox": "read-only"}`), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "", "tool_calls": [{"name": "bash", "arguments": {"command": "echo x > made.txt"}}]}
{"text": "done"}
`)
	code, out, errOut := runCLI(t, "", "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", dir, "-o", "json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatalf("the read-only sandbox let the command write: %s", out)
	}
	if !strings.Contains(out, "ask the user for permission") {
		t.Fatalf("the refusal does not tell the model what to do: %s", out)
	}
}
