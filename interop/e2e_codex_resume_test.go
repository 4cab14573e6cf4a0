package interop

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rein → codex → model: codex exec resume continues rein's rollout,
// installed in CODEX_HOME, and its request to the mock carries rein's
// conversation: messages, the calls and their outputs.
func TestCodexResumesExport(t *testing.T) {
	codex := program(t, "codex")
	m := newMockModel(t, codexReply)
	home, codexHome, env := codexSetup(t, m)
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	s, _ := LoadSession(sample(t))
	s.Header.Cwd = ws
	var buf bytes.Buffer
	if _, err := Export(&buf, s, Codex, Options{Provider: "mock"}); err != nil {
		t.Fatal(err)
	}
	file, err := Env{Home: home, Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	}}.InstallPath(s, Codex, s.Header.Created)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file, buf.Bytes(), 0o600)
	out, _ := run(t, ws, env, "", codex, "exec", "--skip-git-repo-check", "resume", CodexThreadID(s.Header.ID), "and now?")
	if !strings.Contains(out, "DONE") {
		t.Fatalf("codex answered %q", out)
	}
	reqs := m.requests()
	sent := string(reqs[len(reqs)-1])
	for _, want := range []string{"Why does TestPage fail?", `"call_id":"toolu_02"`, `exec_command`, "--- FAIL: TestPage", "edited store/page.go", "Fixed.", "and now?"} {
		if !strings.Contains(sent, want) {
			t.Fatalf("codex's request lacks %s:\n%s", want, clipOut(sent))
		}
	}
	if strings.Contains(sent, "Try cursors instead.") {
		t.Fatal("codex sent the branch that is not current")
	}
}
