package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

func thinkingReply(thinking, text string) faux.Reply {
	return faux.Reply{Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Thinking(thinking, ""), llm.Text(text)}}}
}

func TestStreamsMarkdownWithFoldedThinking(t *testing.T) {
	d := newDriver(t, Options{}, thinkingReply("first I think\nthen I decide", "Here is **bold** and a list:\n\n- one\n- two\n\n```go\nx := 1\n```"))
	d.send("hello")
	d.until("the reply", d.idle)
	s := d.screen()
	for _, want := range []string{"› hello", "▸ thinking · 2 lines", "Here is bold", "• one", "x := 1", "faux/faux", "↑"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "**bold**") || strings.Contains(s, "then I decide") {
		t.Errorf("markdown not rendered or thinking not folded:\n%s", s)
	}
	d.key('t', tea.ModCtrl)
	if !d.shows("then I decide") {
		t.Errorf("ctrl+t did not unfold the thinking:\n%s", d.screen())
	}
}

func TestToolCallsExpandWithDiff(t *testing.T) {
	dir := t.TempDir()
	_ = dir
	d := newDriver(t, Options{},
		faux.Calls("Editing.", faux.Call("edit", `{"path": "a.txt", "edits": [{"old_text": "hello", "new_text": "hello world"}]}`)),
		faux.Text("Done."))
	d.send("edit it")
	d.until("the run", d.idle)
	s := d.screen()
	if !strings.Contains(s, "● edit a.txt (1 edit) ✗") {
		// No tool named edit is registered: the result is an error, which
		// is still a result the UI shows.
		t.Errorf("compact line missing:\n%s", s)
	}
	if strings.Contains(s, "+hello world") {
		t.Errorf("arguments shown before expanding:\n%s", s)
	}
	d.key('o', tea.ModCtrl)
	s = d.screen()
	if !strings.Contains(s, "-hello") || !strings.Contains(s, "+hello world") || !strings.Contains(s, "── output") {
		t.Errorf("ctrl+o did not expand the call to a diff and its output:\n%s", s)
	}
}

func TestSteerWhileWorkingAndEscStops(t *testing.T) {
	d := newDriver(t, Options{}, faux.Text("first answer"), faux.Text("after steering"))
	d.g.open = make(chan struct{})
	d.send("start")
	d.until("busy", func() bool { return d.app.busy })
	d.send("also do this")
	if !d.shows("steering: delivered") {
		t.Fatalf("no steering notice:\n%s", d.screen())
	}
	close(d.g.open)
	d.until("the run", d.idle)
	reqs := d.fp.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text(), "also do this") {
		t.Fatalf("the steering message did not reach the model: %d requests", len(reqs))
	}
	// Esc stops a running turn.
	d.fp.Push(faux.Text("never shown"))
	d.g.mu.Lock()
	d.g.open = make(chan struct{})
	d.g.mu.Unlock()
	d.send("long task")
	d.until("busy", func() bool { return d.app.busy })
	d.key(tea.KeyEscape, 0)
	d.until("the abort", d.idle)
	if !d.shows("aborted") || d.shows("never shown") {
		t.Fatalf("esc did not stop the turn:\n%s", d.screen())
	}
	close(d.g.open)
}

func TestFollowupCommand(t *testing.T) {
	d := newDriver(t, Options{}, faux.Text("one"), faux.Text("two"))
	d.g.open = make(chan struct{})
	d.send("go")
	d.until("busy", func() bool { return d.app.busy })
	d.send("/followup and then this")
	close(d.g.open)
	d.until("the run", d.idle)
	if len(d.fp.Requests()) != 2 || !d.shows("two") {
		t.Fatalf("follow-up not delivered:\n%s", d.screen())
	}
	// When idle, /followup starts a run with the text, once.
	d.fp.Push(faux.Text("three"), faux.Text("four"))
	d.send("/followup start now")
	d.until("the run", func() bool { return d.idle() && d.shows("three") })
	if n := len(d.fp.Requests()); n != 3 || d.shows("four") {
		t.Fatalf("%d requests after an idle /followup:\n%s", n, d.screen())
	}
}

