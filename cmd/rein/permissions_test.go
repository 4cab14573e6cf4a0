package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/trust"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// homeEnv is an env whose HOME is a fresh directory.
func homeEnv(t *testing.T, stdin io.Reader, out io.Writer) *env {
	home := t.TempDir()
	return &env{stdin: stdin, stdout: out, stderr: out, getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
}

// In ask mode the line chat asks before a command; "a" runs it and
// remembers the rule, so the same command later runs without a question.
func TestChatAsksAndRemembersAlways(t *testing.T) {
	ws := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Writing.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo one > one.txt"}}]}
{"text": "Done one."}
{"text": "Again.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo two > two.txt"}}]}
{"text": "Done two."}
{"text": "Editing.", "tool_calls": [{"name": "write", "arguments": {"path": "x.txt", "content": "x"}}]}
{"text": "Not allowed, fine."}
`)
	stdinR, stdinW := io.Pipe()
	var out syncBuffer
	e := homeEnv(t, stdinR, &out)
	done := make(chan int)
	go func() {
		done <- execute(context.Background(), e, []string{"chat", "--permission-mode", "ask", "-m", "faux", "--script", script, "-C", ws})
	}()
	go func() {
		io.WriteString(stdinW, "write one\n")
		waitFor(t, &out, "Allow bash: echo one > one.txt?")
		io.WriteString(stdinW, "a\n")
		waitForAfter(t, &out, "Done one.", "› ")
		io.WriteString(stdinW, "write two\n")
		waitForAfter(t, &out, "Done two.", "› ")
		io.WriteString(stdinW, "now edit\n")
		waitFor(t, &out, "Allow write x.txt?")
		io.WriteString(stdinW, "n not that file\n")
		waitFor(t, &out, "Not allowed, fine.")
		stdinW.Close()
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, out.String())
		}
	case <-time.After(30 * time.Second):
		stdinW.Close()
		t.Fatalf("chat did not finish\n%s", out.String())
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
		t.Error("the denied write ran")
	}
	if n := strings.Count(out.String(), "Allow bash"); n != 1 {
		t.Errorf("asked %d times about bash, want 1\n%s", n, out.String())
	}
	data, err := os.ReadFile(filepath.Join(ws, ".rein", "settings.local.json"))
	if err != nil || !strings.Contains(string(data), `"Bash(echo *)"`) {
		t.Errorf("remembered rule: %s %v", data, err)
	}
	sess, _ := os.ReadFile(latestSession(t, ws))
	if c := strings.Count(string(sess), `"kind":"permission"`); c != 3 {
		t.Errorf("%d permission decisions in the session log, want 3", c)
	}
	if !strings.Contains(string(sess), "not that file") {
		t.Error("the deny reason is not in the log")
	}
}

// A run with no terminal and a mode that asks denies at once.
func TestRunWithoutTerminalNeverWaits(t *testing.T) {
	ws := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Writing.", "tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]}
{"text": "Could not."}
`)
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runCLI(t, "", "run", "--permission-mode", "auto_read", "-m", "faux", "--script", script, "-C", ws, "make a file")
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run waited for an answer no one can give")
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Error("the command ran without approval")
	}
}

