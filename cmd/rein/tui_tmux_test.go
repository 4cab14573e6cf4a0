package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/reinhq/rein/session"
)

// tmuxSession drives the rein command in a tmux pane as a person would:
// keys in, screen out. The test binary is the rein command (see
// TestMain).
type tmuxSession struct {
	t      *testing.T
	socket string
}

// needTmux skips without tmux, except in CI, where it must be there.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed; .ci/run installs it")
		}
		t.Skip("tmux is not installed")
	}
}

// startTmux runs rein with args in a new tmux server of its own, in dir,
// with the given extra environment. The prompt history goes to a
// temporary state directory unless env sets XDG_STATE_HOME.
func startTmux(t *testing.T, dir string, width, height int, env []string, args ...string) *tmuxSession {
	t.Helper()
	needTmux(t)
	if !slices.ContainsFunc(env, func(v string) bool { return strings.HasPrefix(v, "XDG_STATE_HOME=") }) {
		env = append(env, "XDG_STATE_HOME="+t.TempDir())
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("rein-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	quoted := append([]string{"env"}, env...)
	quoted = append(quoted, "REIN_TEST_MAIN=1", exe)
	for _, a := range args {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	// The pane stays after rein exits, so that its last screen and exit
	// status can be read.
	cmd := "cd '" + dir + "' && " + strings.Join(quoted, " ") + "; echo \"[exit $?]\"; sleep 600"
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), cmd)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names or literal text (-l).
func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

func (s *tmuxSession) text(text string) { s.tmux("send-keys", "-t", "main", "-l", text) }

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", "main") }

func (s *tmuxSession) screenEscapes() string { return s.tmux("capture-pane", "-p", "-e", "-t", "main") }

// wait polls the screen until it contains want.
func (s *tmuxSession) wait(want string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", want), func(scr string) bool { return strings.Contains(scr, want) })
}

// waitFor polls the screen until ok holds for it: the screen is the only
// event a terminal program gives, so the test watches it change rather
// than guess how long a step takes. The bound only ends a test that
// would otherwise hang.
func (s *tmuxSession) waitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		scr := s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %s; it shows:\n%s", what, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const tmuxScript = `{"thinking": "Look at the file first.", "text": "Reading **a.txt**.", "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}
{"text": "The file says *hello*.\n\n- 你好世界\n- done"}
{"text": "Editing.", "tool_calls": [{"name": "edit", "arguments": {"path": "a.txt", "edits": [{"old_text": "hello", "new_text": "hello world"}]}}]}
{"text": "Edited."}
`

func TestTUIInTmuxWithFauxModel(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), tmuxScript)
	s := startTmux(t, dir, 80, 24, []string{"TERM=xterm-256color"}, "--model", "faux", "--script", script)
	s.wait("Ask rein to do something")
	s.text("what does a.txt say?")
	s.keys("Enter")
	scr := s.wait("The file says hello.")
	for _, want := range []string{"› what does a.txt say?", "▸ thinking · 1 line", "● read a.txt ✓", "• 你好世界", "faux/faux", "ctx "} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	// History: up brings back the prompt.
	s.keys("Up")
	s.wait("› what does a.txt say?\n")
	s.keys("C-u")
	s.text("now edit it")
	s.keys("Enter")
	// The edit needs approval in the default mode: the dialog asks, and
	// "1" allows it once.
	scr = s.wait("Permission needed")
	if !strings.Contains(scr, "Allow edit a.txt?") || !strings.Contains(scr, "allow always: Edit(") {
		t.Errorf("approval dialog:\n%s", scr)
	}
	s.keys("1")
	s.wait("Edited.")
	s.keys("C-o")
	scr = s.wait("── output")
	if !strings.Contains(scr, "-hello") || !strings.Contains(scr, "+hello world") {
		t.Errorf("the edit is not shown as a diff:\n%s", scr)
	}
	s.text("/tree")
	s.keys("Enter")
	scr = s.wait("Session tree")
	// The run's record is the last entry, after the reply.
	if !strings.Contains(scr, "• assistant: Edited.") || !strings.Contains(scr, "◆ custom: run") {
		t.Errorf("tree:\n%s", scr)
	}
	s.keys("Escape")
	// A person pauses after esc; keys right after it would read as alt+key.
	time.Sleep(300 * time.Millisecond)
	s.text("/help")
	s.keys("Enter")
	s.wait("/tree — browse the session tree")
	// A narrow terminal: nothing wider than the pane, nothing lost.
	s.tmux("resize-window", "-t", "main", "-x", "20", "-y", "12")
	time.Sleep(300 * time.Millisecond)
	for i, l := range strings.Split(s.screen(), "\n") {
		if w := ansi.StringWidth(l); w > 20 {
			t.Errorf("line %d is %d cells wide at 20 columns: %q", i, w, l)
		}
	}
	s.tmux("resize-window", "-t", "main", "-x", "80", "-y", "24")
	s.keys("C-d")
	s.wait("[exit 0]")
	b, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	if string(b) != "hello world\n" {
		t.Errorf("a.txt = %q", b)
	}
	infos, _ := session.List(session.DefaultDir(dir))
	if len(infos) != 1 || infos[0].Messages != 8 {
		t.Fatalf("session: %+v", infos)
	}
}

// TestTUIInTmuxHistoryAndFork: a prompt of one rein is up's in the
// next, and /fork continues in a new session file, leaving the old one
// as it was.
func TestTUIInTmuxHistoryAndFork(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	env := []string{"TERM=xterm-256color", "XDG_STATE_HOME=" + state}
	s := startTmux(t, dir, 80, 24, env, "--model", "faux", "--script", writeScript(t, t.TempDir(), `{"text": "first answer"}`+"\n"))
	s.wait("Ask rein to do something")
	s.text("remember this prompt")
	s.keys("Enter")
	s.wait("first answer")
	s.keys("C-d")
	s.wait("[exit 0]")
	infos, _ := session.List(session.DefaultDir(dir))
	if len(infos) != 1 {
		t.Fatalf("sessions: %+v", infos)
	}
	old := infos[0]

	// A new rein continues the session: up brings back the prompt of
	// the first one.
	s = startTmux(t, dir, 80, 24, env, "-c", "--model", "faux", "--script", writeScript(t, t.TempDir(), `{"text": "after the fork"}`+"\n"))
	s.wait("Ask rein to do something")
	s.keys("Up")
	s.wait("› remember this prompt\n")
	s.keys("C-u")
	s.text("/fork")
	s.keys("Enter")
	scr := s.wait("forked to ")
	m := regexp.MustCompile(`forked to ([0-9a-f]+); the old session is ([0-9a-f]+)`).FindStringSubmatch(scr)
	if m == nil || !strings.HasPrefix(old.ID, m[2]) || strings.HasPrefix(old.ID, m[1]) {
		t.Fatalf("fork notice (old session %s):\n%s", old.ID, scr)
	}
	if !strings.Contains(scr, "session "+m[1][:8]) || !strings.Contains(scr, "first answer") {
		t.Fatalf("after the fork the screen shows:\n%s", scr)
	}
	atFork, _ := os.ReadFile(old.Path)
	s.text("a prompt for the fork")
	s.keys("Enter")
	s.wait("after the fork")
	s.keys("C-d")
	s.wait("[exit 0]")
	if b, _ := os.ReadFile(old.Path); string(b) != string(atFork) {
		t.Errorf("the old session was written after the fork")
	}

	infos, _ = session.List(session.DefaultDir(dir))
	if len(infos) != 2 {
		t.Fatalf("sessions: %+v", infos)
	}
	for _, in := range infos {
		b, _ := os.ReadFile(in.Path)
		has := strings.Contains(string(b), "a prompt for the fork")
		switch {
		case in.ID == old.ID && has:
			t.Errorf("the old session got the prompt sent after the fork")
		case in.ID == old.ID && in.Messages != old.Messages:
			t.Errorf("the old session changed: %d messages, was %d", in.Messages, old.Messages)
		case in.ID != old.ID && (!has || !strings.HasPrefix(in.ID, m[1]) || !strings.Contains(string(b), "remember this prompt")):
			t.Errorf("the fork %s lacks the conversation:\n%s", in.ID, b)
		}
	}
	// The history file holds the prompts and the command, in order.
	files, _ := filepath.Glob(filepath.Join(state, "rein", "history", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("history files: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if got := regexp.MustCompile(`"text":"([^"]*)"`).FindAllStringSubmatch(string(b), -1); len(got) != 3 || got[0][1] != "remember this prompt" || got[1][1] != "/fork" || got[2][1] != "a prompt for the fork" {
		t.Fatalf("history file:\n%s", b)
	}
}