func TestHistoryAndMultiline(t *testing.T) {
	d := newDriver(t, Options{History: []string{"older prompt"}}, faux.Text("a"), faux.Text("b"))
	d.typ("line one")
	d.key('j', tea.ModCtrl)
	d.typ("line two")
	d.enter()
	d.until("the run", d.idle)
	if got := d.b.prompts[0]; got != "line one\nline two" {
		t.Fatalf("multi-line prompt = %q", got)
	}
	d.typ("draft")
	d.key(tea.KeyUp, 0)
	if v := d.app.editor.Value(); v != "line one\nline two" {
		t.Fatalf("up: %q", v)
	}
	d.key(tea.KeyUp, 0)
	d.key(tea.KeyUp, 0)
	if v := d.app.editor.Value(); v != "older prompt" {
		t.Fatalf("up twice: %q", v)
	}
	d.key(tea.KeyDown, 0)
	d.key(tea.KeyDown, 0)
	if v := d.app.editor.Value(); v != "draft" {
		t.Fatalf("down back to the draft: %q", v)
	}
}

func TestHugePasteIsSentWhole(t *testing.T) {
	d := newDriver(t, Options{}, faux.Text("got it"))
	big := strings.Repeat("0123456789abcdef\n", 1<<16) // 1 MiB
	start := time.Now()
	d.typ("summarise: ")
	d.update(tea.PasteMsg{Content: big})
	if !strings.Contains(d.app.editor.Value(), "[paste #1: 1114112 bytes") {
		t.Fatalf("no placeholder: %q", truncate(d.app.editor.Value(), 100))
	}
	d.enter()
	d.until("the run", d.idle)
	if got := d.b.prompts[0]; got != strings.TrimSpace("summarise: "+big) {
		t.Fatalf("the paste was not sent whole: %d bytes", len(got))
	}
	if !d.shows("more line") {
		t.Fatalf("the user block is not capped:\n%s", d.screen())
	}
	t.Logf("1 MiB paste to answered: %s", time.Since(start))
}

func TestNarrowTerminalAndWideCharacters(t *testing.T) {
	d := newDriver(t, Options{}, faux.Calls("看看文件 🙂 emoji", faux.Call("read", `{"path": "很长的文件名称很长的文件名称.txt"}`)), faux.Text("答案是：你好，世界！这是一个很长的句子，需要换行显示。"))
	d.update(tea.WindowSizeMsg{Width: 20, Height: 12})
	d.send("文件里有什么？")
	d.until("the run", d.idle)
	d.key('o', tea.ModCtrl)
	view := d.app.View().Content
	for i, l := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(l); w > 20 {
			t.Errorf("line %d is %d cells wide: %q", i, w, ansi.Strip(l))
		}
	}
	if !d.shows("你好") {
		t.Errorf("the reply is missing:\n%s", d.screen())
	}
	if n := len(strings.Split(view, "\n")); n > 12 {
		t.Errorf("%d lines on a 12-line screen", n)
	}
	// Tiny and degenerate sizes do not crash.
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {0, 0}} {
		d.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		_ = d.screen()
	}
}

func TestBrokenMarkdown(t *testing.T) {
	d := newDriver(t, Options{}, faux.Text("```go\nunclosed fence **bold [link](http://x\n| a | b\n|--\n<div><span>"))
	d.send("x")
	d.until("the run", d.idle)
	if !d.shows("unclosed fence") {
		t.Fatalf("broken markdown lost:\n%s", d.screen())
	}
}

func TestFailureMidStream(t *testing.T) {
	d := newDriver(t, Options{}, faux.Calls("Working on it", faux.Call("ls", `{}`)), faux.Fail(&llm.Error{Code: llm.CodeServerError, Message: "stream cut by the server"}))
	d.send("go")
	d.until("the run", d.idle)
	s := d.screen()
	if !strings.Contains(s, "Working on it") || strings.Count(s, "stream cut by the server") != 1 {
		t.Fatalf("want the partial reply and the error once:\n%s", s)
	}
	// The UI keeps working.
	d.fp.Push(faux.Text("recovered"))
	d.send("again")
	d.until("the run", d.idle)
	if !d.shows("recovered") {
		t.Fatalf("no recovery:\n%s", d.screen())
	}
}

