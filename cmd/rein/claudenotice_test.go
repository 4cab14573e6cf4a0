package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// noticeHome is a home whose Claude Code settings hold a status line and
// a Setup hook, which rein does not honour.
func noticeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"statusLine": {"type": "command", "command": "echo hi"},
		"hooks": {"Setup": [{"hooks": [{"type": "command", "command": "true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

const noticeText = "rein does not honour part of the Claude Code setup"

// rein run says once on standard error what the setup holds that rein
// does not honour, naming file and keys; a setup it honours whole says
// nothing.
func TestStartupNoticeRun(t *testing.T) {
	home := noticeHome(t)
	script := writeScript(t, t.TempDir(), `{"text": "ok"}`)
	code, out, errOut := runCLIVars(t, map[string]string{"HOME": home}, "run", "-m", "faux", "--script", script, "-C", t.TempDir(), "hi")
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	if strings.Count(errOut, noticeText) != 1 || !strings.Contains(errOut, "~/.claude/settings.json: statusLine (") || !strings.Contains(errOut, "hooks.Setup (") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if strings.Contains(out, noticeText) {
		t.Errorf("the notice reached standard output")
	}

	clean := t.TempDir()
	os.MkdirAll(filepath.Join(clean, ".claude"), 0o755)
	os.WriteFile(filepath.Join(clean, ".claude", "settings.json"), []byte(`{"env": {"A": "1"}}`), 0o644)
	script = writeScript(t, t.TempDir(), `{"text": "ok"}`)
	code, _, errOut = runCLIVars(t, map[string]string{"HOME": clean}, "run", "-m", "faux", "--script", script, "-C", t.TempDir(), "hi")
	if code != 0 || strings.Contains(errOut, noticeText) {
		t.Errorf("an honoured setup: exit %d, stderr:\n%s", code, errOut)
	}
}

// The line chat shows the notice once, before its first prompt.
func TestStartupNoticeLineChat(t *testing.T) {
	home := noticeHome(t)
	script := writeScript(t, t.TempDir(), `{"text": "ok"}`)
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	var out syncBuffer
	e := &env{stdin: stdinR, stdout: &out, stderr: &out, getenv: func(k string) string {
		return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}[k]
	}}
	done := make(chan int)
	go func() {
		done <- execute(context.Background(), e, []string{"chat", "-m", "faux", "--script", script, "-C", t.TempDir()})
	}()
	waitFor(t, &out, "› ")
	io.WriteString(stdinW, "/exit\n")
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, out.String())
		}
	case <-time.After(30 * time.Second):
		stdinW.Close()
		t.Fatalf("chat did not finish\n%s", out.String())
	}
	text := out.String()
	if strings.Count(text, noticeText) != 1 || strings.Index(text, noticeText) > strings.Index(text, "› ") || !strings.Contains(text, "statusLine") {
		t.Errorf("the notice is not shown once before the prompt:\n%s", text)
	}
}

// The terminal UI shows the notice in its transcript.
func TestStartupNoticeTUI(t *testing.T) {
	home := noticeHome(t)
	script := writeScript(t, t.TempDir(), `{"text": "ok"}`)
	s := startTmux(t, t.TempDir(), 200, 30, []string{"TERM=xterm-256color", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")},
		"--model", "faux", "--script", script)
	s.wait("Ask rein to do something")
	scr := s.wait("does not honour part")
	if strings.Count(scr, "does not honour part") != 1 || !strings.Contains(scr, "statusLine") {
		t.Errorf("screen:\n%s", scr)
	}
	s.keys("C-d")
	s.wait("[exit 0]")
}