func TestTUIInTmuxWithMockServer(t *testing.T) {
	srv := newChatServer(t, "Hello from the **mock** server.")
	dir := t.TempDir()
	s := startTmux(t, dir, 60, 16, []string{"TERM=xterm-256color", "NO_COLOR=1"}, "chat", "-m", "openai/m", "--base-url", srv.URL+"/v1")
	s.wait("Ask rein to do something")
	s.text("hi")
	s.keys("Enter")
	scr := s.wait("Hello from the")
	if !strings.Contains(scr, "openai/m") || !strings.Contains(scr, "↑") {
		t.Errorf("status line:\n%s", scr)
	}
	// NO_COLOR: no foreground or background colours on the screen.
	if esc := s.screenEscapes(); regexp.MustCompile(`\x1b\[[0-9;]*(3[0-7]|38;[25]|4[0-7]|48;[25])[;m]`).MatchString(esc) {
		t.Errorf("colours with NO_COLOR:\n%q", esc)
	}
	// A big paste arrives whole.
	big := strings.Repeat("x", 20000)
	bigFile := filepath.Join(t.TempDir(), "paste.txt")
	os.WriteFile(bigFile, []byte(big), 0o644)
	s.tmux("load-buffer", bigFile)
	s.tmux("paste-buffer", "-p", "-t", "main")
	s.wait("[paste #1: 20000 bytes")
	s.keys("Enter")
	// The second reply is on the screen below the paste and the turn has
	// ended (no "working" in the status line): only then may ctrl+c mean
	// "quit" rather than "abort the turn".
	s.waitFor("the second reply, the turn over", func(scr string) bool {
		reply, paste := strings.LastIndex(scr, "Hello from the"), strings.LastIndex(scr, "xxxxxxxx")
		return paste >= 0 && reply > paste && !strings.Contains(scr, "working")
	})
	reqs := srv.requests()
	if len(reqs) < 2 || !strings.Contains(reqs[1], big) {
		t.Fatalf("the paste did not reach the server whole (%d requests)", len(reqs))
	}
	s.keys("C-c")
	s.wait("press ctrl+c again to quit")
	s.keys("C-c")
	s.wait("[exit 0]")
}

