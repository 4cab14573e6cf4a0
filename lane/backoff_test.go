package lane_test

import (
	"context"
	"testing"
	"time"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
)

func TestRateLimitPausesOnlyThatProvider(t *testing.T) {
	r := newRig(t, lane.Options{MaxRequests: 4})
	r.s.Observe("anthropic", &llm.Error{Code: llm.CodeRateLimit, Status: 429, RetryAfter: 10 * time.Second})
	r.await(t, lane.EventBackoff)
	if got := r.s.BackoffUntil("anthropic"); !got.Equal(epoch.Add(10 * time.Second)) {
		t.Fatalf("until %v", got)
	}
	out := make(chan acquired, 2)
	acquireAsync(context.Background(), r.s, lane.Request{Provider: "anthropic"}, "a", out)
	r.await(t, lane.EventQueued)
	acquireAsync(context.Background(), r.s, lane.Request{Provider: "openai"}, "o", out)
	if o := recv(t, out); o.tag != "o" || o.err != nil {
		t.Fatalf("other provider: %s %v", o.tag, o.err)
	} else {
		o.slot.Release()
	}
	r.clock.Advance(9 * time.Second)
	none(t, out)
	r.clock.Advance(time.Second)
	a := recv(t, out)
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.slot.Waited() != 10*time.Second {
		t.Fatalf("waited %v", a.slot.Waited())
	}
	a.slot.Release()
}

func TestBackoffWithoutRetryAfterDoublesAndResets(t *testing.T) {
	r := newRig(t, lane.Options{Backoff: time.Second, BackoffMax: 3 * time.Second})
	rl := &llm.Error{Code: llm.CodeRateLimit}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second} {
		r.s.Observe("p", rl)
		if got := r.s.BackoffUntil("p").Sub(r.clock.Now()); got != want {
			t.Fatalf("rate limit %d: pause %v, want %v", i+1, got, want)
		}
		r.clock.Advance(want)
	}
	r.s.Observe("p", nil) // success ends the streak
	r.s.Observe("p", rl)
	if got := r.s.BackoffUntil("p").Sub(r.clock.Now()); got != time.Second {
		t.Fatalf("after a success: pause %v", got)
	}
	// Other failures do not pause.
	r.clock.Advance(time.Second)
	r.s.Observe("p", &llm.Error{Code: llm.CodeOverloaded})
	if !r.s.BackoffUntil("p").IsZero() {
		t.Fatal("an overload paused the provider")
	}
	// A Retry-After beyond the cap is capped; a shorter pause never
	// shortens a longer one.
	r.s.Observe("q", &llm.Error{Code: llm.CodeRateLimit, RetryAfter: time.Hour})
	r.s.Backoff("q", time.Millisecond)
	if got := r.s.BackoffUntil("q").Sub(r.clock.Now()); got != 3*time.Second {
		t.Fatalf("capped pause %v", got)
	}
}

func TestCancelWhileInBackoff(t *testing.T) {
	r := newRig(t, lane.Options{})
	r.s.Backoff("p", time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan acquired, 1)
	acquireAsync(ctx, r.s, lane.Request{Provider: "p"}, "w", out)
	r.await(t, lane.EventQueued)
	cancel()
	if a := recv(t, out); a.err == nil {
		t.Fatal("granted during back-off")
	}
	r.clock.Advance(time.Minute)
	if st := r.s.Stats(); st.InUse != 0 || st.Waiting != 0 {
		t.Fatalf("stats %+v", st)
	}
}
