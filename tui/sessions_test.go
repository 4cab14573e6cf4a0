package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// switchBackend is a testBackend that switches sessions and cycles
// permission modes.
type switchBackend struct {
	*testBackend
	mu       sync.Mutex
	sessions map[string][]llm.Message
	resumed  []string
	mode     string
	modes    []string
}

func (b *switchBackend) NewSession(context.Context) (Switched, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.session()
	b.setSession("fresh-session")
	return Switched{ID: "fresh-session", Old: old, Text: "new conversation: session fresh-se"}, nil
}

func (b *switchBackend) Resume(_ context.Context, ref string) (Switched, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resumed = append(b.resumed, ref)
	for id, msgs := range b.sessions {
		if strings.HasPrefix(id, ref) {
			old := b.session()
			b.setSession(id)
			return Switched{ID: id, Old: old, Messages: msgs, Text: "resumed session " + id}, nil
		}
	}
	return Switched{}, errors.New("no session " + ref)
}

func (b *switchBackend) Sessions() ([]SessionInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []SessionInfo
	for _, id := range []string{"current-session", "bbbb2222", "aaaa1111"} {
		msgs := b.sessions[id]
		first := ""
		if len(msgs) > 0 {
			first = msgs[0].Text()
		}
		out = append(out, SessionInfo{ID: id, Modified: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Messages: len(msgs), First: first})
	}
	return out, nil
}

func (b *switchBackend) session() string {
	b.testBackend.mu.Lock()
	defer b.testBackend.mu.Unlock()
	return b.testBackend.session
}

func (b *switchBackend) setSession(id string) {
	b.testBackend.mu.Lock()
	b.testBackend.session = id
	b.testBackend.mu.Unlock()
}

func (b *switchBackend) CycleMode() (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, m := range b.modes {
		if m == b.mode {
			b.mode = b.modes[(i+1)%len(b.modes)]
			return b.mode, nil
		}
	}
	return "", errors.New("mode outside the cycle")
}

func (b *switchBackend) Status() Status {
	s := b.testBackend.Status()
	b.mu.Lock()
	s.Mode = b.mode
	b.mu.Unlock()
	return s
}

// newSwitchDriver is a driver over a switchBackend in session
// current-session, with two other sessions on disk.
func newSwitchDriver(t *testing.T, replies ...faux.Reply) (*driver, *switchBackend) {
	d := newDriver(t, Options{}, replies...)
	d.b.session = "current-session"
	sb := &switchBackend{testBackend: d.b, mode: "auto_read", modes: []string{"auto_read", "auto_edit", "plan"}, sessions: map[string][]llm.Message{
		"aaaa1111": {llm.UserText("older question"), {Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("older answer")}}},
		"bbbb2222": {llm.UserText("newer question")},
	}}
	d.app.b = sb
	return d, sb
}

// /clear moves to a new session and empties the screen and the usage
// counters; the status line names the new session.
func TestClearStartsNewConversation(t *testing.T) {
	d, _ := newSwitchDriver(t, faux.Text("first answer"))
	d.send("hello")
	d.until("the run", func() bool { return d.idle() && d.shows("first answer") })
	d.send("/clear")
	d.until("the new session", func() bool { return d.shows("new conversation: session fresh-se") })
	if d.shows("first answer") || d.shows("hello") || !d.shows("session fresh-se") || d.app.tr.Usage.Output != 0 {
		t.Fatalf("after /clear:\n%s", d.screen())
	}
}

// A backend that cannot switch sessions gets the old /clear: the screen
// only.
func TestClearWithoutSessions(t *testing.T) {
	d := newDriver(t, Options{}, faux.Text("first answer"))
	d.send("hello")
	d.until("the run", func() bool { return d.idle() && d.shows("first answer") })
	d.send("/clear")
	if d.shows("first answer") || !d.shows("screen cleared") {
		t.Fatalf("after /clear:\n%s", d.screen())
	}
	d.send("/resume x")
	if !d.shows("cannot switch sessions") {
		t.Fatalf("/resume on a backend without sessions:\n%s", d.screen())
	}
}

