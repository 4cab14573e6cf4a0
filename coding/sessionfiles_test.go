package coding

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
)

// A run's session forks at its leaf or at an entry prefix, leaving the
// original as it was; a bad reference and an empty session are typed
// errors. Handoff starts a linked session from a briefing.
func TestForkFileAndHandoff(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	const secret = "zq-brief-secret-5e81c0d9a7"
	o := e.options(ws, faux.Text("hello"), faux.Text("The briefing, with the token "+secret+"."))
	o.Redactor = redact.New(secret)
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Submit(context.Background(), "say hello"); err != nil {
		t.Fatal(err)
	}
	if err := a.Session().Flush(); err != nil {
		t.Fatal(err)
	}
	path := a.Session().Path()
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := ""
	for _, en := range entries {
		if en.Type == session.TypeMessage && first == "" {
			first = en.ID
		}
	}

	forked, h, err := ForkFile(path, "", redact.New())
	if err != nil || h.ID != a.Session().ID() {
		t.Fatalf("fork at the leaf: %v %+v", err, h)
	}
	if n := len(forked.Context().Messages); n != 2 {
		t.Errorf("the fork at the leaf holds %d messages", n)
	}
	forked.Close()
	forked, _, err = ForkFile(path, first[:6], redact.New())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(forked.Context().Messages); n != 1 {
		t.Errorf("the fork at the first entry holds %d messages", n)
	}
	forked.Close()
	var refErr *EntryRefError
	if _, _, err := ForkFile(path, "zzzz", redact.New()); !errors.As(err, &refErr) || !strings.Contains(err.Error(), "rein sessions show lists the entry ids") {
		t.Errorf("bad entry: %v", err)
	}

	empty, err := session.Create(session.Options{Dir: t.TempDir(), Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	empty.Close()
	if _, _, err := ForkFile(empty.Path(), "", redact.New()); !errors.Is(err, ErrNothingToFork) {
		t.Errorf("empty session: %v", err)
	}

	handed, err := a.Handoff(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	child, err := session.Stat(handed.Path)
	if err != nil || child.ID != handed.ID || child.Parent != a.Session().ID() {
		t.Fatalf("handed: %+v %+v %v", handed, child, err)
	}
	_, entries, _, _ = session.ReadFile(handed.Path)
	c := session.BuildContext(entries, session.LastLeaf(entries))
	if len(c.Messages) != 1 || !strings.HasPrefix(c.Messages[0].Text(), harness.HandoffPrefix) {
		t.Errorf("the new session starts with %+v", c.Messages)
	}
	if b, _ := os.ReadFile(handed.Path); strings.Contains(string(b), secret) {
		t.Errorf("the handed-off session holds the secret unmasked:\n%s", b)
	}
}

func TestWorkItemsOf(t *testing.T) {
	s, err := session.Create(session.Options{Dir: t.TempDir(), Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if list, err := WorkItemsOf(s.Path()); err != nil || list != nil {
		t.Errorf("no items: %v %v", list, err)
	}
	if _, err := WorkItemsOf(s.Path() + "-missing"); err == nil {
		t.Error("a missing file gave no error")
	}
}
