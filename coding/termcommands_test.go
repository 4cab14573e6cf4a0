package coding

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
)

// runLine runs the command line on a and fails the test on an error.
func runLine(t *testing.T, a *Agent, line string) string {
	t.Helper()
	c, args, ok, err := a.Command(line)
	if !ok || err != nil {
		t.Fatalf("%s: ok %v, err %v", line, ok, err)
	}
	out, err := c.Run(context.Background(), args)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return out
}

// /clear starts a new session with an empty conversation, running the
// SessionEnd and SessionStart hooks with Claude Code's reasons; the old
// session stays on disk and /resume brings it back, its conversation
// continuing from where it was.
func TestClearAndResume(t *testing.T) {
	e := newTestEnv(t)
	hooksLog := filepath.Join(t.TempDir(), "hooks.log")
	write(t, e.home, map[string]string{".claude/settings.json": `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "grep -o '\"source\":\"[a-z]*\"' >> ` + hooksLog + `"}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "grep -o '\"reason\":\"[a-z]*\"' >> ` + hooksLog + `"}]}]}}`})
	ws := t.TempDir()
	o := e.options(ws, faux.Text("first reply"), faux.Text("second reply"), faux.Text("third reply"))
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := o.Provider.(*faux.Provider)
	if _, err := a.Submit(context.Background(), "remember the word teal"); err != nil {
		t.Fatal(err)
	}
	first := a.Session().ID()
	out := runLine(t, a, "/clear")
	second := a.Session().ID()
	if second == first || !strings.Contains(out, ShortID(first)) || !strings.Contains(out, ShortID(second)) {
		t.Fatalf("/clear said %q; sessions %s → %s", out, first, second)
	}
	if n := len(a.Session().Context().Messages); n != 0 {
		t.Fatalf("after /clear the conversation holds %d messages", n)
	}
	if _, err := a.Submit(context.Background(), "what word?"); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if last := reqs[len(reqs)-1]; len(last.Messages) != 1 || last.Messages[0].Text() != "what word?" {
		t.Fatalf("after /clear the model got %d messages: %+v", len(last.Messages), last.Messages)
	}
	infos, err := session.List(session.DefaultDir(ws))
	if err != nil || len(infos) != 2 {
		t.Fatalf("sessions on disk: %d, %v; want the old and the new", len(infos), err)
	}

	if out := runLine(t, a, "/resume"); !strings.Contains(out, ShortID(first)) || !strings.Contains(out, ShortID(second)) {
		t.Fatalf("/resume without an id lists %q", out)
	}
	out = runLine(t, a, "/resume "+first[:8])
	if a.Session().ID() != first || !strings.Contains(out, "2 message(s)") {
		t.Fatalf("/resume %s said %q, session now %s", first[:8], out, a.Session().ID())
	}
	if _, err := a.Submit(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs = p.Requests()
	if last := reqs[len(reqs)-1]; len(last.Messages) != 3 || last.Messages[0].Text() != "remember the word teal" {
		t.Fatalf("after /resume the model got %+v", last.Messages)
	}
	// The session left by /resume was closed: another process could
	// open it now.
	s, err := session.Open(infos[0].Path, session.Options{})
	if infos[0].ID == first {
		s, err = session.Open(infos[1].Path, session.Options{})
	}
	if err != nil {
		t.Fatalf("the session left is still held: %v", err)
	}
	s.Close()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(hooksLog)
	want := `"source":"startup"` + "\n" + `"reason":"clear"` + "\n" + `"source":"clear"` + "\n" + `"reason":"other"` + "\n" + `"source":"resume"` + "\n" + `"reason":"other"` + "\n"
	if string(b) != want {
		t.Errorf("hooks saw\n%s\nwant\n%s", b, want)
	}
}

// Bad input for /resume: an unknown id, the current session, a busy
// agent; nothing changes.
func TestResumeErrors(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	o := e.options(ws, faux.Text("ok"))
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Submit(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	id := a.Session().ID()
	c, _, _, _ := a.Command("/resume")
	if _, err := c.Run(context.Background(), "zzzz"); err == nil || !strings.Contains(err.Error(), `no session "zzzz"`) {
		t.Errorf("/resume zzzz = %v", err)
	}
	if _, err := c.Run(context.Background(), id[:6]); err == nil || !strings.Contains(err.Error(), "is the current one") {
		t.Errorf("/resume of the current session = %v", err)
	}
	if a.Session().ID() != id {
		t.Errorf("a failed /resume moved the agent")
	}
	noLog := e.options(t.TempDir())
	noLog.NoSession = true
	b, err := Open(context.Background(), noLog)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, _, _, _ = b.Command("/clear")
	if _, err := c.Run(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "no session log") {
		t.Errorf("/clear without a log = %v", err)
	}
}

// /cost and /status report the session's tokens, cost, model, full
// session id, context fill and permission mode.
func TestCostAndStatus(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	o := e.options(ws, faux.Text("a reply of some length"))
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Submit(context.Background(), "count to three"); err != nil {
		t.Fatal(err)
	}
	u, replies := a.usage()
	if replies != 1 || u.Output == 0 {
		t.Fatalf("usage %+v over %d replies", u, replies)
	}
	cost := runLine(t, a, "/cost")
	if !strings.Contains(cost, "1 model reply") || !strings.Contains(cost, "cost $") || !strings.Contains(cost, "out") {
		t.Errorf("/cost = %q", cost)
	}
	st := runLine(t, a, "/status")
	for _, want := range []string{"model faux/", "mode " + string(a.PermissionMode()), "session " + a.Session().ID(), "context ", "cost $", a.PermissionMode().ClaudeName()} {
		if !strings.Contains(st, want) {
			t.Errorf("/status lacks %q:\n%s", want, st)
		}
	}
}

// /init sends a prompt asking for AGENTS.md, or for the improvement of
// the CLAUDE.md there is, with the user's notes.
func TestInit(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	o := e.options(ws, faux.Text("written"), faux.Text("improved"))
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, _, _, err := a.Command("/init")
	if err != nil || !c.Prompt {
		t.Fatalf("/init is %+v, %v; want a prompt command", c, err)
	}
	if _, err := a.Submit(context.Background(), "/init mention the Makefile"); err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"CLAUDE.md": "# old notes\n"})
	if _, err := a.Submit(context.Background(), "/init"); err != nil {
		t.Fatal(err)
	}
	reqs := o.Provider.(*faux.Provider).Requests()
	first := reqs[0].Messages[len(reqs[0].Messages)-1].Text()
	if !strings.Contains(first, "write AGENTS.md") || !strings.Contains(first, "test") || !strings.HasSuffix(first, "The user adds: mention the Makefile") {
		t.Errorf("the first /init sent %q", first)
	}
	second := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
	if !strings.Contains(second, "improve it") || !strings.Contains(second, "CLAUDE.md at the root") {
		t.Errorf("/init beside a CLAUDE.md sent %q", second)
	}
}

