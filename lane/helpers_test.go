package lane_test

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/lane/lanetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(holdHelper())
	}
	if os.Getenv(waitEnv) != "" {
		os.Exit(waitHelper())
	}
	goleak.VerifyTestMain(m)
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// rig is a scheduler on a fake clock whose decisions arrive on a channel.
type rig struct {
	s     *lane.Scheduler
	clock *lanetest.Clock
	evs   chan lane.Event
}

func newRig(t *testing.T, o lane.Options) *rig {
	t.Helper()
	r := &rig{clock: lanetest.New(epoch), evs: make(chan lane.Event, 4096)}
	o.Clock = r.clock
	o.Observe = func(e lane.Event) { r.evs <- e }
	s, err := lane.New(o)
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	return r
}

// await returns the next event of type typ, dropping others; it fails
// the test when none comes within a generous bound (a hang, not timing).
func (r *rig) await(t *testing.T, typ lane.EventType) lane.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-r.evs:
			if e.Type == typ {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event", typ)
		}
	}
}

// acquired is the outcome of an Acquire on its own goroutine.
type acquired struct {
	ctx  context.Context
	slot *lane.Slot
	err  error
	tag  string
}

// acquireAsync starts an Acquire and returns where its outcome arrives.
func acquireAsync(ctx context.Context, s *lane.Scheduler, req lane.Request, tag string, out chan<- acquired) {
	go func() {
		c, sl, err := s.Acquire(ctx, req)
		out <- acquired{c, sl, err, tag}
	}()
}

func mustAcquire(t *testing.T, s *lane.Scheduler, req lane.Request) (context.Context, *lane.Slot) {
	t.Helper()
	ctx, sl, err := s.Acquire(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, sl
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("nothing arrived")
	}
	var zero T
	return zero
}

// none checks that nothing has arrived on ch yet.
func none[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("unexpected %v", v)
	default:
	}
}