func TestNoColor(t *testing.T) {
	d := newDriver(t, Options{Plain: true}, thinkingReply("hmm", "# Title\n\n**bold** `code`"))
	d.send("x")
	d.until("the run", d.idle)
	d.key(tea.KeyEnter, 0)
	if v := d.app.View().Content; strings.Contains(v, "\x1b[3") || strings.Contains(v, "\x1b[9") || strings.Contains(v, ";5;") {
		t.Fatalf("colour codes with NO_COLOR: %q", v)
	}
}

func TestSlashCommands(t *testing.T) {
	var got string
	d := newDriver(t, Options{Commands: []Command{{Name: "echo", Args: "TEXT", Help: "say it", Run: func(_ context.Context, args string) (string, error) {
		got = args
		return "echoed " + args, nil
	}}, {Name: "broken", Help: "fails", Run: func(context.Context, string) (string, error) { return "", errors.New("it broke") }}}})
	d.send("/help")
	if !d.shows("/echo TEXT — say it") || !d.shows("/tree") || !d.shows("/followup TEXT") {
		t.Fatalf("/help:\n%s", d.screen())
	}
	d.send("/echo hi there")
	d.until("the command", func() bool { return d.shows("echoed hi there") })
	if got != "hi there" {
		t.Fatalf("args %q", got)
	}
	d.send("/bro")
	d.until("the error", func() bool { return d.shows("/broken: it broke") })
	d.send("/nosuch")
	if !d.shows("unknown command /nosuch") {
		t.Fatalf("unknown command:\n%s", d.screen())
	}
	d.send("/q")
	if !d.shows("could be /quit") && !d.app.quitting {
		t.Fatalf("/q:\n%s", d.screen())
	}
}

func TestTreeBrowser(t *testing.T) {
	d := newDriver(t, Options{})
	d.b.tree = []TreeEntry{
		{ID: "u1", Role: "user", Text: "first"},
		{ID: "a1", Parent: "u1", Role: "assistant", Text: "answer one"},
		{ID: "u2", Parent: "a1", Role: "user", Text: "second"},
		{ID: "a2", Parent: "u2", Role: "assistant", Text: "answer two"},
		{ID: "u3", Parent: "a1", Role: "user", Text: "other branch"},
	}
	d.send("/tree")
	d.until("the tree", func() bool { return d.app.tree != nil })
	s := d.screen()
	if !strings.Contains(s, "Session tree · 5 entries") || !strings.Contains(s, "◆ user: other branch") || !strings.Contains(s, "  user: second") {
		t.Fatalf("tree:\n%s", s)
	}
	// Label the selected entry (the current one).
	d.typ("l")
	d.send("checkpoint")
	d.until("the tree again", func() bool { return d.app.tree != nil && !d.app.tree.labeling })
	if d.b.labels["u3"] != "checkpoint" {
		t.Fatalf("labels %v", d.b.labels)
	}
	// Go to "answer two": up once from the last row.
	d.key(tea.KeyUp, 0)
	if e, _ := d.app.tree.selected(); e.ID != "a2" {
		t.Fatalf("selected %s", e.ID)
	}
	d.enter()
	d.until("the move", func() bool { return len(d.b.nav()) == 1 && d.shows("moved in the session tree") })
	if d.b.nav()[0] != "a2" {
		t.Fatalf("navigated to %v", d.b.nav())
	}
	// Going to a user message puts it in the editor and goes to its parent.
	d.send("/tree")
	d.until("the tree", func() bool { return d.app.tree != nil })
	d.key(tea.KeyUp, 0)
	d.key(tea.KeyUp, 0)
	d.enter()
	d.until("the move", func() bool { return len(d.b.nav()) == 2 && d.app.editor.Value() != "" })
	if d.b.nav()[1] != "a1" || d.app.editor.Value() != "second" {
		t.Fatalf("navigated to %v, editor %q", d.b.nav(), d.app.editor.Value())
	}
	d.app.editor.Reset()
	d.send("/tree")
	d.until("the tree", func() bool { return d.app.tree != nil })
	d.typ("f")
	d.until("the fork", func() bool { return d.shows("forked to new-u3") })
}

