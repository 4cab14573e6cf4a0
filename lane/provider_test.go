package lane_test

import (
	"context"
	"errors"
	"iter"
	"testing"
	"time"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

func fauxRequest() *llm.Request {
	return &llm.Request{Model: faux.Model(), Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("hi")}}}}
}

func TestMiddlewareHoldsASlotPerStream(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1})
	p := llm.Chain(faux.New(faux.Text("hello there, a longer reply")), lane.Middleware(r.s))
	n := 0
	for ev, err := range p.Stream(context.Background(), fauxRequest()) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Final() {
			if st := r.s.Stats(); st.InUse != 0 {
				t.Fatalf("the slot is held after the final event: %+v", st)
			}
		} else if st := r.s.Stats(); st.InUse != 1 {
			t.Fatalf("streaming without a slot: %+v", st)
		}
		n++
	}
	if n < 3 {
		t.Fatalf("%d events", n)
	}
}

func TestMiddlewareEarlyBreakReleases(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1})
	p := lane.Middleware(r.s)(faux.New(faux.Text("hello there")))
	for range p.Stream(context.Background(), fauxRequest()) {
		break
	}
	if st := r.s.Stats(); st.InUse != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestMiddlewareRateLimitPausesProvider(t *testing.T) {
	r := newRig(t, lane.Options{})
	rl := &llm.Error{Code: llm.CodeRateLimit, Status: 429, RetryAfter: 7 * time.Second}
	p := lane.Middleware(r.s)(faux.New(faux.Fail(rl)))
	_, err := llm.Collect(context.Background(), p, fauxRequest())
	if !errors.Is(err, llm.ErrRateLimit) {
		t.Fatalf("got %v", err)
	}
	if got := r.s.BackoffUntil("faux"); !got.Equal(epoch.Add(7 * time.Second)) {
		t.Fatalf("back-off until %v", got)
	}
}

func TestMiddlewareCancelledWhileWaiting(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1})
	_, hold := mustAcquire(t, r.s, lane.Request{})
	defer hold.Release()
	p := lane.Middleware(r.s)(faux.New(faux.Text("never")))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan llm.Message, 1)
	go func() {
		m, _ := llm.Collect(ctx, p, fauxRequest())
		done <- m
	}()
	r.await(t, lane.EventQueued)
	cancel()
	m := recv(t, done)
	if m.StopReason != llm.StopAborted {
		t.Fatalf("stop %q (%s)", m.StopReason, m.ErrorMessage)
	}
	if st := r.s.Stats(); st.InUse != 1 || st.Waiting != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// hang streams a start event, signals, then waits for its context.
func hang(started chan<- struct{}) llm.Provider {
	return llm.ProviderFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			e := llm.NewEmitter(yield, req)
			if !e.Start(llm.Message{}) {
				return
			}
			started <- struct{}{}
			<-ctx.Done()
			e.Fail(context.Cause(ctx))
		}
	})
}

func TestMiddlewareIdleStreamTimesOut(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 1, RequestIdle: time.Minute})
	started := make(chan struct{}, 1)
	p := lane.Middleware(r.s)(hang(started))
	type res struct {
		m   llm.Message
		err error
	}
	done := make(chan res, 1)
	go func() {
		m, err := llm.Collect(context.Background(), p, fauxRequest())
		done <- res{m, err}
	}()
	recv(t, started)
	r.clock.Advance(time.Minute)
	got := recv(t, done)
	if !errors.Is(got.err, llm.ErrTimeout) || !errors.Is(got.err, lane.ErrIdle) {
		t.Fatalf("err %v", got.err)
	}
	if got.m.StopReason != llm.StopError || got.m.ErrorCode != llm.CodeTimeout {
		t.Fatalf("message %+v", got.m)
	}
	if st := r.s.Stats(); st.InUse != 0 {
		t.Fatalf("stats %+v", st)
	}
}
