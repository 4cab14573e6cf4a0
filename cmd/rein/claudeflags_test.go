package main

import (
	"strings"
	"testing"
)

// Claude Code's flags that rein does not honour stop the run with the
// reason; the ones it maps are accepted.
func TestClaudeFlags(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, `{"text": "done"}`+"\n")
	for _, flag := range []string{"--mcp-config", "--settings", "--add-dir", "--session-id"} {
		code, _, errOut := runCLI(t, "", "-p", "hi", "-C", dir, "--model", "faux", "--script", script, flag, "x")
		if code != 2 || !strings.Contains(errOut, flag+" is a Claude Code flag rein does not support") {
			t.Errorf("%s: exit %d, %q", flag, code, errOut)
		}
	}
	code, out, errOut := runCLI(t, "", "-p", "hi", "-C", dir, "--model", "faux", "--script", script, "--verbose",
		"--allowedTools", "Bash(git diff:*),Read", "--disallowedTools", "Bash(rm:*)", "--tools", "Read,Grep", "--permission-mode", "acceptEdits")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("mapped flags: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "", "-p", "hi", "-C", dir, "--model", "faux", "--script", script, "--dangerously-skip-permissions", "--permission-mode", "plan")
	if code != 2 || !strings.Contains(errOut, "contradict") {
		t.Fatalf("contradicting flags: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "-p", "hi", "-C", dir, "--model", "faux", "--script", script, "--allowedTools", "Bash(")
	if code != 2 || !strings.Contains(errOut, "--allowedTools") {
		t.Fatalf("a broken rule: exit %d %q", code, errOut)
	}
}

// --resume without an id, with nobody at a terminal to choose, lists the
// sessions in its error.
func TestResumeWithoutID(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, `{"text": "done"}`+"\n")
	if code, _, errOut := runCLI(t, "", "-p", "first prompt", "-C", dir, "--model", "faux", "--script", script); code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	code, _, errOut := runCLI(t, "", "-C", dir, "--resume")
	if code != 2 || !strings.Contains(errOut, "needs a terminal") || !strings.Contains(errOut, "first prompt") {
		t.Fatalf("exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "-C", dir, "-r")
	if code != 2 || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("-r: exit %d %q", code, errOut)
	}
}
