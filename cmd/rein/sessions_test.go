package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

func latestSession(t *testing.T, ws string) string {
	t.Helper()
	infos, err := session.List(session.DefaultDir(ws))
	if err != nil || len(infos) == 0 {
		t.Fatalf("no session in %s: %v", ws, err)
	}
	return infos[0].Path
}

func TestRunWritesSessionAndSessionsCommands(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", ws, "what does a.txt say?"); code != 0 {
		t.Fatalf("run: %d %s", code, errOut)
	}
	path := latestSession(t, ws)
	_, entries, issues, err := session.ReadFile(path)
	if err != nil || len(issues) != 0 {
		t.Fatalf("session: %v %v", err, issues)
	}
	c := session.BuildContext(entries, session.LastLeaf(entries))
	if len(c.Messages) != 4 || c.Messages[0].Text() != "what does a.txt say?" || c.Messages[3].Text() != "The file says hello." {
		t.Fatalf("persisted conversation: %+v", c.Messages)
	}

	code, out, _ := runCLI(t, "", "sessions", "list", "-C", ws)
	id := filepath.Base(path)[len("2006-01-02T15-04-05.000Z_"):][:8]
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "what does a.txt say?") {
		t.Fatalf("list: %d %q (id %s)", code, out, id)
	}
	code, out, _ = runCLI(t, "", "sessions", "show", "-C", ws, id)
	if code != 0 || !strings.Contains(out, "→ read a.txt") || !strings.Contains(out, "The file says hello.") {
		t.Fatalf("show: %d %q", code, out)
	}

	// Resume with one more prompt: the model sees the whole conversation.
	more := writeScript(t, t.TempDir(), `{"text": "Still hello."}`)
	code, out, errOut := runCLI(t, "", "sessions", "resume", "-C", ws, "--script", more, "last", "and now?")
	if code != 0 || !strings.Contains(out, "Still hello.") {
		t.Fatalf("resume: %d %q %q", code, out, errOut)
	}
	_, entries, _, _ = session.ReadFile(path)
	c = session.BuildContext(entries, session.LastLeaf(entries))
	if len(c.Messages) != 6 || c.Messages[4].Text() != "and now?" {
		t.Fatalf("resumed conversation has %d messages", len(c.Messages))
	}

	// Fork at the first answer: the new session holds the path up to it.
	code, out, _ = runCLI(t, "", "sessions", "show", "-C", ws, path)
	if !strings.Contains(out, "["+c.EntryIDs[3]+"]") {
		t.Fatalf("show does not give the entry ids:\n%s", out)
	}
	code, out, _ = runCLI(t, "", "sessions", "fork", "-C", ws, "--at", c.EntryIDs[3][:5], path)
	if code != 0 || !strings.Contains(out, "forked") {
		t.Fatalf("fork: %d %q", code, out)
	}
	forked := strings.Fields(out[strings.Index(out, " into ")+6:])[0]
	_, fentries, _, err := session.ReadFile(forked)
	if err != nil {
		t.Fatal(err)
	}
	if fc := session.BuildContext(fentries, session.LastLeaf(fentries)); len(fc.Messages) != 4 {
		t.Fatalf("forked conversation has %d messages", len(fc.Messages))
	}

	for _, bad := range []string{"nope", ""} {
		if code, _, errOut := runCLI(t, "", "sessions", "show", "-C", ws, bad); code != 2 || errOut == "" {
			t.Fatalf("show %q: %d %q", bad, code, errOut)
		}
	}
}

