package harness

import (
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

func TestSwitchStoreContinuesInTheFork(t *testing.T) {
	dir := t.TempDir()
	old, err := session.Create(session.Options{Dir: dir, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	f := newFixture(t, []faux.Reply{faux.Text("one"), faux.Text("two")}, func(o *Options) { o.Store = old })
	if _, err := f.prompt(t, "first"); err != nil {
		t.Fatal(err)
	}
	forked, err := old.Fork(old.Leaf(), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer forked.Close()
	if err := f.h.SwitchStore(nil); err == nil {
		t.Fatal("a nil store was accepted")
	}
	if err := f.h.SwitchStore(forked); err != nil {
		t.Fatal(err)
	}
	if f.h.Store() != Store(forked) {
		t.Fatal("Store() is not the fork")
	}
	if _, err := f.prompt(t, "second"); err != nil {
		t.Fatal(err)
	}
	users := func(s *session.Session) []string {
		var out []string
		for _, m := range s.Context().Messages {
			if m.Role == llm.RoleUser {
				out = append(out, m.Text())
			}
		}
		return out
	}
	if got := users(forked); len(got) != 2 || got[1] != "second" {
		t.Fatalf("the fork holds %q", got)
	}
	if got := users(old); len(got) != 1 {
		t.Fatalf("the old session holds %q", got)
	}
	// The model request of the second prompt carried the first exchange.
	reqs := f.p.Requests()
	if n := len(reqs[len(reqs)-1].Messages); n != 3 {
		t.Fatalf("the second request had %d messages", n)
	}
}