func TestTUIFallsBackWithoutTERM(t *testing.T) {
	script := writeScript(t, t.TempDir(), `{"text": "plain answer"}`+"\n")
	s := startTmux(t, t.TempDir(), 80, 24, []string{"-u", "TERM"}, "--model", "faux", "--script", script)
	s.wait("rein chat — faux/faux")
	s.text("hello")
	s.keys("Enter")
	s.wait("plain answer")
	s.keys("C-d")
	s.wait("[exit 0]")
}

func TestResumeLockedSession(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "ok"}`+"\n")
	runCLI(t, "", "-p", "-m", "faux", "--script", script, "-C", dir, "first")
	infos, _ := session.List(session.DefaultDir(dir))
	held, err := session.Open(infos[0].Path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	before, _ := os.ReadFile(infos[0].Path)
	code, out, errOut := runCLI(t, "", "--resume", infos[0].ID, "-C", dir, "-p", "second")
	if code != 1 || out != "" || !strings.Contains(errOut, "rein sessions fork") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	after, _ := os.ReadFile(infos[0].Path)
	if string(before) != string(after) {
		t.Fatal("the locked session was changed")
	}
}

// BenchmarkTUIStartup measures the time from starting rein on a
// terminal (a pseudo-terminal from script(1)) to its prompt editor in the
// output: the whole process, reading config, building the agent and the
// first frame. ms-floor is the same measure of a command that only
// prints, the cost of script itself on this machine.
func BenchmarkTUIStartup(b *testing.B) {
	if _, err := exec.LookPath("script"); err != nil {
		b.Skip("script(1) is not installed")
	}
	script := filepath.Join(b.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"text": "hi"}`+"\n"), 0o644)
	exe, _ := os.Executable()
	dir := b.TempDir()
	until := func(command, want string) time.Duration {
		cmd := exec.Command("script", "-qfc", command, "/dev/null")
		cmd.Env = append(os.Environ(), "TERM=xterm-256color", "REIN_TEST_MAIN=1")
		cmd.Dir = dir
		out, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() {
			cmd.Process.Kill()
			cmd.Wait()
		}()
		var seen []byte
		buf := make([]byte, 4096)
		for !strings.Contains(ansi.Strip(string(seen)), want) {
			n, err := out.Read(buf)
			seen = append(seen, buf[:n]...)
			if err != nil {
				b.Fatalf("%s: %v; output %q", command, err, seen)
			}
		}
		return time.Since(start)
	}
	var total, floor time.Duration
	for i := 0; i < b.N; i++ {
		total += until(fmt.Sprintf("'%s' --model faux --script '%s' --no-session", exe, script), "Ask rein to do something")
		floor += until("echo READY", "READY")
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-prompt")
	b.ReportMetric(float64(floor.Microseconds())/1000/float64(b.N), "ms-floor")
}

// BenchmarkPrintToFirstRequest measures the time from starting rein -p to
// the first request reaching a local mock server: the whole process.
func BenchmarkPrintToFirstRequest(b *testing.B) {
	hit := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hit <- time.Now():
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	exe, _ := os.Executable()
	dir := b.TempDir()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(exe, "-p", "-m", "openai/m", "--base-url", srv.URL+"/v1", "-C", dir, "--no-session", "hi")
		cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1")
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		at := <-hit
		total += at.Sub(start)
		cmd.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-request")
}
