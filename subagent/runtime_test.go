package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/session"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type defList []Definition

func (d defList) Lookup(name string) (Definition, bool) {
	for _, x := range d {
		if x.Name == name {
			return x, true
		}
	}
	return Definition{}, false
}
func (d defList) All() []Definition { return d }

// fakeHost records entries and runs children that wait for release.
type fakeHost struct {
	mu       sync.Mutex
	entries  []session.Entry
	announce []string
	release  chan struct{}
	openErr  error
}

func (h *fakeHost) Open(ctx context.Context, s Spec) (Child, error) {
	if h.openErr != nil {
		return nil, h.openErr
	}
	return &fakeChild{h: h, spec: s}, nil
}

func (h *fakeHost) Append(e session.Entry) error {
	h.mu.Lock()
	h.entries = append(h.entries, e)
	h.mu.Unlock()
	return nil
}

func (h *fakeHost) Announce(s string) {
	h.mu.Lock()
	h.announce = append(h.announce, s)
	h.mu.Unlock()
}

func (h *fakeHost) log() []session.Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]session.Entry(nil), h.entries...)
}

type fakeChild struct {
	h    *fakeHost
	spec Spec
}

func (c *fakeChild) Path() string { return "/sessions/" + c.spec.ID + ".jsonl" }
func (c *fakeChild) Run(ctx context.Context, prompt string) (Outcome, error) {
	if c.h.release != nil {
		select {
		case <-c.h.release:
		case <-ctx.Done():
			return Outcome{Stop: "aborted"}, nil
		}
	}
	return Outcome{Final: "did " + prompt, Stop: "completed", Turns: 2, Usage: Usage{Input: 10, Output: 5, Cost: 0.01}}, nil
}
func (c *fakeChild) Close() error { return nil }

func newRT(h *fakeHost, l Limits, depth int) *Runtime {
	n := 0
	var mu sync.Mutex
	return New(Options{Host: h, Definitions: defList{{Name: "w", Description: "works"}}, Limits: l, Depth: depth,
		NewID: func() string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprintf("c%02d", n) }})
}

func TestLimitsDefaults(t *testing.T) {
	l := Limits{MaxDepth: 9}.normal()
	if l.MaxDepth != HardMaxDepth || l.MaxChildren != 20 || l.MaxConcurrent != 4 {
		t.Fatalf("%+v", l)
	}
	if l := (Limits{}).normal(); l.MaxDepth != 2 {
		t.Fatalf("%+v", l)
	}
}

func TestSpawnRefusals(t *testing.T) {
	h := &fakeHost{}
	rt := newRT(h, Limits{}, 2)
	defer rt.Close()
	_, err := rt.Spawn(context.Background(), Request{Type: "w", Prompt: "p"})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "depth" || !strings.Contains(err.Error(), "at most 2 deep") {
		t.Fatalf("depth: %v", err)
	}
	rt2 := newRT(h, Limits{}, 0)
	defer rt2.Close()
	_, err = rt2.Spawn(context.Background(), Request{Type: "nope", Prompt: "p"})
	var ue *UnknownAgentError
	if !errors.As(err, &ue) || err.Error() != `there is no agent "nope"; the agents are: w` {
		t.Fatalf("unknown: %v", err)
	}
	if len(h.log()) != 0 {
		t.Fatalf("refusals wrote %v", h.log())
	}
}