func TestApprovalDialog(t *testing.T) {
	d := newDriver(t, Options{})
	choice := -2
	d.update(OpenDialogMsg{Dialog: &Approval{Title: "Allow bash?", Detail: "rm -rf build/", Reply: func(c int) { choice = c }}})
	if !d.shows("Allow bash?") || !d.shows("allow always") {
		t.Fatalf("dialog:\n%s", d.screen())
	}
	d.key(tea.KeyDown, 0)
	d.key(tea.KeyDown, 0)
	d.enter()
	if choice != 2 || d.shows("Allow bash?") {
		t.Fatalf("choice %d", choice)
	}
}

// A question that opens while the user types takes none of it: the
// letters, digits and the enter go to the editor, and the prompt is
// still there, unsent, after the answer.
func TestApprovalDialogKeepsTypedPrompt(t *testing.T) {
	d := newDriver(t, Options{})
	choice := -2
	d.update(OpenDialogMsg{Dialog: &Approval{Title: "Allow bash?", Detail: "make", Reply: func(c int) { choice = c }}})
	d.typ("fix issue 12")
	d.enter()
	if choice != -2 || !d.shows("Allow bash?") {
		t.Fatalf("typing answered the question: choice %d", choice)
	}
	if got := d.app.editor.Value(); got != "fix issue 12" {
		t.Fatalf("editor holds %q", got)
	}
	d.key(tea.KeyDown, 0)
	d.key(tea.KeyDown, 0)
	d.enter()
	if choice != 2 || d.app.editor.Value() != "fix issue 12" {
		t.Fatalf("choice %d, editor %q", choice, d.app.editor.Value())
	}
}

// Deny takes an optional reason.
func TestApprovalDialogDenyReason(t *testing.T) {
	d := newDriver(t, Options{})
	choice, reason := -2, "unset"
	d.update(OpenDialogMsg{Dialog: &Approval{Title: "Allow bash?", Detail: "psql prod", ReasonFor: 2,
		ReplyReason: func(c int, r string) { choice, reason = c, r }}})
	d.typ("3")
	if !d.shows("reason (optional)") {
		t.Fatalf("no reason field:\n%s", d.screen())
	}
	d.typ("use the staging db")
	d.enter()
	if choice != 2 || reason != "use the staging db" || d.shows("Allow bash?") {
		t.Fatalf("choice %d reason %q", choice, reason)
	}
	if d.app.editor.Value() != "" {
		t.Fatalf("the reason leaked into the editor: %q", d.app.editor.Value())
	}
	// Allow once asks for no reason.
	d.update(OpenDialogMsg{Dialog: &Approval{Title: "Again?", ReasonFor: 2, ReplyReason: func(c int, r string) { choice, reason = c, r }}})
	d.typ("1")
	if choice != 0 || reason != "" {
		t.Fatalf("choice %d reason %q", choice, reason)
	}
}

func TestResumedConversationAndCtrlC(t *testing.T) {
	d := newDriver(t, Options{Conversation: []llm.Message{llm.UserText("old question"), {Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("old answer")}}}})
	if !d.shows("old question") || !d.shows("old answer") || !d.shows("resumed: 2 messages") {
		t.Fatalf("resume:\n%s", d.screen())
	}
	d.typ("abc")
	d.key('c', tea.ModCtrl)
	if d.app.editor.Value() != "" || d.app.quitting {
		t.Fatal("ctrl+c with text should clear the editor")
	}
	d.key('c', tea.ModCtrl)
	if d.app.quitting || !d.shows(quitHint) {
		t.Fatalf("a first ctrl+c on an empty idle editor should warn:\n%s", d.screen())
	}
	d.key('c', tea.ModCtrl)
	if !d.app.quitting {
		t.Fatal("a second ctrl+c on an empty idle editor should quit")
	}
}

func TestSubagentsLine(t *testing.T) {
	d := newDriver(t, Options{})
	d.update(SubagentsMsg{{ID: "7f3a9c0e5b2d", Agent: "explore", State: "running", Description: "find the pager"}, {ID: "1b2c3d4e", Agent: "general", State: "queued"}})
	if !d.shows("agents: explore 7f3a9c0e running (find the pager) · general 1b2c3d4e queued") {
		t.Fatalf("screen:\n%s", d.screen())
	}
	d.update(SubagentsMsg{})
	if d.shows("agents:") {
		t.Fatalf("the line stayed:\n%s", d.screen())
	}
}
