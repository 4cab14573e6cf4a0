package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/llm/faux"
)

func TestForkMovesToTheNewSession(t *testing.T) {
	d := newDriver(t, Options{}, faux.Text("first answer"), faux.Text("second answer"))
	d.b.session = "old-session"
	d.send("hello")
	d.until("the run", func() bool { return d.idle() && d.shows("first answer") })
	if !d.shows("session old-sess") {
		t.Fatalf("status line without the session:\n%s", d.screen())
	}
	// /fork forks at the leaf: the conversation stays on screen.
	d.send("/fork")
	d.until("the fork", func() bool { return d.shows("forked to new-; the old session is old-session") })
	if !d.shows("first answer") || !d.shows("session new-") || d.shows("path to") {
		t.Fatalf("after /fork:\n%s", d.screen())
	}
	if got := d.b.forkedAt; len(got) != 1 || got[0] != "" {
		t.Fatalf("forked at %q", got)
	}
	d.send("more")
	d.until("the run", func() bool { return d.idle() && d.shows("second answer") })
	if got := d.b.prompts; len(got) != 2 || got[1] != "more" {
		t.Fatalf("prompts %q", got)
	}
	// f in the tree on an earlier entry forks there and shows its path.
	d.send("/tree")
	d.until("the tree", func() bool { return d.app.tree != nil })
	d.key(tea.KeyUp, 0)
	d.typ("f")
	d.until("the fork", func() bool { return d.shows("forked to new-u1; the old session is new-") })
	if !d.shows("› path to u1") || d.shows("first answer") || !d.shows("session new-u1") {
		t.Fatalf("after f on an earlier entry:\n%s", d.screen())
	}
}

func TestForkThatCannotMove(t *testing.T) {
	d := newDriver(t, Options{})
	d.b.session, d.b.noSwitch = "old-session", true
	d.send("/fork")
	d.until("the fork", func() bool {
		return d.shows("forked to new-, but this UI stays on old-session: this backend cannot move")
	})
	if !d.shows("session old-sess") {
		t.Fatalf("the status line moved:\n%s", d.screen())
	}
}