// A user's existing .claude/settings.json works: deny rules always, hooks
// once the workspace is trusted. Before that, a run no one can ask stops
// before its first request: it neither runs the hook nor the calls the
// hook exists to vet. A changed hook stops it again.
func TestClaudeSettingsHonoured(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	settings := `{
  "permissions": {"deny": ["Bash(rm:*)"]},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q curl && { echo 'no network in tests' >&2; exit 2; } || exit 0"}]}]}
}`
	os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(settings), 0o644)
	os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("x"), 0o644)
	script := `{"text": "1", "tool_calls": [{"name": "bash", "arguments": {"command": "rm keep.txt"}}]}
{"text": "2", "tool_calls": [{"name": "bash", "arguments": {"command": "curl -s http://127.0.0.1:1 > got.txt"}}]}
{"text": "done"}
`
	run := func(e *env) int {
		p := writeScript(t, t.TempDir(), script)
		return execute(context.Background(), e, []string{"run", "-o", "json", "-m", "faux", "--script", p, "-C", ws, "go"})
	}
	var out bytes.Buffer
	e := homeEnv(t, strings.NewReader(""), &out)
	if code := run(e); code != 2 {
		t.Fatalf("untrusted headless run: exit %d\n%s", code, out.String())
	}
	for _, w := range []string{".claude/settings.json (not trusted before)", "hook PreToolUse (Bash): grep -q curl", "rein trust", "REIN_TRUST_WORKSPACE=1"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the message lacks %q:\n%s", w, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "got.txt")); err == nil {
		t.Fatal("the call the hook exists to block ran in an untrusted workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, "keep.txt")); err != nil {
		t.Fatal("keep.txt is gone")
	}
	out.Reset()
	if code := execute(context.Background(), e, []string{"trust", ws}); code != 0 {
		t.Fatalf("trust: %s", out.String())
	}
	out.Reset()
	if code := run(e); code != 0 {
		t.Fatalf("trusted run: exit %d\n%s", code, out.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "keep.txt")); err != nil {
		t.Fatal("the deny rule did not stop rm")
	}
	if !strings.Contains(out.String(), "no network in tests") {
		t.Errorf("the trusted workspace's hook did not block curl:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "got.txt")); err == nil {
		t.Error("the blocked command ran")
	}
	// The hook changes after trust: the next headless run stops again and
	// shows what changed.
	os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(strings.Replace(settings, "grep -q curl", "grep -q nothing", 1)), 0o644)
	out.Reset()
	if code := run(e); code != 2 || !strings.Contains(out.String(), "changed since you trusted it") || !strings.Contains(out.String(), "+ hook PreToolUse (Bash): grep -q nothing") || !strings.Contains(out.String(), "- hook PreToolUse (Bash): grep -q curl") {
		t.Fatalf("changed hook: exit %d\n%s", code, out.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "got.txt")); err == nil {
		t.Error("a call ran after the hook changed")
	}
}

func TestBadSettingsFailClearly(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(`{"permissions": {"deny": ["Bash(rm -rf"]}}`), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "hi"}`)
	code, _, stderr := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", ws, "go")
	if code != 2 || !strings.Contains(stderr, `"Bash(rm -rf"`) || !strings.Contains(stderr, "settings.json") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// A trusted workspace's Stop hook keeps the agent going once, then lets
// it stop; the second Stop call says stop_hook_active.
func TestStopHookKeepsAgentGoing(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".rein"), 0o755)
	os.WriteFile(filepath.Join(ws, ".rein", "settings.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command",
  "command": "cat >> stop-inputs; echo >> stop-inputs; if [ -e verified ]; then exit 0; fi; touch verified; echo 'Run the tests before you stop.' >&2; exit 2"}]}]}}`), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "All done."}
{"text": "Tests pass; done now."}
`)
	var out bytes.Buffer
	e := homeEnv(t, strings.NewReader(""), &out)
	if code := execute(context.Background(), e, []string{"trust", ws}); code != 0 {
		t.Fatal(out.String())
	}
	out.Reset()
	if code := execute(context.Background(), e, []string{"run", "-o", "json", "-m", "faux", "--script", script, "-C", ws, "finish"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "Run the tests before you stop.") || !strings.Contains(out.String(), "Tests pass; done now.") {
		t.Errorf("the Stop hook did not keep the agent going:\n%s", out.String())
	}
	inputs, _ := os.ReadFile(filepath.Join(ws, "stop-inputs"))
	if !strings.Contains(string(inputs), `"stop_hook_active":false`) || !strings.Contains(string(inputs), `"stop_hook_active":true`) {
		t.Errorf("Stop hook inputs:\n%s", inputs)
	}
}

// rein run on a terminal asks on the terminal (a real pseudo-terminal,
// made by script(1)) and runs the command once it is allowed.
func TestRunOnTerminalAsks(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("script(1) from bsdutils is needed")
		}
		t.Skip("script(1) is not installed")
	}
	ws := t.TempDir()
	replies := writeScript(t, t.TempDir(), `{"text": "Making it.", "tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]}
{"text": "Made."}
`)
	line := fmt.Sprintf("%s run -m faux --script %s -C %s --no-session 'make a file'", os.Args[0], replies, ws)
	cmd := exec.Command(scriptBin, "-qec", line, "/dev/null")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitFor(t, &out, "Allow bash: touch made.txt?")
	io.WriteString(stdin, "y\n")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("rein run did not finish\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Allow bash: touch made.txt?") {
		t.Errorf("no question on the terminal:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Errorf("the allowed command did not run:\n%s", out.String())
	}
}

// UserPromptSubmit and SessionStart hooks add context the model sees; a
// UserPromptSubmit hook that blocks answers without calling the model.
func TestPromptAndSessionHooks(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".rein"), 0o755)
	os.WriteFile(filepath.Join(ws, ".rein", "settings.json"), []byte(`{"hooks": {
  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo 'Context from SessionStart.'"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "if grep -q deploy; then echo 'Deploys are frozen today.' >&2; exit 2; fi; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", \"additionalContext\": \"Context from UserPromptSubmit.\"}}'"}]}]
}}`), 0o644)
	var out bytes.Buffer
	e := homeEnv(t, strings.NewReader(""), &out)
	if code := execute(context.Background(), e, []string{"trust", ws}); code != 0 {
		t.Fatal(out.String())
	}
	script := writeScript(t, t.TempDir(), `{"text": "Model reply."}`)
	out.Reset()
	if code := execute(context.Background(), e, []string{"run", "-m", "faux", "--script", script, "-C", ws, "hello"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	sess, _ := os.ReadFile(latestSession(t, ws))
	for _, want := range []string{"Context from SessionStart.", "Context from UserPromptSubmit."} {
		if !strings.Contains(string(sess), want) {
			t.Errorf("the session lacks %q", want)
		}
	}
	out.Reset()
	code := execute(context.Background(), e, []string{"run", "-m", "faux", "--script", script, "-C", ws, "--no-session", "deploy now"})
	if code != 0 || !strings.Contains(out.String(), "Deploys are frozen today.") || strings.Contains(out.String(), "Model reply.") {
		t.Errorf("blocked prompt: exit %d\n%s", code, out.String())
	}
}

// rein chat asks once whether to trust a workspace whose settings run
// commands; "y" stores the trust.
func TestChatAsksForTrust(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "hi"}`)
	var out syncBuffer
	e := homeEnv(t, strings.NewReader("y\n/exit\n"), &out)
	if code := execute(context.Background(), e, []string{"chat", "-m", "faux", "--script", script, "-C", ws, "--no-session"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), ".claude/settings.json (not trusted before)") || !strings.Contains(out.String(), "+ hook Stop: true") || !strings.Contains(out.String(), "Trusted.") {
		t.Errorf("no trust question:\n%s", out.String())
	}
	snap, _ := trust.Scan(ws)
	if st, err := coding.TrustStore(e.getenv).Check(snap); err != nil || !st.OK() {
		t.Errorf("the answer was not stored: %v", err)
	}
	out2 := syncBuffer{}
	e2 := &env{stdin: strings.NewReader("/exit\n"), stdout: &out2, stderr: &out2, getenv: e.getenv}
	execute(context.Background(), e2, []string{"chat", "-m", "faux", "--script", script, "-C", ws, "--no-session"})
	if strings.Contains(out2.String(), "Trust ") {
		t.Errorf("asked again in a trusted workspace:\n%s", out2.String())
	}
}

