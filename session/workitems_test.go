package session

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/reinhq/rein/llm"
)

// TestWorkItemsFollowTheBranch: each branch of a session tree sees the
// work-item list as of its branch point plus its own changes, in the
// open session, after a reopen and in a fork.
func TestWorkItemsFollowTheBranch(t *testing.T) {
	s, err := Create(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	msg := func(text string) string {
		t.Helper()
		e, err := s.AppendMessage(llm.UserText(text))
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	items := func(title string) string {
		t.Helper()
		l := fmt.Sprintf(`[{"id":"1","title":%q,"status":"pending"}]`, title)
		if _, err := s.Append(Entry{Type: TypeWorkItems, Items: json.RawMessage(l)}); err != nil {
			t.Fatal(err)
		}
		return l
	}
	nav := func(id string) {
		t.Helper()
		if err := s.Navigate(id); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.WorkItems(); got != nil {
		t.Fatalf("no entry yet: %s", got)
	}
	a1 := msg("a1")
	atA1 := items("planned at a1")
	a2 := msg("a2")
	onA := items("branch a")
	nav(a1)
	if got := string(s.WorkItems()); got != atA1 {
		t.Fatalf("back at the branch point: %s, want %s", got, atA1)
	}
	b2 := msg("b2")
	if got := string(s.WorkItems()); got != atA1 {
		t.Fatalf("new branch before its own change: %s", got)
	}
	onB := items("branch b")
	nav(a2)
	if got := string(s.WorkItems()); got != onA {
		t.Fatalf("branch a sees %s, want its own %s", got, onA)
	}
	nav(b2)
	if got := string(s.WorkItems()); got != onB {
		t.Fatalf("branch b sees %s, want %s", got, onB)
	}
	nav("")
	if got := s.WorkItems(); got != nil {
		t.Fatalf("an empty path has no list: %s", got)
	}
	nav(a2)
	if got := string(s.WorkItemsAt(b2)); got != onB {
		t.Fatalf("WorkItemsAt(b2) = %s", got)
	}
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := string(s.WorkItems()); got != onA {
		t.Fatalf("reopened at a2: %s", got)
	}
	// A fork of branch b from a session whose leaf is on branch a
	// carries b's list.
	f, err := s.Fork(b2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := string(f.WorkItems()); got != onB {
		t.Fatalf("fork at b2: %s, want %s", got, onB)
	}
	g, err := s.Fork(a1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := string(g.WorkItems()); got != atA1 {
		t.Fatalf("fork at a1: %s, want %s", got, atA1)
	}
}
