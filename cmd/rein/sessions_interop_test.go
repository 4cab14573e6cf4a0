package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

const piFixture = "../../interop/testdata/pi/session-read-tool-then-followup.jsonl"

func TestSessionsImportExport(t *testing.T) {
	ws := t.TempDir()
	before, _ := os.ReadFile(piFixture)
	code, out, errOut := runCLI(t, "", "sessions", "import", "-C", ws, piFixture)
	if code != 0 || !strings.Contains(out, "(pi 3, id 01a201f0-9254-7007-a528-c7833d1c5b02)") || !strings.Contains(out, "6 messages, 1 tool calls") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	if after, _ := os.ReadFile(piFixture); string(after) != string(before) {
		t.Fatal("the source file changed")
	}
	code, out, _ = runCLI(t, "", "sessions", "list", "-C", ws)
	if code != 0 || !strings.Contains(out, "read hello.txt [from pi]") {
		t.Fatalf("list: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "", "sessions", "show", "-C", ws, "last")
	if code != 0 || !strings.Contains(out, "→ read hello.txt") || !strings.Contains(out, "DONE: file read.") {
		t.Fatalf("show: %d %q", code, out)
	}
	dst := filepath.Join(t.TempDir(), "out.jsonl")
	code, _, errOut = runCLI(t, "", "sessions", "export", "-C", ws, "last", "--format", "pi", "-o", dst)
	if code != 0 || !strings.Contains(errOut, "exported") {
		t.Fatalf("export: %d %q", code, errOut)
	}
	// The export imports again, as the same conversation.
	code, out, errOut = runCLI(t, "", "sessions", "import", "-C", ws, "--from", "pi", dst)
	if code != 0 || !strings.Contains(out, "6 messages, 1 tool calls") {
		t.Fatalf("re-import: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "sessions", "export", "-C", ws, "last", "--format", "md")
	if code != 0 || !strings.Contains(out, "<details>") || !strings.Contains(out, "| model |") {
		t.Fatalf("md: %d %q", code, out)
	}
}

func TestSessionsImportRefusesGarbage(t *testing.T) {
	ws := t.TempDir()
	bad := filepath.Join(t.TempDir(), "garbage.jsonl")
	os.WriteFile(bad, []byte("\x00\x01\x02binary\xff\n"), 0o600)
	code, _, errOut := runCLI(t, "", "sessions", "import", "-C", ws, bad)
	if code != 1 || !strings.Contains(errOut, "not a session of rein, pi, Claude Code, codex or opencode") {
		t.Fatalf("garbage: %d %q", code, errOut)
	}
	if infos, _ := session.List(session.DefaultDir(ws)); len(infos) != 0 {
		t.Fatalf("a session was written: %v", infos)
	}
}

func TestResumeImportsAnotherHarnessesFile(t *testing.T) {
	ws := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Continued."}`)
	code, out, errOut := runCLI(t, "", "--resume", piFixture, "-C", ws, "-m", "faux", "--script", script, "-p", "go on")
	if code != 0 || !strings.Contains(out, "Continued.") || !strings.Contains(errOut, "is a pi session; importing it") {
		t.Fatalf("resume: %d %q %q", code, out, errOut)
	}
	_, entries, _, err := session.ReadFile(latestSession(t, ws))
	if err != nil {
		t.Fatal(err)
	}
	c := session.BuildContext(entries, session.LastLeaf(entries))
	if n := len(c.Messages); n != 8 || c.Messages[0].Text() != "read hello.txt" || c.Messages[7].Text() != "Continued." {
		t.Fatalf("%d messages: %+v", n, c.Messages)
	}
}

func TestSessionsExportInstallAndImportDir(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	if code, _, errOut := runCLI(t, "", "sessions", "import", "-C", ws, piFixture); code != 0 {
		t.Fatal(errOut)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	for _, f := range []string{"pi", "claude", "codex"} {
		code, _, errOut := runCLIEnv(t, "", func(e *env) { e.getenv = getenv }, "sessions", "export", "-C", ws, "last", "--format", f, "--install")
		if code != 0 || !strings.Contains(errOut, "open it with:") {
			t.Fatalf("%s --install: %d %q", f, code, errOut)
		}
	}
	for _, pat := range []string{".pi/agent/sessions/--*--/*.jsonl", ".claude/projects/*/*.jsonl", ".codex/sessions/*/*/*/rollout-*.jsonl"} {
		if m, _ := filepath.Glob(filepath.Join(home, pat)); len(m) != 1 {
			t.Fatalf("%s: %v", pat, m)
		}
	}
	// --install does not replace a file that is there.
	if code, _, errOut := runCLIEnv(t, "", func(e *env) { e.getenv = getenv }, "sessions", "export", "-C", ws, "last", "--format", "claude", "--install"); code == 0 {
		t.Fatalf("a second install replaced the first: %q", errOut)
	}
	// A directory imports every session file in it.
	ws2 := t.TempDir()
	code, out, errOut := runCLI(t, "", "sessions", "import", "-C", ws2, "../../interop/testdata/pi")
	if code != 0 || strings.Count(out, "imported ") != 2 {
		t.Fatalf("dir import: %d %q %q", code, out, errOut)
	}
}

// TestSessionsBundleMoves moves a session as a bundle to another
// workspace: `sessions import` restores it with its id, so `--resume ID`
// finds it there, and importing the bundle twice is refused.
func TestSessionsBundleMoves(t *testing.T) {
	ws := t.TempDir()
	if code, out, errOut := runCLI(t, "", "sessions", "import", "-C", ws, piFixture); code != 0 {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	infos, _ := session.List(session.DefaultDir(ws))
	if len(infos) != 1 {
		t.Fatalf("%d sessions", len(infos))
	}
	id := infos[0].ID
	dst := filepath.Join(t.TempDir(), "b.json")
	if code, _, errOut := runCLI(t, "", "sessions", "export", "-C", ws, id, "--format", "json", "-o", dst); code != 0 {
		t.Fatalf("export: %d %q", code, errOut)
	}
	other := t.TempDir()
	code, out, errOut := runCLI(t, "", "sessions", "import", "-C", other, dst)
	if code != 0 || !strings.Contains(out, "restored the bundle") || !strings.Contains(out, id) {
		t.Fatalf("restore: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "sessions", "show", "-C", other, id)
	if code != 0 || !strings.Contains(out, "DONE: file read.") {
		t.Fatalf("show: %d %q", code, out)
	}
	code, _, errOut = runCLI(t, "", "sessions", "import", "-C", other, dst)
	if code == 0 || !strings.Contains(errOut, "already here") {
		t.Fatalf("a second restore: %d %q", code, errOut)
	}
}

// TestSessionsImportClaudeSubagent imports a Claude Code session whose
// sub-agent's transcript Claude Code kept beside it: the sub-agent is a
// child session listed under the parent, and continuing the parent
// finds it ended, not orphaned.
func TestSessionsImportClaudeSubagent(t *testing.T) {
	ws := t.TempDir()
	code, out, errOut := runCLI(t, "", "sessions", "import", "-C", ws, "../../interop/testdata/claude/with-subagent/5d1c0e34-2222-4222-8333-944455556666.jsonl")
	if code != 0 || !strings.Contains(out, "sub-agent ") || !strings.Contains(out, "(Explore)") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "sessions", "list", "-C", ws)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[1], "Who calls Page?") || !strings.HasPrefix(lines[2], "└ ") || !strings.Contains(lines[2], "[agent Explore]") {
		t.Fatalf("list: %d\n%s", code, out)
	}
	script := writeScript(t, t.TempDir(), `{"text": "Still two callers."}
`)
	code, out, errOut = runCLI(t, "", "-c", "-p", "-m", "faux", "--script", script, "-C", ws, "and now?")
	if code != 0 || !strings.Contains(out, "Still two callers.") || strings.Contains(errOut, "orphaned") {
		t.Fatalf("continue: %d %q %q", code, out, errOut)
	}
}
