package lane_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/reinhq/rein/lane"
)

type entered struct {
	ctx context.Context
	run *lane.Run
	err error
	tag string
}

func enterAsync(ctx context.Context, s *lane.Scheduler, o lane.RunOptions, tag string, out chan<- entered) {
	go func() {
		c, r, err := s.Enter(ctx, o)
		out <- entered{c, r, err, tag}
	}()
}

func TestSessionFIFO(t *testing.T) {
	r := newRig(t, lane.Options{})
	_, first, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	// Another session is independent.
	_, other, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "t", NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	other.Release()
	out := make(chan entered, 5)
	for i := range 5 {
		enterAsync(context.Background(), r.s, lane.RunOptions{Session: "s"}, fmt.Sprint(i), out)
		r.await(t, lane.EventRunWait)
	}
	if st := r.s.Stats(); st.Runs != 1 || st.Queued != 5 {
		t.Fatalf("stats %+v", st)
	}
	first.Release()
	for i := range 5 {
		e := recv(t, out)
		if e.err != nil || e.tag != fmt.Sprint(i) {
			t.Fatalf("run %d: got %s %v", i, e.tag, e.err)
		}
		none(t, out)
		e.run.Release()
	}
	if st := r.s.Stats(); st.Runs != 0 || st.Queued != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestSessionBusy(t *testing.T) {
	r := newRig(t, lane.Options{})
	_, run, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r.s.Enter(context.Background(), lane.RunOptions{Session: "s", NoWait: true})
	var be *lane.BusyError
	if !errors.Is(err, lane.ErrBusy) || !errors.As(err, &be) || be.Session != "s" || be.PID != 0 {
		t.Fatalf("got %v", err)
	}
	run.Release()
	_, run, err = r.s.Enter(context.Background(), lane.RunOptions{Session: "s", NoWait: true})
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	run.Release()
	if _, _, err := r.s.Enter(context.Background(), lane.RunOptions{}); err == nil {
		t.Fatal("a run without a session key was accepted")
	}
}

func TestSessionCancelWhileWaiting(t *testing.T) {
	r := newRig(t, lane.Options{})
	_, run, _ := r.s.Enter(context.Background(), lane.RunOptions{Session: "s"})
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan entered, 2)
	enterAsync(ctx, r.s, lane.RunOptions{Session: "s"}, "cancelled", out)
	r.await(t, lane.EventRunWait)
	enterAsync(context.Background(), r.s, lane.RunOptions{Session: "s"}, "kept", out)
	r.await(t, lane.EventRunWait)
	cancel()
	if e := recv(t, out); e.tag != "cancelled" || !errors.Is(e.err, context.Canceled) {
		t.Fatalf("got %s %v", e.tag, e.err)
	}
	run.Release()
	e := recv(t, out)
	if e.tag != "kept" || e.err != nil {
		t.Fatalf("got %s %v", e.tag, e.err)
	}
	e.run.Release()
	if st := r.s.Stats(); st.Runs != 0 || st.Queued != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRunIdleTimeout(t *testing.T) {
	r := newRig(t, lane.Options{RunIdle: time.Minute})
	ctx, stuck, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan entered, 1)
	enterAsync(context.Background(), r.s, lane.RunOptions{Session: "s"}, "next", out)
	r.await(t, lane.EventRunWait)
	r.clock.Advance(59 * time.Second)
	stuck.Touch() // tool output
	r.clock.Advance(59 * time.Second)
	none(t, out)
	r.clock.Advance(time.Second)
	e := recv(t, out)
	if e.err != nil {
		t.Fatal(e.err)
	}
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), lane.ErrIdle) {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	stuck.Release() // must not end the next run
	if st := r.s.Stats(); st.Runs != 1 {
		t.Fatalf("stats %+v", st)
	}
	e.run.Release()
}

// TestRunCarriesPriority: requests made with a run's context wait at the
// run's priority and touch the run.
func TestRunCarriesPriority(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1, RunIdle: time.Minute})
	_, hold := mustAcquire(t, r.s, lane.Request{})
	bctx, brun, _ := r.s.Enter(context.Background(), lane.RunOptions{Session: "bg", Priority: lane.Background})
	fctx, frun, _ := r.s.Enter(context.Background(), lane.RunOptions{Session: "fg"})
	defer brun.Release()
	defer frun.Release()
	if lane.PriorityOf(bctx) != lane.Background || brun.Priority() != lane.Background {
		t.Fatal("priority not carried")
	}
	out := make(chan acquired, 2)
	acquireAsync(bctx, r.s, lane.Request{}, "bg", out)
	r.await(t, lane.EventQueued)
	acquireAsync(fctx, r.s, lane.Request{}, "fg", out)
	r.await(t, lane.EventQueued)
	hold.Release()
	a := recv(t, out)
	if a.tag != "fg" {
		t.Fatalf("first %s", a.tag)
	}
	r.clock.Advance(50 * time.Second)
	a.slot.Touch() // a stream delta touches the run too
	brun.Touch()
	r.clock.Advance(50 * time.Second)
	if fctx.Err() != nil {
		t.Fatal("the run expired although its request made progress")
	}
	a.slot.Release()
	recv(t, out).slot.Release()
}
