package lane_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/reinhq/rein/lane"
)

func TestNewRejectsBadOptions(t *testing.T) {
	for name, o := range map[string]lane.Options{
		"negative cap":     {MaxRequests: -1},
		"negative aging":   {Aging: -time.Second},
		"negative backoff": {Backoff: -1},
		"negative poll":    {PollInterval: -1},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := lane.New(o)
			var ce *lane.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
		})
	}
	s, err := lane.New(lane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Options().MaxRequests; got != lane.DefaultMaxRequests {
		t.Fatalf("default cap %d", got)
	}
}

func TestBadWeight(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 2})
	for _, w := range []int{-1, 3} {
		_, _, err := r.s.Acquire(context.Background(), lane.Request{Weight: w})
		var ce *lane.ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("weight %d: %v", w, err)
		}
	}
	if st := r.s.Stats(); st.InUse != 0 || st.Waiting != 0 {
		t.Fatalf("stats after refusals: %+v", st)
	}
}

func TestCapHoldsAndReleaseHandsOn(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 2})
	_, a := mustAcquire(t, r.s, lane.Request{})
	_, b := mustAcquire(t, r.s, lane.Request{})
	out := make(chan acquired, 1)
	acquireAsync(context.Background(), r.s, lane.Request{}, "c", out)
	r.await(t, lane.EventQueued)
	none(t, out)
	if st := r.s.Stats(); st.InUse != 2 || st.Waiting != 1 {
		t.Fatalf("stats %+v", st)
	}
	a.Release()
	a.Release() // idempotent
	c := recv(t, out)
	if c.err != nil {
		t.Fatal(c.err)
	}
	if st := r.s.Stats(); st.InUse != 2 || st.Waiting != 0 {
		t.Fatalf("stats %+v", st)
	}
	b.Release()
	c.slot.Release()
	if st := r.s.Stats(); st.InUse != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestPriorityOrder(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1})
	_, hold := mustAcquire(t, r.s, lane.Request{})
	out := make(chan acquired, 3)
	for _, p := range []lane.Priority{lane.Background, lane.Worker, lane.Foreground} {
		acquireAsync(context.Background(), r.s, lane.Request{Priority: p}, p.String(), out)
		r.await(t, lane.EventQueued)
	}
	hold.Release()
	var order []string
	for range 3 {
		a := recv(t, out)
		order = append(order, a.tag)
		a.slot.Release()
	}
	if want := "foreground worker background"; join(order) != want {
		t.Fatalf("order %q, want %q", join(order), want)
	}
}

func TestContextPriority(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1})
	_, hold := mustAcquire(t, r.s, lane.Request{})
	out := make(chan acquired, 2)
	acquireAsync(lane.WithPriority(context.Background(), lane.Background), r.s, lane.Request{}, "bg", out)
	r.await(t, lane.EventQueued)
	acquireAsync(context.Background(), r.s, lane.Request{}, "fg", out)
	r.await(t, lane.EventQueued)
	hold.Release()
	first := recv(t, out)
	if first.tag != "fg" {
		t.Fatalf("first %s", first.tag)
	}
	first.slot.Release()
	recv(t, out).slot.Release()
}

// TestAgingPreventsStarvation: a background request that has waited two
// aging periods goes before a foreground request that just arrived.
func TestAgingPreventsStarvation(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1, Aging: time.Second})
	_, hold := mustAcquire(t, r.s, lane.Request{})
	out := make(chan acquired, 2)
	acquireAsync(context.Background(), r.s, lane.Request{Priority: lane.Background}, "bg", out)
	r.await(t, lane.EventQueued)
	r.clock.Advance(2*time.Second + time.Millisecond)
	acquireAsync(context.Background(), r.s, lane.Request{Priority: lane.Foreground}, "fg", out)
	r.await(t, lane.EventQueued)
	hold.Release()
	first := recv(t, out)
	if first.tag != "bg" {
		t.Fatalf("the aged background request should go first, got %s", first.tag)
	}
	if first.slot.Waited() < 2*time.Second {
		t.Fatalf("waited %v", first.slot.Waited())
	}
	first.slot.Release()
	recv(t, out).slot.Release()
}

