package failover

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
)

func TestRetryTransient(t *testing.T) {
	tests := []struct {
		name       string
		replies    []reply
		wantDelays []time.Duration
		wantCalls  int
		wantCode   llm.ErrorCode
	}{
		{"429 without Retry-After", []reply{fail(llm.CodeRateLimit, 429), ok("fine")},
			[]time.Duration{500 * time.Millisecond}, 2, ""},
		{"429 with Retry-After longer than the backoff", []reply{fail(llm.CodeRateLimit, 429).retryAfter(5 * time.Second), ok("fine")},
			[]time.Duration{5 * time.Second}, 2, ""},
		{"429 with Retry-After shorter than the backoff", []reply{fail(llm.CodeRateLimit, 429).retryAfter(100 * time.Millisecond), ok("fine")},
			[]time.Duration{500 * time.Millisecond}, 2, ""},
		{"529 overloaded twice then success", []reply{fail(llm.CodeOverloaded, 529), fail(llm.CodeOverloaded, 529), ok("fine")},
			[]time.Duration{500 * time.Millisecond, time.Second}, 3, ""},
		{"timeout and server error", []reply{fail(llm.CodeTimeout, 504), fail(llm.CodeServerError, 500), ok("fine")},
			[]time.Duration{500 * time.Millisecond, time.Second}, 3, ""},
		{"gives up after max attempts", []reply{fail(llm.CodeServerError, 500), fail(llm.CodeServerError, 500), fail(llm.CodeServerError, 500), fail(llm.CodeServerError, 500), ok("never")},
			[]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, 4, llm.CodeServerError},
		{"Retry-After beyond the cap is not slept", []reply{fail(llm.CodeRateLimit, 429).retryAfter(time.Hour), ok("never")},
			nil, 1, llm.CodeRateLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := newClock(), &recorder{}
			f := newFake("prov", map[string][]reply{"model-a": tt.replies})
			p := mustNew(t, []Target{{Provider: f}}, testOptions(c, rec))
			o := drain(t, p, context.Background(), request(""))
			if diff := cmp.Diff(tt.wantDelays, c.Delays()); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
			if got := len(f.Calls()); got != tt.wantCalls {
				t.Errorf("calls = %d, want %d", got, tt.wantCalls)
			}
			if got := llm.CodeOf(o.err); got != tt.wantCode {
				t.Errorf("code = %q, want %q (err %v)", got, tt.wantCode, o.err)
			}
			if tt.wantCode == "" {
				if diff := cmp.Diff([]llm.EventType{"start", "text_start", "text_delta", "text_end", "done"}, o.types); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
				if o.text() != "fine" {
					t.Errorf("text = %q", o.text())
				}
				retries := rec.Of(EventRetry)
				if len(retries) != len(tt.wantDelays) {
					t.Fatalf("retry events = %v", rec.All())
				}
				for i, e := range retries {
					if e.Attempt != i+2 || e.Delay != tt.wantDelays[i] || e.Profile != "prov:default" || e.Model != "model-a" {
						t.Errorf("retry event %d = %+v", i, e)
					}
				}
			}
		})
	}
}

