package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes dir a git repository with an identity of its own.
func gitRepo(t *testing.T, dir string) func(args ...string) string {
	t.Helper()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "--quiet", "-b", "main")
	run("config", "user.name", "Test")
	run("config", "user.email", "test@example.com")
	return run
}

func scriptLine(t *testing.T, text string, calls ...map[string]any) string {
	t.Helper()
	line := map[string]any{"text": text}
	if len(calls) > 0 {
		line["tool_calls"] = calls
	}
	b, err := json.Marshal(line)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func toolCall(name string, args map[string]string) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

// rein long init, work --until-done and status with the scripted model:
// two tasks, each done with its verify commands passing and committed.
func TestLongCommands(t *testing.T) {
	dir := t.TempDir()
	git := gitRepo(t, dir)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\n"), 0o644)
	git("add", "-A")
	git("commit", "-qm", "start")

	plan := `[
  {"id": "a", "title": "write a.txt", "acceptance_criteria": ["a.txt says a"], "verify": ["grep -qx a a.txt"], "status": "todo"},
  {"id": "b", "title": "write b.txt", "acceptance_criteria": ["b.txt says b"], "verify": ["grep -qx b b.txt"], "status": "todo"}
]
`
	var s strings.Builder
	s.WriteString(scriptLine(t, "Planning.",
		toolCall("write", map[string]string{"path": "agent-progress.json", "content": plan}),
		toolCall("write", map[string]string{"path": "agent-notes.md", "content": "# Notes\n\nTwo files.\n"}),
		toolCall("write", map[string]string{"path": "workspace.sh", "content": "#!/bin/bash\ntrue\n"})))
	s.WriteString(scriptLine(t, "The plan is written."))
	script := writeScript(t, t.TempDir(), s.String())
	code, out, errOut := runCLI(t, "", "long", "init", "-m", "faux", "--script", script, "-C", dir, "write", "two", "files")
	if code != 0 || !strings.Contains(out, "planned 2 tasks in agent-progress.json") || !strings.Contains(out, "committed ") {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
	}

	s.Reset()
	for _, id := range []string{"a", "b"} {
		s.WriteString(scriptLine(t, "", toolCall("bash", map[string]string{"command": fmt.Sprintf("echo %s > %s.txt && git add %s.txt && git commit -qm 'add %s.txt'", id, id, id, id)})))
		s.WriteString(scriptLine(t, "Added "+id+".txt."))
	}
	script = writeScript(t, t.TempDir(), s.String())
	code, out, errOut = runCLI(t, "", "long", "work", "-m", "faux", "--script", script, "-C", dir, "--until-done")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], `session 1  a "write a.txt"  done (verify 1/1)  $`) ||
		!strings.HasPrefix(lines[1], `session 2  b "write b.txt"  done (verify 1/1)`) || !strings.HasPrefix(lines[2], "stopped (done): all 2 tasks done; 2/2 done") {
		t.Fatalf("work: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "long", "status", "-C", dir)
	if code != 0 || !strings.Contains(out, "agent-progress.json: 2/2 done") || strings.Count(out, "(verified at ") != 2 {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	if log := git("log", "--format=%s"); !strings.Contains(log, "add a.txt") || !strings.Contains(log, "long: task b done (session 2)") {
		t.Fatalf("log:\n%s", log)
	}
}

// A malformed progress file: exit 2, the file and line, no session.
func TestLongWorkMalformedPlan(t *testing.T) {
	dir := t.TempDir()
	gitRepo(t, dir)
	os.WriteFile(filepath.Join(dir, "agent-progress.json"), []byte("[\n  {\"id\": \"a\",\n   \"title\": \"x\", \"status\": \"someday\", \"verify\": [\"true\"], \"acceptance_criteria\": [\"y\"]}\n]\n"), 0o644)
	script := writeScript(t, t.TempDir(), scriptLine(t, "hello"))
	code, out, errOut := runCLI(t, "", "long", "work", "-m", "faux", "--script", script, "-C", dir)
	if code != 2 || out != "" || !strings.Contains(errOut, `agent-progress.json:3: task 1: status "someday" is not one of todo, in_progress, done, cancelled`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rein", "sessions")); err == nil {
		t.Fatal("a session was started")
	}
	// A bad preset is bad input too.
	code, _, errOut = runCLI(t, "", "long", "status", "-C", dir, "--preset", "mine")
	if code != 2 || !strings.Contains(errOut, `unknown preset "mine"`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
