package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/session"
)

// The terminal UI lists the running sub-agents with /agents and cancels
// one; /queue collect holds text typed while the agent works, and
// /interrupt stops the running prompt and runs its text next. Everyone
// (parent and child) takes answers from the one script: both first run a
// long command, so the parent is busy and the child running.
func TestTUIInTmuxAgentsAndQueueModes(t *testing.T) {
	dir := t.TempDir()
	step := `{"text": "working", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 60"}}]}` + "\n"
	script := `{"text": "Delegating.", "tool_calls": [{"name": "agent", "arguments": {"subagent_type": "general", "description": "watch the logs", "prompt": "watch", "run_in_background": true}}]}` + "\n" +
		step + step + `{"text": "interrupted and answering"}` + "\n" + `{"text": "collected answer"}` + "\n"
	s := startTmux(t, dir, 120, 30, []string{"TERM=xterm-256color"}, "--model", "faux", "--script", writeScript(t, t.TempDir(), script), "--permission-mode", "auto_all")
	s.wait("Ask rein to do something")
	s.text("start")
	s.keys("Enter")
	// The parent and the child each run their long command.
	s.wait("agents: general")
	// The child's log shows when it has taken its answer and runs its
	// command: only then is the script's order settled.
	waitChildLog(t, session.DefaultDir(dir), `"sleep 60"`)
	s.text("/agents")
	s.keys("Enter")
	scr := s.wait("/agents cancel ID stops one")
	m := regexp.MustCompile(`([0-9a-f]{12})  general\s+running\s+background  watch the logs`).FindStringSubmatch(scr)
	if m == nil || !strings.Contains(scr, "1 running or queued, 0 ended") {
		t.Fatalf("the listing does not show the running child:\n%s", scr)
	}
	s.text("/agents cancel " + m[1])
	s.keys("Enter")
	s.wait("cancelled sub-agent " + m[1] + " (general)")
	// Text typed while the agent works is collected.
	s.text("/queue collect")
	s.keys("Enter")
	s.wait("sent as collect")
	s.text("alpha")
	s.keys("Enter")
	s.wait("collected (1 waiting)")
	// /interrupt stops the running prompt; its text runs next, then the
	// collected one.
	s.text("/interrupt stop and answer")
	s.keys("Enter")
	s.wait("interrupted and answering")
	scr = s.wait("collected answer")
	if !strings.Contains(scr, "alpha") {
		t.Errorf("the collected prompt is not shown:\n%s", scr)
	}
	s.keys("C-d")
	s.wait("[exit 0]")
}

// waitChildLog polls the sessions in dir until a sub-agent's log holds
// want, as the screen is polled: the file is the only sign of the child's
// progress the test can see.
func waitChildLog(t *testing.T, dir, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			first, _, _ := bytes.Cut(b, []byte("\n"))
			if err == nil && bytes.Contains(first, []byte(`"agent":{`)) && bytes.Contains(b, []byte(want)) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sub-agent's log in %s came to hold %s", dir, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
