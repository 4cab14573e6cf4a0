package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// quitWindow is how soon a second ctrl+c on an empty editor must follow
// the first to quit.
const quitWindow = 2 * time.Second

// quitHint is the status line's note after a first ctrl+c.
const quitHint = "press ctrl+c again to quit"

// pickLimit bounds the sessions /resume offers in its list.
const pickLimit = 9

type switchedMsg struct {
	sw  Switched
	err error
	cmd string
}

type sessionsMsg struct {
	list []SessionInfo
	err  error
}

// quitExpiredMsg ends the window a first ctrl+c opened at armed.
type quitExpiredMsg struct{ armed time.Time }

// sessionCommands are /clear and /resume: a new conversation, another
// session. A backend that cannot switch sessions gets a /clear that only
// clears the screen.
func sessionCommands() []Command {
	return []Command{
		{Name: "clear", Help: "start a new conversation in a new session (the old one stays resumable)", Idle: true, UI: func(a *App, _ string) tea.Cmd {
			sw, ok := a.b.(SessionSwitcher)
			if !ok {
				a.tr.Blocks = nil
				a.tr.Notice("screen cleared (the session keeps everything)")
				return nil
			}
			ctx := a.ctx
			return func() tea.Msg {
				s, err := sw.NewSession(ctx)
				return switchedMsg{sw: s, err: err, cmd: "clear"}
			}
		}},
		{Name: "resume", Args: "[ID]", Help: "continue another session of this workspace: pick one from a list, or name it", Idle: true, UI: func(a *App, args string) tea.Cmd {
			sw, ok := a.b.(SessionSwitcher)
			if !ok {
				a.tr.Error("/resume: this agent cannot switch sessions")
				return nil
			}
			if args != "" {
				return a.resume(sw, args)
			}
			return func() tea.Msg {
				l, err := sw.Sessions()
				return sessionsMsg{list: l, err: err}
			}
		}},
	}
}

// resume continues in the session ref names.
func (a *App) resume(sw SessionSwitcher, ref string) tea.Cmd {
	ctx := a.ctx
	return func() tea.Msg {
		s, err := sw.Resume(ctx, ref)
		return switchedMsg{sw: s, err: err, cmd: "resume"}
	}
}

// switched shows the conversation of the session the backend moved to.
func (a *App) switched(m switchedMsg) {
	if m.err != nil {
		a.tr.Error("/" + m.cmd + ": " + m.err.Error())
		return
	}
	a.tr = Transcript{}
	a.scroll = 0
	a.tr.Load(m.sw.Messages)
	a.tr.Notice(m.sw.Text)
}

// pickSession opens the list of sessions /resume offers; the one chosen
// is resumed.
func (a *App) pickSession(m sessionsMsg) {
	if m.err != nil {
		a.tr.Error("/resume: " + m.err.Error())
		return
	}
	current := a.b.Status().Session
	var ids, lines []string
	for _, in := range m.list {
		if in.ID == current {
			continue
		}
		if len(ids) == pickLimit {
			break
		}
		first := oneLine(in.First)
		if first == "" {
			first = "(no prompt)"
		}
		ids = append(ids, in.ID)
		lines = append(lines, fmt.Sprintf("%s  %s  %d msg  %s", in.ID[:min(len(in.ID), 8)], in.Modified.Local().Format("01-02 15:04"), in.Messages, truncate(first, 60)))
	}
	if len(ids) == 0 {
		a.tr.Notice("no other session of this workspace to resume")
		return
	}
	detail := "newest first"
	if older := len(m.list) - len(ids) - boolInt(containsID(m.list, current)); older > 0 {
		detail += fmt.Sprintf("; /resume ID reaches the %d older one(s)", older)
	}
	sw := a.b.(SessionSwitcher)
	a.dialogs = append(a.dialogs, &Approval{Title: "Resume a session", Detail: detail, Choices: lines, ReasonFor: -1,
		Reply: func(i int) {
			if i >= 0 {
				a.pending = a.resume(sw, ids[i])
			}
		}})
}

func containsID(l []SessionInfo, id string) bool {
	for _, in := range l {
		if in.ID == id {
			return true
		}
	}
	return false
}

// interrupt handles ctrl+c: it stops a running turn, clears a typed
// line, and on an empty editor warns first and quits on a second press
// within quitWindow.
func (a *App) interrupt() tea.Cmd {
	switch {
	case a.busy:
		return a.abort()
	case a.editor.Value() != "":
		a.editor.Reset()
		return nil
	case !a.quitArmed.IsZero() && a.now().Sub(a.quitArmed) < quitWindow:
		return a.quit()
	}
	armed := a.now()
	a.quitArmed = armed
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitExpiredMsg{armed} })
}

// cycleMode moves the backend to its next permission mode (shift+tab).
func (a *App) cycleMode() {
	c, ok := a.b.(ModeCycler)
	if !ok {
		return
	}
	if _, err := c.CycleMode(); err != nil {
		a.tr.Error("mode: " + err.Error())
	}
}

// modeLabel is the status line's form of a permission mode.
func modeLabel(m string) string {
	if m == "" {
		return ""
	}
	return "mode " + m
}