func TestCancelWhileWaitingLeaksNoSlot(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1})
	_, hold := mustAcquire(t, r.s, lane.Request{})
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan acquired, 1)
	acquireAsync(ctx, r.s, lane.Request{}, "w", out)
	r.await(t, lane.EventQueued)
	cancel()
	a := recv(t, out)
	if !errors.Is(a.err, context.Canceled) || a.slot != nil {
		t.Fatalf("got %v %v", a.err, a.slot)
	}
	if st := r.s.Stats(); st.Waiting != 0 || st.InUse != 1 {
		t.Fatalf("stats %+v", st)
	}
	hold.Release()
	if st := r.s.Stats(); st.InUse != 0 {
		t.Fatalf("slot leaked: %+v", st)
	}
	// An already cancelled context never takes a slot.
	if _, _, err := r.s.Acquire(ctx, lane.Request{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
	_, sl := mustAcquire(t, r.s, lane.Request{})
	sl.Release()
}

// TestCancelRacingGrant cancels waiters while slots are handed on, many
// times: whatever wins, no slot is lost.
func TestCancelRacingGrant(t *testing.T) {
	s, err := lane.New(lane.Options{MaxRequests: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		_, hold, err := s.Acquire(context.Background(), lane.Request{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan acquired, 1)
		acquireAsync(ctx, s, lane.Request{}, "w", out)
		go cancel()
		hold.Release()
		if a := <-out; a.err == nil {
			a.slot.Release()
		}
		if st := s.Stats(); st.InUse != 0 || st.Waiting != 0 {
			t.Fatalf("leak: %+v", st)
		}
	}
}

func TestIdleTimeoutFreesAStuckHolder(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1, RequestIdle: time.Minute})
	ctx, stuck := mustAcquire(t, r.s, lane.Request{Session: "s1"})
	out := make(chan acquired, 1)
	acquireAsync(context.Background(), r.s, lane.Request{}, "next", out)
	r.await(t, lane.EventQueued)
	r.clock.Advance(50 * time.Second)
	stuck.Touch() // progress restarts the timeout
	r.clock.Advance(50 * time.Second)
	none(t, out)
	if ctx.Err() != nil {
		t.Fatal("a holder making progress was stopped")
	}
	r.clock.Advance(10 * time.Second)
	next := recv(t, out)
	if next.err != nil {
		t.Fatal(next.err)
	}
	<-ctx.Done()
	var idle *lane.IdleError
	if cause := context.Cause(ctx); !errors.As(cause, &idle) || !errors.Is(cause, lane.ErrIdle) || idle.Session != "s1" {
		t.Fatalf("cause %v", cause)
	}
	stuck.Release() // late release of an expired slot gives nothing back twice
	if st := r.s.Stats(); st.InUse != 1 {
		t.Fatalf("stats %+v", st)
	}
	next.slot.Release()
	if st := r.s.Stats(); st.InUse != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestHeavyHeadWaits: a heavy request at the head is not overtaken by
// light ones behind it (it would starve otherwise).
func TestHeavyHeadWaits(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 4})
	_, a := mustAcquire(t, r.s, lane.Request{Weight: 2})
	out := make(chan acquired, 2)
	acquireAsync(context.Background(), r.s, lane.Request{Weight: 4}, "heavy", out)
	r.await(t, lane.EventQueued)
	acquireAsync(context.Background(), r.s, lane.Request{Weight: 1}, "light", out)
	r.await(t, lane.EventQueued)
	none(t, out)
	a.Release()
	h := recv(t, out)
	if h.tag != "heavy" {
		t.Fatalf("got %s", h.tag)
	}
	h.slot.Release()
	recv(t, out).slot.Release()
}

func join(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}

// TestNoStarvationUnderFlood: with the only slot always wanted by fresh
// foreground requests, a background request is still served, and before
// any foreground request that arrived after its deadline.
func TestNoStarvationUnderFlood(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1, Aging: time.Second, RequestIdle: -1})
	_, holder := mustAcquire(t, r.s, lane.Request{})
	out := make(chan acquired, 64)
	bgAt := r.clock.Now()
	acquireAsync(context.Background(), r.s, lane.Request{Priority: lane.Background}, "bg", out)
	r.await(t, lane.EventQueued)
	arrived := map[string]time.Time{}
	fg := 0
	for step := 0; step < 40; step++ {
		// Two new foreground requests every half second of holding.
		for range 2 {
			tag := "fg" + strconv.Itoa(fg)
			fg++
			arrived[tag] = r.clock.Now()
			acquireAsync(context.Background(), r.s, lane.Request{Priority: lane.Foreground}, tag, out)
			r.await(t, lane.EventQueued)
		}
		r.clock.Advance(500 * time.Millisecond)
		holder.Release()
		next := recv(t, out)
		if next.tag == "bg" {
			// Served after the foreground requests that arrived before
			// its deadline (2 s): 8 of them, half a second each.
			if w := next.slot.Waited(); w != 4500*time.Millisecond {
				t.Fatalf("background waited %v", w)
			}
			next.slot.Release()
			for range fg - step { // the rest of the flood
				recv(t, out).slot.Release()
			}
			return
		}
		if arrived[next.tag].After(bgAt.Add(2 * time.Second)) {
			t.Fatalf("%s arrived after the background request's deadline and went first", next.tag)
		}
		holder = next.slot
	}
	t.Fatal("the background request starved")
}
