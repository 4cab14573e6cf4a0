package tui

import (
	"context"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// gate holds every model call until it is opened (or the call is
// cancelled), so that tests can act while the agent works.
type gate struct {
	llm.Provider
	mu   sync.Mutex
	open chan struct{}
}

func (g *gate) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	g.mu.Lock()
	ch := g.open
	g.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
	return g.Provider.Stream(ctx, req)
}

// testBackend runs a real harness on a scripted model; its tree is a
// fixed list.
type testBackend struct {
	h        *harness.Harness
	tree     []TreeEntry
	mu       sync.Mutex
	prompts  []string
	navTo    []string
	labels   map[string]string
	forkedAt []string
	session  string // the session Status reports; Fork moves it
	noSwitch bool   // Fork cannot move to the fork
	maxCost  float64
}

func (b *testBackend) Prompt(ctx context.Context, text string) error {
	b.mu.Lock()
	b.prompts = append(b.prompts, text)
	b.mu.Unlock()
	_, err := b.h.Prompt(ctx, text)
	return err
}
func (b *testBackend) Steer(text string) error    { return b.h.Steer(text) }
func (b *testBackend) FollowUp(text string) error { return b.h.FollowUp(text) }
func (b *testBackend) Abort()                     { b.h.Abort() }
func (b *testBackend) Status() Status {
	if b.h == nil {
		return Status{Model: "bench/model", ContextWindow: 200_000, MaxCost: b.maxCost}
	}
	m := b.h.Model()
	b.mu.Lock()
	defer b.mu.Unlock()
	return Status{Model: m.Provider + "/" + m.ID, ContextWindow: m.ContextWindow, Session: b.session}
}
func (b *testBackend) Tree() ([]TreeEntry, string, error) {
	return b.tree, b.tree[len(b.tree)-1].ID, nil
}
func (b *testBackend) Navigate(_ context.Context, id string) ([]llm.Message, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.navTo = append(b.navTo, id)
	return []llm.Message{llm.UserText("first")}, nil
}
func (b *testBackend) nav() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.navTo...)
}

func (b *testBackend) Fork(id string) (Forked, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forkedAt = append(b.forkedAt, id)
	if b.noSwitch {
		return Forked{ID: "new-" + id, Old: b.session, Note: "this backend cannot move"}, nil
	}
	f := Forked{ID: "new-" + id, Old: b.session, Switched: true, Messages: []llm.Message{llm.UserText("path to " + id)}}
	b.session = f.ID
	return f, nil
}
func (b *testBackend) Label(id, label string) error {
	if b.labels == nil {
		b.labels = map[string]string{}
	}
	b.labels[id] = label
	return nil
}

// driver runs an App the way a program would: messages in order, the
// commands they return run on their own goroutines, their messages
// queued back.
type driver struct {
	t    *testing.T
	app  *App
	b    *testBackend
	fp   *faux.Provider
	g    *gate
	msgs chan tea.Msg
	wg   sync.WaitGroup
	stop chan struct{}
}

func newDriver(t *testing.T, o Options, replies ...faux.Reply) *driver {
	t.Helper()
	fp := faux.New(replies...)
	fp.ChunkSize = 4
	g := &gate{Provider: fp}
	h, err := harness.New(harness.Options{Provider: g, Model: faux.Model(), NoGuards: true})
	if err != nil {
		t.Fatal(err)
	}
	b := &testBackend{h: h, tree: []TreeEntry{{ID: "u1", Role: "user", Text: "first"}, {ID: "a1", Parent: "u1", Role: "assistant", Text: "answer"}}}
	d := &driver{t: t, b: b, fp: fp, g: g, msgs: make(chan tea.Msg, 1024), stop: make(chan struct{})}
	d.app = New(context.Background(), b, o)
	unsub := h.Subscribe(func(_ context.Context, ev harness.Event) error {
		select {
		case d.msgs <- EventMsg(Snapshot(ev)):
		case <-d.stop:
		}
		return nil
	})
	t.Cleanup(func() {
		h.Abort()
		close(d.stop)
		d.wg.Wait()
		unsub()
	})
	d.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return d
}

// update applies one message and runs its command.
func (d *driver) update(msg tea.Msg) {
	_, cmd := d.app.Update(msg)
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		done := make(chan tea.Msg, 1)
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			done <- cmd()
		}()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-d.stop:
			return
		}
		switch m := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range m {
				d.run(c)
			}
		default:
			select {
			case d.msgs <- msg:
			case <-d.stop:
			}
		}
	}()
}

// until applies queued messages until cond holds.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, d.screen())
		}
	}
}

func (d *driver) idle() bool { return !d.app.busy }

func (d *driver) typ(s string) {
	for _, r := range s {
		d.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (d *driver) key(code rune, mod tea.KeyMod) { d.update(tea.KeyPressMsg{Code: code, Mod: mod}) }

func (d *driver) enter() { d.key(tea.KeyEnter, 0) }

// send types a line and presses enter.
func (d *driver) send(s string) {
	d.typ(s)
	d.enter()
}

// screen is the view without styles.
func (d *driver) screen() string {
	d.app.stale = true
	return ansi.Strip(d.app.View().Content)
}

func (d *driver) shows(s string) bool { return strings.Contains(d.screen(), s) }
