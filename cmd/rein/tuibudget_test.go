package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIBudgetDialog: in the terminal UI a prompt that reaches its
// limit opens a dialog; removing the limit lets the next message go on,
// and the status line shows what was spent against the limit meanwhile.
func TestTUIBudgetDialog(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "Reading the file now.", "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}
{"text": "Carried on after the limit went."}
`)
	s := startTmux(t, dir, 100, 24, []string{"TERM=xterm-256color"}, "--model", "faux", "--script", script, "--max-output-tokens", "2")
	s.wait("Ask rein to do something")
	s.text("read a.txt")
	s.keys("Enter")
	scr := s.wait("3. keep the limit")
	for _, want := range []string{"output tokens (--max-output-tokens)", "raise the limit to", "remove this limit", "keep the limit"} {
		if !strings.Contains(scr, want) {
			t.Errorf("dialog lacks %q:\n%s", want, scr)
		}
	}
	// A person presses the key again if the first press did not take.
	s.keys("2")
	s.waitFor("the limit removed", func(scr string) bool {
		if strings.Contains(scr, "budget changed: send a message to go on") {
			return true
		}
		if strings.Contains(scr, "3. keep the limit") {
			s.keys("2")
		}
		return false
	})
	s.text("continue")
	s.keys("Enter")
	// ctrl+d quits only when idle: wait for the turn to end.
	s.waitFor("the reply, the turn over", func(scr string) bool {
		return strings.Contains(scr, "Carried on after the limit went.") && !strings.Contains(scr, "working")
	})
	s.keys("C-d")
	s.wait("[exit 0]")
}