func TestNeverRetried(t *testing.T) {
	for _, code := range []llm.ErrorCode{llm.CodeFormat, llm.CodeContextOverflow, llm.CodeUnknown, llm.CodeAborted} {
		t.Run(string(code), func(t *testing.T) {
			c, rec := newClock(), &recorder{}
			a := newFake("prov", map[string][]reply{"k1": {fail(code, 400)}})
			b := newFake("prov2", nil)
			p := mustNew(t, []Target{
				{Provider: a, Profiles: []Profile{keyProfile("p:one", "k1"), keyProfile("p:two", "k2")}},
				{Provider: b, Model: modelB},
			}, testOptions(c, rec))
			o := drain(t, p, context.Background(), request(""))
			if got := llm.CodeOf(o.err); got != code {
				t.Fatalf("code = %q, want %q (%v)", got, code, o.err)
			}
			if len(a.Calls()) != 1 || len(b.Calls()) != 0 {
				t.Errorf("calls = %v / %v, want one call and no fallback", a.Calls(), b.Calls())
			}
			if len(c.Delays()) != 0 || len(rec.All()) != 0 {
				t.Errorf("delays %v, events %v; want none", c.Delays(), rec.All())
			}
			want := llm.StopError
			if code == llm.CodeAborted {
				want = llm.StopAborted
			}
			if o.msg.StopReason != want || o.msg.ErrorCode != code {
				t.Errorf("final message stop=%q code=%q", o.msg.StopReason, o.msg.ErrorCode)
			}
			if diff := cmp.Diff([]llm.EventType{"start", "error"}, o.types); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFailureAfterContentIsNotRetried(t *testing.T) {
	c, rec := newClock(), &recorder{}
	a := newFake("prov", map[string][]reply{"model-a": {failAfter("partial answer", llm.CodeOverloaded)}})
	b := newFake("prov2", nil)
	p := mustNew(t, []Target{{Provider: a}, {Provider: b, Model: modelB}}, testOptions(c, rec))
	o := drain(t, p, context.Background(), request(""))
	if llm.CodeOf(o.err) != llm.CodeOverloaded {
		t.Fatalf("err = %v, want overloaded", o.err)
	}
	if o.text() != "partial answer" || o.msg.StopReason != llm.StopError {
		t.Errorf("message text %q stop %q", o.text(), o.msg.StopReason)
	}
	if len(a.Calls()) != 1 || len(b.Calls()) != 0 {
		t.Errorf("calls %d / %d, want 1 / 0", len(a.Calls()), len(b.Calls()))
	}
	want := []llm.EventType{"start", "text_start", "text_delta", "text_delta", "text_end", "error"}
	if diff := cmp.Diff(want, o.types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// The failure still counts against the profile.
	if diff := cmp.Diff([]EventKind{EventCooldown}, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestCancelDuringBackoffReturnsAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFake("prov", map[string][]reply{"model-a": {fail(llm.CodeServerError, 500)}})
	p := mustNew(t, []Target{{Provider: f}}, Options{
		// The real sleep with an hour's backoff: only cancellation ends it.
		Backoff: Backoff{Base: time.Hour, Cap: time.Hour},
		Rand:    func() float64 { return 0.99 },
		OnEvent: func(e Event) {
			if e.Kind == EventRetry {
				cancel()
			}
		},
	})
	o := drain(t, p, ctx, request(""))
	if llm.CodeOf(o.err) != llm.CodeAborted || !errors.Is(o.err, context.Canceled) {
		t.Fatalf("err = %v, want aborted wrapping context.Canceled", o.err)
	}
	if o.msg.StopReason != llm.StopAborted {
		t.Errorf("stop reason = %q", o.msg.StopReason)
	}
	if len(f.Calls()) != 1 {
		t.Errorf("calls = %d", len(f.Calls()))
	}
}

func TestPassedDeadlineIsTimeout(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	c, rec := newClock(), &recorder{}
	f := newFake("prov", map[string][]reply{"model-a": {fail(llm.CodeServerError, 500)}})
	p := mustNew(t, []Target{{Provider: f}}, testOptions(c, rec))
	o := drain(t, p, ctx, request(""))
	if code := llm.CodeOf(o.err); code != llm.CodeTimeout || !errors.Is(o.err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want timeout wrapping the deadline", o.err)
	}
	if len(f.Calls()) != 1 || len(c.Delays()) != 0 {
		t.Errorf("calls %d, delays %v: nothing is retried once the deadline passed", len(f.Calls()), c.Delays())
	}
}

func TestConsumerBreakStopsEverything(t *testing.T) {
	c, rec := newClock(), &recorder{}
	f := newFake("prov", map[string][]reply{"model-a": {ok("one two three")}})
	p := mustNew(t, []Target{{Provider: f}}, testOptions(c, rec))
	n := 0
	for ev := range p.Stream(context.Background(), request("")) {
		n++
		if ev.Type == llm.EventTextDelta {
			break
		}
	}
	if n != 3 || len(f.Calls()) != 1 {
		t.Errorf("saw %d events, %d calls", n, len(f.Calls()))
	}
}