// With "confine": ["hooks"], command hooks run in the workspace's
// sandbox: in read-only mode a hook cannot write even in the workspace,
// while the same hook unconfined can.
func TestConfinedHooks(t *testing.T) {
	if sandbox.Guess() == sandbox.None {
		if os.Getenv("CI") != "" {
			t.Fatal("no sandbox mechanism; .ci/run installs bubblewrap")
		}
		t.Skip("bubblewrap is not installed and the kernel has no Landlock")
	}
	for _, confine := range []bool{false, true} {
		ws := t.TempDir()
		os.MkdirAll(filepath.Join(ws, ".rein"), 0o755)
		os.WriteFile(filepath.Join(ws, ".rein", "settings.json"), []byte(`{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo mark > hook-wrote.txt"}]}]}}`), 0o644)
		sec := `{"sandbox": "read-only"}`
		if confine {
			sec = `{"sandbox": "read-only", "confine": ["hooks"]}`
		}
		os.WriteFile(filepath.Join(ws, ".rein", "security.json"), []byte(sec), 0o644)
		var out bytes.Buffer
		e := homeEnv(t, strings.NewReader(""), &out)
		if code := execute(context.Background(), e, []string{"trust", ws}); code != 0 {
			t.Fatal(out.String())
		}
		script := writeScript(t, t.TempDir(), `{"text": "ok"}`)
		if code := execute(context.Background(), e, []string{"run", "-m", "faux", "--script", script, "-C", ws, "--no-session", "hello"}); code != 0 {
			t.Fatalf("confine=%v: exit %d\n%s", confine, code, out.String())
		}
		_, err := os.Stat(filepath.Join(ws, "hook-wrote.txt"))
		if wrote := err == nil; wrote == confine {
			t.Errorf("confine=%v: the hook wrote its file: %v\n%s", confine, wrote, out.String())
		}
	}
}