// /mcp says when there are no servers.
func TestMCPCommandEmpty(t *testing.T) {
	e := newTestEnv(t)
	a, err := Open(context.Background(), e.options(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if out := runLine(t, a, "/mcp"); !strings.Contains(out, "no MCP servers") {
		t.Errorf("/mcp = %q", out)
	}
}

// shift+tab's cycle: default → acceptEdits → plan in rein's names; a
// session started in ask or auto_all keeps its mode in the cycle; a mode
// set outside the cycle moves to its start.
func TestCycleMode(t *testing.T) {
	for _, tc := range []struct {
		start string
		want  []permission.Mode
	}{
		{"", []permission.Mode{permission.ModeAutoEdit, permission.ModePlan, permission.ModeAutoRead, permission.ModeAutoEdit}},
		{"ask", []permission.Mode{permission.ModeAutoRead, permission.ModeAutoEdit, permission.ModePlan, permission.ModeAsk}},
		{"auto_all", []permission.Mode{permission.ModeAutoRead, permission.ModeAutoEdit, permission.ModePlan, permission.ModeAutoAll}},
	} {
		e := newTestEnv(t)
		o := e.options(t.TempDir())
		o.Interactive, o.Terminal = true, true
		o.PermissionMode = tc.start
		a, err := Open(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		var got []permission.Mode
		for range tc.want {
			m, err := a.CycleMode()
			if err != nil {
				t.Fatal(err)
			}
			if a.PermissionMode() != m {
				t.Fatalf("CycleMode said %s, the gate is in %s", m, a.PermissionMode())
			}
			got = append(got, m)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("from %q: %v, want %v", tc.start, got, tc.want)
		}
		a.Close()
	}
}
