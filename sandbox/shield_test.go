package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shieldWorkspace makes a workspace with protected files and rein state.
func shieldWorkspace(t *testing.T) (string, []string) {
	t.Helper()
	ws := t.TempDir()
	for name, body := range map[string]string{
		".git/config":               "[core]\n",
		".git/HEAD":                 "ref: refs/heads/main\n",
		".git/hooks/pre-push":       "#!/bin/sh\nexit 0\n",
		".claude/settings.json":     `{"a":1}`,
		".rein/config.json":         `{}`,
		".rein/sessions/s1.jsonl":   "{}\n",
		".rein/settings.local.json": `{"permissions":{}}`,
		".mcp.json":                 `{"mcpServers":{}}`,
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var existing []string
	for _, q := range DefaultProtected(ws) {
		if present(q) {
			existing = append(existing, q)
		}
	}
	return ws, existing
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShieldRestores changes, removes and adds protected files the ways a
// command could, and checks that restore puts every original back, moves
// the command's versions aside, and leaves rein's own state alone.
func TestShieldRestores(t *testing.T) {
	ws, existing := shieldWorkspace(t)
	s := acquireShield(ws, existing)
	write(t, filepath.Join(ws, ".git/config"), "[core]\n\tfsmonitor = touch pwned\n")
	write(t, filepath.Join(ws, ".git/hooks/pre-commit"), "#!/bin/sh\ntouch pwned\n")
	os.Remove(filepath.Join(ws, ".git/hooks/pre-push"))
	write(t, filepath.Join(ws, ".claude/agents/evil.md"), "---\nname: evil\n---\n")
	write(t, filepath.Join(ws, ".rein/security.json"), `{"sandbox":"off"}`)
	os.Remove(filepath.Join(ws, ".mcp.json"))
	os.Symlink("/etc/passwd", filepath.Join(ws, ".mcp.json"))
	// rein's own writes while the command runs.
	write(t, filepath.Join(ws, ".rein/sessions/s1.jsonl"), "{}\n{}\n")
	write(t, filepath.Join(ws, ".rein/settings.local.json"), `{"permissions":{"allow":["Bash(ls)"]}}`)

	moved, err := s.restore(existing)
	s.release()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		".git/config":               "[core]\n",
		".git/hooks/pre-push":       "#!/bin/sh\nexit 0\n",
		".mcp.json":                 `{"mcpServers":{}}`,
		".rein/sessions/s1.jsonl":   "{}\n{}\n",
		".rein/settings.local.json": `{"permissions":{"allow":["Bash(ls)"]}}`,
	} {
		if got := readFile(filepath.Join(ws, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, gone := range []string{".git/hooks/pre-commit", ".claude/agents", ".rein/security.json"} {
		if present(filepath.Join(ws, gone)) {
			t.Errorf("%s is still in place", gone)
		}
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".mcp.json")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf(".mcp.json is not the original file: %v %v", fi, err)
	}
	var names []string
	for _, m := range moved {
		names = append(names, m.Path+"→"+m.MovedTo)
		if m.MovedTo != "" && !present(filepath.Join(ws, m.MovedTo)) {
			t.Errorf("%s was said to be moved to %s, which is not there", m.Path, m.MovedTo)
		}
	}
	if len(moved) != 6 {
		t.Errorf("moved = %v, want 6 entries (config, pre-push, pre-commit, agents, security.json, .mcp.json)", names)
	}
	if len(shields.m) != 0 {
		t.Errorf("shields still held: %v", shields.m)
	}
}

// TestShieldBringsBackRenamedDir renames .git away and plants a new one:
// the original comes back and the planted one is moved aside.
func TestShieldBringsBackRenamedDir(t *testing.T) {
	ws, existing := shieldWorkspace(t)
	s := acquireShield(ws, existing)
	if err := os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, "sub-gitx")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, ".git/config"), "[core]\n\tfsmonitor = x\n")
	moved, err := s.restore(existing)
	s.release()
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(filepath.Join(ws, ".git/HEAD")); got != "ref: refs/heads/main\n" {
		t.Errorf(".git is not the original: HEAD %q", got)
	}
	if present(filepath.Join(ws, "sub-gitx")) {
		t.Error("the renamed .git is still at sub-gitx")
	}
	var planted string
	for _, m := range moved {
		if m.Path == ".git" && !m.Restored {
			planted = m.MovedTo
		}
	}
	if !strings.Contains(readFile(filepath.Join(ws, planted, "config")), "fsmonitor") {
		t.Errorf("the planted .git was not moved aside whole: %+v", moved)
	}
}

// TestShieldOverlappingCommands: a command that starts after another
// changed a protected file must not take the change for the original,
// whichever ends first.
func TestShieldOverlappingCommands(t *testing.T) {
	for _, aFirst := range []bool{true, false} {
		ws, existing := shieldWorkspace(t)
		a := acquireShield(ws, existing)
		write(t, filepath.Join(ws, ".git/config"), "[core]\n\tfsmonitor = x\n")
		b := acquireShield(ws, existing)
		if a != b {
			t.Fatal("overlapping commands got different shields")
		}
		first, second := a, b
		if !aFirst {
			first, second = b, a
		}
		if _, err := first.restore(existing); err != nil {
			t.Fatal(err)
		}
		first.release()
		write(t, filepath.Join(ws, ".git/config"), "[core]\n\tfsmonitor = y\n") // still running
		if _, err := second.restore(existing); err != nil {
			t.Fatal(err)
		}
		second.release()
		if got := readFile(filepath.Join(ws, ".git/config")); got != "[core]\n" {
			t.Errorf("aFirst=%v: .git/config = %q, want the original", aFirst, got)
		}
		if len(shields.m) != 0 {
			t.Fatalf("shields still held: %v", shields.m)
		}
	}
}

// TestShieldTooLargeIsReported: a protected file over the kept size is
// watched by its hash; a change to it is moved aside and reported.
func TestShieldTooLargeIsReported(t *testing.T) {
	ws, _ := shieldWorkspace(t)
	big := filepath.Join(ws, ".claude/skills/big/data.bin")
	write(t, big, strings.Repeat("x", maxShieldFile+1))
	existing := []string{filepath.Join(ws, ".claude")}
	s := acquireShield(ws, existing)
	write(t, big, "changed")
	moved, err := s.restore(existing)
	s.release()
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("err = %v, want a note that the original was too large to keep", err)
	}
	if len(moved) != 1 || present(big) {
		t.Errorf("moved = %+v; the changed file should be moved aside", moved)
	}
}