// /resume lists the other sessions, newest first; the one picked is
// resumed and its conversation shown. /resume ID resumes at once; an
// unknown one is an error on screen.
func TestResumePicker(t *testing.T) {
	d, sb := newSwitchDriver(t)
	d.send("/resume")
	d.until("the list", func() bool { return len(d.app.dialogs) > 0 })
	scr := d.screen()
	if strings.Contains(scr, ". current") || !strings.Contains(scr, "Resume a session") || strings.Index(scr, "bbbb2222") > strings.Index(scr, "aaaa1111") || !strings.Contains(scr, "older question") {
		t.Fatalf("the list:\n%s", scr)
	}
	d.key(tea.KeyDown, 0)
	d.enter()
	d.until("the resume", func() bool { return d.shows("resumed session aaaa1111") })
	if !d.shows("older answer") || !d.shows("session aaaa1111") {
		t.Fatalf("after picking:\n%s", d.screen())
	}
	d.send("/resume bbbb")
	d.until("the resume", func() bool { return d.shows("resumed session bbbb2222") })
	if d.shows("older answer") || !d.shows("newer question") {
		t.Fatalf("after /resume bbbb:\n%s", d.screen())
	}
	d.send("/resume zzz")
	d.until("the error", func() bool { return d.shows("/resume: no session zzz") })
	if got := sb.resumed; len(got) != 3 || got[0] != "aaaa1111" || got[1] != "bbbb" {
		t.Fatalf("resumed %q", got)
	}
	// esc dismisses the list; nothing is resumed.
	d.send("/resume")
	d.until("the list", func() bool { return len(d.app.dialogs) > 0 })
	d.key(tea.KeyEscape, 0)
	if len(d.app.dialogs) != 0 || len(sb.resumed) != 3 {
		t.Fatalf("esc on the list: %d dialogs, resumed %q", len(d.app.dialogs), sb.resumed)
	}
}

// shift+tab cycles the permission mode; the status line shows it.
func TestShiftTabCyclesMode(t *testing.T) {
	d, sb := newSwitchDriver(t)
	if !d.shows("mode auto_read") {
		t.Fatalf("no mode in the status line:\n%s", d.screen())
	}
	for _, want := range []string{"auto_edit", "plan", "auto_read"} {
		d.key(tea.KeyTab, tea.ModShift)
		if !d.shows("mode " + want) {
			t.Fatalf("after shift+tab, want mode %s:\n%s", want, d.screen())
		}
	}
	sb.mode = "ask"
	d.key(tea.KeyTab, tea.ModShift)
	if !d.shows("mode: mode outside the cycle") {
		t.Fatalf("a failed cycle is not shown:\n%s", d.screen())
	}
}

// A first ctrl+c on an empty editor warns; a second within the window
// quits; one after the window warns again, as does one after other
// keys; the warning goes when its window ends.
func TestCtrlCTwiceToQuit(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	d := newDriver(t, Options{Now: clock})
	ctrlC := func() { d.key('c', tea.ModCtrl) }
	ctrlC()
	if d.app.quitting || !d.shows(quitHint) {
		t.Fatalf("first ctrl+c:\n%s", d.screen())
	}
	armed := d.app.quitArmed
	advance(quitWindow + time.Millisecond)
	ctrlC()
	if d.app.quitting || !d.shows(quitHint) {
		t.Fatal("a ctrl+c after the window quit")
	}
	// The first window's end does not end the second's warning.
	d.update(quitExpiredMsg{armed})
	if !d.shows(quitHint) {
		t.Fatalf("an old window's end cleared the warning:\n%s", d.screen())
	}
	d.update(quitExpiredMsg{d.app.quitArmed})
	if d.shows(quitHint) {
		t.Fatalf("the warning outlived its window:\n%s", d.screen())
	}
	ctrlC()
	d.typ("x")
	d.key(tea.KeyBackspace, 0)
	ctrlC()
	if d.app.quitting {
		t.Fatal("ctrl+c, typing, ctrl+c quit")
	}
	advance(quitWindow / 2)
	ctrlC()
	if !d.app.quitting {
		t.Fatal("a second ctrl+c within the window did not quit")
	}
}

// ctrl+c while a turn runs stops it and does not quit.
func TestCtrlCAbortsTurn(t *testing.T) {
	d := newDriver(t, Options{}, faux.Text("never shown"))
	d.g.open = make(chan struct{})
	d.send("work")
	d.until("the run", func() bool { return d.app.busy })
	d.key('c', tea.ModCtrl)
	d.until("the stop", d.idle)
	if d.app.quitting || d.shows("never shown") {
		t.Fatalf("ctrl+c during a turn:\n%s", d.screen())
	}
}
