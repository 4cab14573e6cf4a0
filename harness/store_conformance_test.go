package harness

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// storeMakers are the Store implementations the conformance suite runs
// on: the in-memory store and a session file.
var storeMakers = map[string]func(t *testing.T) Store{
	"memory": func(t *testing.T) Store { return NewMemoryStore(nil) },
	"file": func(t *testing.T) Store {
		s, err := session.Create(session.Options{Cwd: t.TempDir(), Dir: filepath.Join(t.TempDir(), "sessions")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	},
}

// TestStoreConformance holds every Store to the contract the harness
// relies on: Append fills ID, Parent and Timestamp; tree entries move the
// leaf, a leaf entry moves it to its Target; Context follows the path
// from the root to the leaf; concurrent appends all land, with distinct
// IDs.
func TestStoreConformance(t *testing.T) {
	for name, mk := range storeMakers {
		t.Run(name, func(t *testing.T) {
			t.Run("empty", func(t *testing.T) {
				s := mk(t)
				if s.Leaf() != "" || len(s.Context().Messages) != 0 {
					t.Fatalf("a new store has leaf %q and %d messages", s.Leaf(), len(s.Context().Messages))
				}
			})
			t.Run("append fills and moves the leaf", func(t *testing.T) {
				s := mk(t)
				a := appendText(t, s, "one")
				if a.ID == "" || a.Parent != "" || a.Timestamp.IsZero() || s.Leaf() != a.ID {
					t.Fatalf("first entry %+v, leaf %q", a, s.Leaf())
				}
				b := appendText(t, s, "two")
				if b.Parent != a.ID || b.ID == a.ID || s.Leaf() != b.ID {
					t.Fatalf("second entry %+v after %s, leaf %q", b, a.ID, s.Leaf())
				}
				ctx := s.Context()
				if diff := cmp.Diff([]string{"one", "two"}, texts(ctx.Messages)); diff != "" || ctx.Leaf != b.ID {
					t.Fatalf("context at %q (-want +got):\n%s", ctx.Leaf, diff)
				}
				if diff := cmp.Diff([]string{a.ID, b.ID}, ctx.EntryIDs); diff != "" {
					t.Fatalf("entry ids (-want +got):\n%s", diff)
				}
			})
			t.Run("branches", func(t *testing.T) {
				s := mk(t)
				a := appendText(t, s, "root")
				appendText(t, s, "old branch")
				if _, err := s.Append(session.Entry{Type: session.TypeLeaf, Target: a.ID}); err != nil {
					t.Fatal(err)
				}
				if s.Leaf() != a.ID {
					t.Fatalf("a leaf entry to %s left the leaf at %q", a.ID, s.Leaf())
				}
				c := appendText(t, s, "new branch")
				if c.Parent != a.ID {
					t.Fatalf("the new branch hangs on %q, want %q", c.Parent, a.ID)
				}
				if diff := cmp.Diff([]string{"root", "new branch"}, texts(s.Context().Messages)); diff != "" {
					t.Fatalf("context (-want +got):\n%s", diff)
				}
				if _, err := s.Append(session.Entry{Type: session.TypeLeaf}); err != nil {
					t.Fatal(err)
				}
				if s.Leaf() != "" || len(s.Context().Messages) != 0 {
					t.Fatalf("a leaf entry to the start left leaf %q and %d messages", s.Leaf(), len(s.Context().Messages))
				}
			})
			t.Run("concurrent appends", func(t *testing.T) {
				s := mk(t)
				const n = 20
				var wg sync.WaitGroup
				ids := make([]string, n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						e, err := s.Append(session.Entry{Type: session.TypeMessage, Message: ptr(llm.UserText(fmt.Sprint(i)))})
						if err != nil {
							t.Error(err)
						}
						ids[i] = e.ID
					}()
				}
				wg.Wait()
				seen := map[string]bool{}
				for _, id := range ids {
					if id == "" || seen[id] {
						t.Fatalf("ids %v: empty or repeated", ids)
					}
					seen[id] = true
				}
				if got := len(s.Context().Messages); got != n {
					t.Fatalf("%d messages on the path after %d appends", got, n)
				}
			})
		})
	}
}

func appendText(t *testing.T, s Store, text string) session.Entry {
	t.Helper()
	e, err := s.Append(session.Entry{Type: session.TypeMessage, Message: ptr(llm.UserText(text))})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func texts(ms []llm.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text())
	}
	return out
}

func ptr[T any](v T) *T { return &v }