// Beyond MaxChildren live children a spawn is refused; ended children do
// not count.
func TestChildrenCap(t *testing.T) {
	h := &fakeHost{release: make(chan struct{})}
	rt := newRT(h, Limits{MaxChildren: 3, MaxConcurrent: 1}, 0)
	for range 3 {
		if _, err := rt.Spawn(context.Background(), Request{Type: "w", Prompt: "p", Background: true}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := rt.Spawn(context.Background(), Request{Type: "w", Prompt: "p", Background: true})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "children" || le.Max != 3 {
		t.Fatalf("got %v", err)
	}
	close(h.release)
	for _, r := range rt.Children() {
		if rec, _, err := rt.Wait(context.Background(), r.ID); err != nil || rec.State != Completed {
			t.Fatalf("%+v %v", rec, err)
		}
	}
	if _, err := rt.Spawn(context.Background(), Request{Type: "w", Prompt: "p"}); err != nil {
		t.Fatalf("after the others ended: %v", err)
	}
	rt.Close()
	h.mu.Lock()
	n := len(h.announce)
	h.mu.Unlock()
	if n != 3 {
		t.Fatalf("%d announcements, want 3", n)
	}
	if sp := rt.Spent(); sp.Input != 40 || sp.Output != 20 {
		t.Fatalf("spent %+v", sp)
	}
}

// Close cancels queued and running children; each gets one terminal
// entry, and the log rebuilds to the same records.
func TestCloseCancelsAndRebuild(t *testing.T) {
	h := &fakeHost{release: make(chan struct{})}
	rt := newRT(h, Limits{MaxConcurrent: 1}, 0)
	for range 3 {
		if _, err := rt.Spawn(context.Background(), Request{Type: "w", Prompt: "p", Background: true}); err != nil {
			t.Fatal(err)
		}
	}
	rt.Close()
	if _, err := rt.Spawn(context.Background(), Request{Type: "w", Prompt: "p"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	recs := ReadEntries(h.log())
	if len(recs) != 3 {
		t.Fatalf("records %+v", recs)
	}
	for _, r := range recs {
		if r.State != Cancelled || r.Error != errParentClosed.Error() {
			t.Fatalf("%+v", r)
		}
	}
	// Rebuilding finds nothing to orphan.
	h2 := &fakeHost{}
	rt2 := newRT(h2, Limits{}, 0)
	defer rt2.Close()
	orphaned, err := rt2.Rebuild(h.log())
	if err != nil || len(orphaned) != 0 || len(rt2.Children()) != 3 || len(h2.log()) != 0 {
		t.Fatalf("orphaned %v err %v children %v", orphaned, err, rt2.Children())
	}
}

func TestReadEntriesIgnoresNoise(t *testing.T) {
	spawned := Record{ID: "a", Agent: "w", State: Running}.Entry()
	done := Record{ID: "a", Agent: "w", State: Completed, Turns: 3}.Entry()
	again := Record{ID: "a", Agent: "w", State: Failed}.Entry()
	stray := Record{ID: "zz", State: Completed}.Entry()
	bad := session.Entry{Type: session.TypeCustom, Kind: EntryKind, Data: []byte(`{"event":`)}
	other := session.Entry{Type: session.TypeCustom, Kind: "todo", Data: []byte(`{}`)}
	recs := ReadEntries([]session.Entry{other, bad, stray, spawned, spawned, done, again})
	if len(recs) != 1 || recs[0].State != Completed || recs[0].Turns != 3 {
		t.Fatalf("%+v", recs)
	}
}

func TestFooterAndAnnouncement(t *testing.T) {
	r := Record{ID: "abc", Agent: "explore", Turns: 3, Usage: Usage{Input: 1200, Output: 340, Cost: 0.0123}, State: Completed}
	if got, want := Footer(r), "[agent explore · 3 turns · 1200 in / 340 out tokens · $0.0123 · 0s · session abc]"; got != want {
		t.Fatalf("footer %q, want %q", got, want)
	}
	a := Announcement(r, "found it")
	if !strings.HasPrefix(a, `<subagent-result id="abc" agent="explore" state="completed">`+"\nfound it\n[agent explore") {
		t.Fatalf("%q", a)
	}
}

func TestActiveBlock(t *testing.T) {
	h := &fakeHost{release: make(chan struct{})}
	rt := newRT(h, Limits{}, 0)
	if rt.ActiveBlock() != "" {
		t.Fatal("block without children")
	}
	if _, err := rt.Spawn(context.Background(), Request{Type: "w", Prompt: "p", Description: "scan logs", Background: true}); err != nil {
		t.Fatal(err)
	}
	b := rt.ActiveBlock()
	if !strings.HasPrefix(b, "## Active sub-agents\n- c01 (w, background, ") || !strings.Contains(b, "scan logs") {
		t.Fatalf("%q", b)
	}
	close(h.release)
	rt.Close()
}