// Resuming keeps the session's thinking level and active tools unless
// flags override them, and a run at the model's default thinking level
// records it as such, not as "off".
func TestResumeKeepsThinkingAndTools(t *testing.T) {
	ws := t.TempDir()
	reply := writeScript(t, t.TempDir(), `{"text": "ok"}`)
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", reply, "-C", ws, "--thinking", "high", "--tools", "read,ls", "p1"); code != 0 {
		t.Fatalf("run: %d %s", code, errOut)
	}
	path := latestSession(t, ws)
	contextOf := func() session.Context {
		t.Helper()
		_, entries, issues, err := session.ReadFile(path)
		if err != nil || len(issues) != 0 {
			t.Fatalf("session: %v %v", err, issues)
		}
		return session.BuildContext(entries, session.LastLeaf(entries))
	}
	changes := func() (n int) {
		_, entries, _, _ := session.ReadFile(path)
		for _, e := range entries {
			if e.Type == session.TypeThinkingChange || e.Type == session.TypeToolsChange {
				n++
			}
		}
		return n
	}
	before := changes()
	if code, _, errOut := runCLI(t, "", "sessions", "resume", "-C", ws, "--script", reply, "last", "p2"); code != 0 {
		t.Fatalf("resume: %d %s", code, errOut)
	}
	c := contextOf()
	if c.Thinking != llm.ThinkingHigh || strings.Join(c.ActiveTools, ",") != "read,ls" || changes() != before {
		t.Fatalf("after resume: thinking %q, tools %v, %d changes (was %d)", c.Thinking, c.ActiveTools, changes(), before)
	}
	// Flags still win, and the model's default is logged as "default".
	if code, _, errOut := runCLI(t, "", "sessions", "resume", "-C", ws, "--script", reply, "--thinking", "", "--tools", "none", "last", "p3"); code != 0 {
		t.Fatalf("resume with flags: %d %s", code, errOut)
	}
	if c := contextOf(); c.Thinking != "" || c.ActiveTools == nil || len(c.ActiveTools) != 0 {
		t.Fatalf("after resume with flags: thinking %q, tools %#v", c.Thinking, c.ActiveTools)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"thinking":"default"`) {
		t.Fatalf("the model's default thinking level is not logged as default:\n%s", data)
	}

	// A fresh run at the default level records no thinking change.
	ws2 := t.TempDir()
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", reply, "-C", ws2, "p"); code != 0 {
		t.Fatalf("run: %d %s", code, errOut)
	}
	data, _ = os.ReadFile(latestSession(t, ws2))
	if strings.Contains(string(data), "thinking_change") {
		t.Fatalf("a run at the default level logged a thinking change:\n%s", data)
	}
}

func TestChatSteersAndFollowsUp(t *testing.T) {
	ws := t.TempDir()
	stdinR, stdinW := io.Pipe()
	steered := make(chan struct{})
	// The first reply waits in a tool call until the test has typed a
	// steering line; the second checks the steer reached the model.
	script := `{"text": "Looking.", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 0.3; echo done"}}]}
{"text": "Got it."}
{"text": "Follow-up handled."}
`
	scriptPath := writeScript(t, t.TempDir(), script)
	var out syncBuffer
	e := &env{stdin: stdinR, stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
	done := make(chan int)
	go func() {
		done <- execute(context.Background(), e, []string{"chat", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", scriptPath, "-C", ws})
	}()
	go func() {
		io.WriteString(stdinW, "start working\n")
		waitFor(t, &out, "→ bash")
		io.WriteString(stdinW, "also check the README\n")
		waitFor(t, &out, "steering: delivered")
		io.WriteString(stdinW, "/followup then summarise\n")
		close(steered)
		waitFor(t, &out, "Follow-up handled.")
		stdinW.Close()
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, out.String())
		}
	case <-time.After(20 * time.Second):
		stdinW.Close()
		t.Fatalf("chat did not finish\n%s", out.String())
	}
	<-steered
	_, entries, _, _ := session.ReadFile(latestSession(t, ws))
	c := session.BuildContext(entries, session.LastLeaf(entries))
	var users []string
	for _, m := range c.Messages {
		if m.Role == llm.RoleUser {
			users = append(users, m.Text())
		}
	}
	want := "start working|also check the README|then summarise"
	if strings.Join(users, "|") != want {
		t.Fatalf("user messages %q, want %q\n%s", users, want, out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func waitFor(t *testing.T, b *syncBuffer, s string) {
	t.Helper()
	waitForAfter(t, b, s, "")
}

// waitForAfter waits until s appears, and then next after it ("" for
// nothing): waitForAfter(…, "Done.", "› ") waits until the line chat is
// ready for the next line after a reply, so that the line is a prompt and
// not a steer of the ending run.
func waitForAfter(t *testing.T, b *syncBuffer, s, next string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		out := b.String()
		if i := strings.Index(out, s); i >= 0 && strings.Contains(out[i+len(s):], next) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestKillDuringBashThenResume kills a real rein process with SIGKILL in
// the middle of a bash tool call, then resumes its session: the session
// loads, the dangling call is repaired, and the run continues.
func TestKillDuringBashThenResume(t *testing.T) {
	ws := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Running a long job.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo $$ > job.pid; sleep 60"}}]}
{"text": "never reached"}
`)
	cmd := exec.Command(os.Args[0], "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", ws, "run the long job")
	// Unsandboxed, so that $$ is a process id of this namespace.
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "REIN_SANDBOX=off")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(ws, "job.pid")
	deadline := time.Now().Add(20 * time.Second)
	var jobPID int
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(pidFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			jobPID, _ = strconv.Atoi(string(bytes.TrimSpace(b)))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if jobPID == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the bash call never started; stderr: %s", stderr.String())
	}
	defer syscall.Kill(-jobPID, syscall.SIGKILL) // the job's own process group
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	path := latestSession(t, ws)
	more := writeScript(t, t.TempDir(), `{"text": "The job was interrupted; starting over is safe."}`)
	code, out, errOut := runCLI(t, "", "sessions", "resume", "-C", ws, "--script", more, path, "what happened?")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "repaired: the bash call") || !strings.Contains(out, "starting over is safe") {
		t.Fatalf("stdout %q\nstderr %q", out, errOut)
	}
	_, entries, issues, err := session.ReadFile(path)
	if err != nil || len(issues) != 0 {
		t.Fatalf("reload: %v %v", err, issues)
	}
	c := session.BuildContext(entries, session.LastLeaf(entries))
	roles := make([]string, len(c.Messages))
	for i, m := range c.Messages {
		roles[i] = string(m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool_result,user,assistant" {
		t.Fatalf("conversation roles %v", roles)
	}
	if r := c.Messages[2]; !r.IsError || !strings.Contains(r.Text(), "interrupted") {
		t.Fatalf("dangling call not repaired: %+v", r)
	}
	if sent := llm.Sendable(c.Messages, llm.APIAnthropicMessages); len(sent) != len(c.Messages) {
		t.Fatalf("repaired conversation is not well-formed: %d of %d messages sendable", len(sent), len(c.Messages))
	}
}

// In chat, the first Ctrl-C stops the running turn and the chat goes on;
// a second one while the turn winds down is not swallowed: it quits.
func TestChatSecondInterruptQuits(t *testing.T) {
	ws := t.TempDir()
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	script := writeScript(t, t.TempDir(), `{"text": "Waiting.", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]}`)
	var out syncBuffer
	e := &env{stdin: stdinR, stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int)
	go func() {
		done <- execute(ctx, e, []string{"chat", "-m", "faux", "--script", script, "-C", ws})
	}()
	io.WriteString(stdinW, "wait a while\n")
	waitFor(t, &out, "→ bash")
	if !e.interrupt() {
		t.Fatal("the first Ctrl-C during a turn was not taken as stopping the turn")
	}
	if e.interrupt() {
		t.Fatal("a second Ctrl-C was swallowed")
	}
	cancel() // what main does when a Ctrl-C is not taken
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("chat did not quit\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Ctrl-C again to quit") {
		t.Fatalf("no hint on the first Ctrl-C:\n%s", out.String())
	}
}
