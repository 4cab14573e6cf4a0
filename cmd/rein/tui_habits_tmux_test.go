package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

// TestTUIInTmuxTerminalHabits: shift+tab cycles the permission mode
// shown in the status line; /status names the session; /clear starts a
// new conversation; /resume picks the old one from a list and shows it
// again; a first ctrl+c on an empty editor only warns, a second quits;
// leaving prints how to come back.
func TestTUIInTmuxTerminalHabits(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "first answer"}`+"\n"+`{"text": "second answer"}`+"\n")
	s := startTmux(t, dir, 100, 30, []string{"TERM=xterm-256color"}, "--model", "faux", "--script", script)
	s.wait("Ask rein to do something")
	s.wait("mode auto_read")
	s.text("remember teal")
	s.keys("Enter")
	s.wait("first answer")
	for _, mode := range []string{"auto_edit", "plan", "auto_read"} {
		s.keys("BTab")
		s.wait("mode " + mode)
	}
	s.text("/status")
	s.keys("Enter")
	scr := s.wait("tokens ")
	m := regexp.MustCompile(`session ([0-9a-f]{20,})`).FindStringSubmatch(scr)
	if m == nil || !strings.Contains(scr, "mode auto_read (default") {
		t.Fatalf("/status:\n%s", scr)
	}
	first := m[1]

	s.text("/clear")
	s.keys("Enter")
	scr = s.wait("new conversation: session ")
	if strings.Contains(scr, "first answer") || strings.Contains(scr, "session "+first[:8]+" ") {
		t.Fatalf("after /clear:\n%s", scr)
	}
	s.text("a new topic")
	s.keys("Enter")
	s.wait("second answer")

	s.text("/resume")
	s.keys("Enter")
	scr = s.wait("Resume a session")
	if !strings.Contains(scr, "1. "+first[:8]) || !strings.Contains(scr, "2 msg  remember teal") || strings.Contains(scr, " 2. ") {
		t.Fatalf("the list offers:\n%s", scr)
	}
	s.keys("Enter")
	scr = s.wait("resumed session " + first[:12])
	if !strings.Contains(scr, "first answer") || strings.Contains(scr, "second answer") {
		t.Fatalf("after /resume:\n%s", scr)
	}

	s.keys("C-c")
	scr = s.wait("press ctrl+c again to quit")
	if strings.Contains(scr, "[exit") {
		t.Fatalf("one ctrl+c quit:\n%s", scr)
	}
	s.keys("C-c")
	scr = s.wait("[exit 0]")
	if !strings.Contains(scr, "resume this session with: rein -r "+first[:12]+" (or rein -c for the latest)") {
		t.Fatalf("no way back after leaving:\n%s", scr)
	}
	infos, _ := session.List(session.DefaultDir(dir))
	if len(infos) != 2 {
		t.Fatalf("sessions: %+v", infos)
	}
}
