package work

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/session"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newSession creates a real session file under t's temp dir.
func newSession(t *testing.T) *session.Session {
	t.Helper()
	s, err := session.Create(session.Options{Dir: filepath.Join(t.TempDir(), "sessions")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func persistTo(s *session.Session) func(session.Entry) error {
	return func(e session.Entry) error { _, err := s.Append(e); return err }
}

func TestLedgerPersistsWholeListAndReopens(t *testing.T) {
	s := newSession(t)
	if _, err := s.AppendMessage(userText("plan it")); err != nil {
		t.Fatal(err)
	}
	l := NewLedger(nil, LedgerOptions{Persist: persistTo(s)})
	if _, err := l.Add(NewItem{Title: "write parser"}, NewItem{Title: "write tests", Verify: []string{"go test ./..."}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := l.Update(ctx, "", Update{ID: "1", Status: InProgress}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Update(ctx, "", Update{ID: "2", Status: InProgress}); err == nil || !strings.Contains(err.Error(), "#1") {
		t.Fatalf("a second in-progress item for one agent: %v", err)
	}
	if _, err := l.Update(ctx, "sub", Update{ID: "2", Status: InProgress}); err != nil {
		t.Fatalf("another agent may have its own: %v", err)
	}
	if _, err := l.Update(ctx, "", Update{ID: "1", Status: Cancelled}); err == nil {
		t.Fatal("cancelling without a note was accepted")
	}
	want := l.List()
	path := s.Path()
	s.Close()
	s2, err := session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := Decode(s2.WorkItems())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("reopened list differs (-want +got):\n%s", d)
	}
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Type == session.TypeWorkItems {
			n++
		}
	}
	if n != 3 { // add, two updates; refused changes write nothing
		t.Fatalf("%d work_items entries, want 3", n)
	}
	// Side entries do not move the leaf.
	if c := s2.Context(); len(c.Messages) != 1 {
		t.Fatalf("context has %d messages, want 1", len(c.Messages))
	}
	// A fork carries the list.
	f, err := s2.Fork(s2.Leaf(), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fl, _ := Decode(f.WorkItems())
	if d := cmp.Diff(want, fl); d != "" {
		t.Fatalf("forked list differs:\n%s", d)
	}
}

func TestLedgerPersistFailureChangesNothing(t *testing.T) {
	l := NewLedger(List{{ID: "1", Title: "a", Status: Pending}}, LedgerOptions{Persist: func(session.Entry) error { return errors.New("disk full") }})
	if _, err := l.Add(NewItem{Title: "b"}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if got := len(l.List()); got != 1 {
		t.Fatalf("%d items after a failed save", got)
	}
}

func TestTodoWriteRefusesOmittedOpenItems(t *testing.T) {
	ctx := context.Background()
	l := NewLedger(nil, LedgerOptions{})
	if _, err := l.Replace(ctx, "", []Todo{{Content: "a", Status: InProgress, ActiveForm: "doing a"}, {Content: "b", Status: Pending, ActiveForm: "doing b"}, {Content: "c", Status: Pending, ActiveForm: "doing c"}}); err != nil {
		t.Fatal(err)
	}
	before := l.List()
	_, err := l.Replace(ctx, "", []Todo{{Content: "a", Status: Completed, ActiveForm: "doing a"}})
	var om *OmittedError
	if !errors.As(err, &om) {
		t.Fatalf("err = %v, want *OmittedError", err)
	}
	if len(om.Omitted) != 2 || !strings.Contains(err.Error(), "#2 b") || !strings.Contains(err.Error(), "#3 c") {
		t.Fatalf("the refusal does not list the omitted items: %v", err)
	}
	if d := cmp.Diff(before, l.List()); d != "" {
		t.Fatalf("a refused write changed the list:\n%s", d)
	}
	// Dropping needs cancelled with a note; completed items may be left out.
	if _, err := l.Replace(ctx, "", []Todo{{Content: "b", Status: Cancelled, ActiveForm: "x"}, {Content: "c", Status: InProgress, ActiveForm: "x"}, {Content: "a", Status: Completed, ActiveForm: "x"}}); err == nil {
		t.Fatal("cancelled without a note was accepted")
	}
	ls, err := l.Replace(ctx, "", []Todo{{Content: "a", Status: Completed, ActiveForm: "x"}, {Content: "b", Status: Cancelled, ActiveForm: "x", Note: "not needed"}, {Content: "c", Status: InProgress, ActiveForm: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if ls[0].Status != Completed || ls[1].Status != Cancelled || ls[2].Status != InProgress {
		t.Fatalf("statuses: %+v", ls)
	}
	if _, err := l.Replace(ctx, "", []Todo{{Content: "c", Status: InProgress, ActiveForm: "x"}, {Content: "d", Status: InProgress, ActiveForm: "x"}}); err == nil {
		t.Fatal("two in-progress items were accepted")
	}
	ls, err = l.Replace(ctx, "", []Todo{{Content: "c", Status: Completed, ActiveForm: "x"}, {Content: "d", Status: InProgress, ActiveForm: "x"}})
	if err != nil || len(ls) != 4 {
		t.Fatalf("closed items left out are kept: %v %+v", err, ls)
	}
}

func TestGateRefusesCompletion(t *testing.T) {
	ctx := context.Background()
	l := NewLedger(nil, LedgerOptions{Gate: func(_ context.Context, it Item) error {
		return errors.New("`" + it.Verify[0] + "` exited with 1")
	}})
	if _, err := l.Add(NewItem{Title: "t", Verify: []string{"false"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Update(ctx, "", Update{ID: "#1", Status: Completed}); err == nil || !strings.Contains(err.Error(), "exited with 1") {
		t.Fatalf("err = %v", err)
	}
	if l.List()[0].Status != Pending {
		t.Fatal("a refused completion changed the status")
	}
}

func TestVolatileShowsChangesOnce(t *testing.T) {
	l := NewLedger(List{{ID: "1", Title: "a", Status: Pending}}, LedgerOptions{})
	first := l.Volatile()
	if !strings.Contains(first, "#1 a") {
		t.Fatalf("a resumed open list is not shown: %q", first)
	}
	if v := l.Volatile(); v != "" {
		t.Fatalf("shown again without a change: %q", v)
	}
	l.Reshow()
	if v := l.Volatile(); v != first {
		t.Fatalf("after Reshow: %q, want %q", v, first)
	}
	if _, err := l.Add(NewItem{Title: "b"}); err != nil {
		t.Fatal(err)
	}
	if v := l.Volatile(); !strings.Contains(v, "#2 b") {
		t.Fatalf("a change is not shown: %q", v)
	}
}
