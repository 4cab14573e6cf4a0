package coding

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// gated replies are faux replies that wait for the test to open a gate,
// recording the prompt each was asked for.
type gated struct {
	mu    sync.Mutex
	asked []string
	in    chan string // a request arrived (its last user text)
	open  chan struct{}
}

func newGated() *gated { return &gated{in: make(chan string, 16), open: make(chan struct{}, 16)} }

func (g *gated) reply() faux.Reply {
	return faux.Reply{Func: func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		last := req.Messages[len(req.Messages)-1].Text()
		g.mu.Lock()
		g.asked = append(g.asked, last)
		g.mu.Unlock()
		g.in <- last
		select {
		case <-g.open:
		case <-ctx.Done():
			return llm.Message{}, ctx.Err()
		}
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("done: " + last)}}, nil
	}}
}

func waitFor(t *testing.T, ch <-chan lane.Event, typ lane.EventType) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case e := <-ch:
			if e.Type == typ {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event", typ)
		}
	}
}

func TestLanesSubmitBusyAndSubmitWaitFIFO(t *testing.T) {
	e := newTestEnv(t)
	evs := make(chan lane.Event, 256)
	sched, err := lane.New(lane.Options{MaxRequests: 1, Observe: func(ev lane.Event) { evs <- ev }})
	if err != nil {
		t.Fatal(err)
	}
	g := newGated()
	o := e.options(t.TempDir(), g.reply(), g.reply(), g.reply())
	o.Lanes = sched
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	type outcome struct {
		res harness.Result
		err error
	}
	first := make(chan outcome, 1)
	go func() {
		res, err := a.Submit(context.Background(), "one")
		first <- outcome{res, err}
	}()
	if got := <-g.in; got != "one" {
		t.Fatalf("asked %q", got)
	}
	// A second Submit on the busy session fails at once.
	_, err = a.Submit(context.Background(), "rejected")
	if !errors.Is(err, harness.ErrBusy) || !errors.Is(err, lane.ErrBusy) {
		t.Fatalf("Submit while busy: %v", err)
	}
	// SubmitWait queues in order.
	rest := make(chan outcome, 2)
	for _, p := range []string{"two", "three"} {
		go func() {
			res, err := a.SubmitWait(context.Background(), p)
			rest <- outcome{res, err}
		}()
		waitFor(t, evs, lane.EventRunWait)
	}
	if st := sched.Stats(); st.Runs != 1 || st.Queued != 2 || st.InUse != 1 {
		t.Fatalf("stats %+v", st)
	}
	for _, want := range []string{"two", "three"} {
		g.open <- struct{}{}
		if got := <-g.in; got != want {
			t.Fatalf("asked %q, want %q", got, want)
		}
	}
	g.open <- struct{}{}
	for range 2 {
		if o := <-rest; o.err != nil || o.res.Stop != harness.StopCompleted {
			t.Fatalf("queued prompt: %v %s", o.err, o.res.Stop)
		}
	}
	if o := <-first; o.err != nil {
		t.Fatal(o.err)
	}
	if st := sched.Stats(); st.Runs != 0 || st.InUse != 0 || st.Waiting != 0 {
		t.Fatalf("stats after the runs %+v", st)
	}
}

// TestLanesOneCapAcrossAgents: two agents sharing a scheduler with a cap
// of one never stream at the same time.
func TestLanesOneCapAcrossAgents(t *testing.T) {
	e := newTestEnv(t)
	evs := make(chan lane.Event, 256)
	sched, err := lane.New(lane.Options{MaxRequests: 1, Observe: func(ev lane.Event) { evs <- ev }})
	if err != nil {
		t.Fatal(err)
	}
	ga, gb := newGated(), newGated()
	oa, ob := e.options(t.TempDir(), ga.reply()), e.options(t.TempDir(), gb.reply())
	oa.Lanes, ob.Lanes = sched, sched
	ob.Priority = lane.Worker
	a, err := Open(context.Background(), oa)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(context.Background(), ob)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	done := make(chan error, 2)
	go func() { _, err := a.Submit(context.Background(), "a"); done <- err }()
	<-ga.in
	go func() { _, err := b.Submit(context.Background(), "b"); done <- err }()
	waitFor(t, evs, lane.EventQueued)
	select {
	case <-gb.in:
		t.Fatal("the second agent streams while the first holds the only slot")
	default:
	}
	ga.open <- struct{}{}
	<-gb.in
	gb.open <- struct{}{}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if st := sched.Stats(); st.InUse != 0 || st.Waiting != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestQueueCollectAndInterrupt(t *testing.T) {
	e := newTestEnv(t)
	sched, err := lane.New(lane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := newGated()
	o := e.options(t.TempDir(), g.reply(), g.reply(), g.reply(), g.reply())
	o.Lanes = sched
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan harness.Result, 1)
	go func() {
		res, _ := a.Submit(context.Background(), "one")
		first <- res
	}()
	if got := <-g.in; got != "one" {
		t.Fatalf("asked %q", got)
	}
	for _, m := range []string{"a", "b"} {
		if d, err := a.Queue(m, lane.ModeCollect); err != nil || d != lane.Collected {
			t.Fatalf("collect %q: %s %v", m, d, err)
		}
	}
	if _, err := a.Queue("x", "shout"); err == nil {
		t.Fatal("an unknown mode was accepted")
	}
	if a.Queued() != 2 {
		t.Fatalf("queued %d", a.Queued())
	}
	g.open <- struct{}{}
	<-first
	// The collected messages run as one prompt once "one" has ended.
	if got := <-g.in; got != "a\n\nb" {
		t.Fatalf("asked %q, want the collected messages in one prompt", got)
	}
	// An interrupt aborts it and runs next.
	if d, err := a.Queue("stop, do this", lane.ModeInterrupt); err != nil || d != lane.Interrupted {
		t.Fatalf("interrupt: %s %v", d, err)
	}
	if got := <-g.in; got != "stop, do this" {
		t.Fatalf("asked %q", got)
	}
	g.open <- struct{}{}
	if err := a.Close(); err != nil { // waits for the background prompts
		t.Fatal(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if want := []string{"one", "a\n\nb", "stop, do this"}; fmt.Sprint(g.asked) != fmt.Sprint(want) {
		t.Fatalf("asked %q, want %q", g.asked, want)
	}
}
