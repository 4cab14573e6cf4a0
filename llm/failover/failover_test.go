package failover

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
)

func TestAuthRotatesAndCoolsDown(t *testing.T) {
	c, rec := newClock(), &recorder{}
	f := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeAuth, 401)}})
	p := mustNew(t, []Target{{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}}},
		testOptions(c, rec))
	o := drain(t, p, context.Background(), request(""))
	if o.err != nil {
		t.Fatal(o.err)
	}
	if diff := cmp.Diff([]string{"k1", "k2"}, keys(f.Calls())); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]EventKind{EventCooldown, EventRotate}, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	cd := rec.Of(EventCooldown)[0]
	want := Event{Kind: EventCooldown, Provider: "prov", Profile: "prov:one", Reason: llm.CodeAuth,
		Delay: 5 * time.Minute, Until: c.Now().Add(5 * time.Minute), Scope: "profile"}
	if diff := cmp.Diff(want, cd); diff != "" {
		t.Errorf("cooldown event (-want +got):\n%s", diff)
	}
	if r := rec.Of(EventRotate)[0]; r.From != "prov:one" || r.Profile != "prov:two" || r.Reason != llm.CodeAuth {
		t.Errorf("rotate event = %+v", r)
	}
	// The next request goes straight to the healthy profile.
	drain(t, p, context.Background(), request(""))
	if diff := cmp.Diff([]string{"k1", "k2", "k2"}, keys(f.Calls())); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	// After the cooldown the first profile is healthy again but has more
	// failures, so the second stays first.
	c.Advance(5 * time.Minute)
	drain(t, p, context.Background(), request(""))
	if got := keys(f.Calls())[3]; got != "k2" {
		t.Errorf("after cooldown the key used is %q, want k2", got)
	}
}

func TestBillingFallsBackToNextModel(t *testing.T) {
	c, rec := newClock(), &recorder{}
	a := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeBilling, 402)}})
	b := newFake("prov2", nil)
	p := mustNew(t, []Target{
		{Provider: a, Model: modelA, Profiles: []Profile{keyProfile("prov:one", "k1")}},
		{Provider: b, Model: modelB, Profiles: []Profile{keyProfile("prov2:main", "kb")}},
	}, testOptions(c, rec))
	o := drain(t, p, context.Background(), request(""))
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.text() != "hello from prov2" || o.msg.Model != "model-b" {
		t.Errorf("reply %q from %q", o.text(), o.msg.Model)
	}
	if diff := cmp.Diff([]call{{Model: "model-b", Key: "kb"}}, b.Calls()); diff != "" {
		t.Errorf("fallback calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]EventKind{EventCooldown, EventFallback}, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	fb := rec.Of(EventFallback)[0]
	if fb.From != "prov/model-a" || fb.Model != "model-b" || fb.Provider != "prov2" || fb.Reason != llm.CodeBilling {
		t.Errorf("fallback event = %+v", fb)
	}
	if cd := rec.Of(EventCooldown)[0]; cd.Delay != time.Hour || cd.Scope != "profile" {
		t.Errorf("billing cooldown = %+v", cd)
	}
}

func TestModelNotFoundFallsBack(t *testing.T) {
	c, rec := newClock(), &recorder{}
	a := newFake("prov", map[string][]reply{"model-a": {fail(llm.CodeModelNotFound, 404)}})
	b := newFake("prov2", nil)
	p := mustNew(t, []Target{{Provider: a}, {Provider: b, Model: modelB}}, testOptions(c, rec))
	if o := drain(t, p, context.Background(), request("")); o.err != nil || o.msg.Model != "model-b" {
		t.Fatalf("err %v model %q", o.err, o.msg.Model)
	}
	if diff := cmp.Diff([]EventKind{EventFallback}, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestOverloadExhaustedFallsBackWithoutRotating(t *testing.T) {
	c, rec := newClock(), &recorder{}
	over := fail(llm.CodeOverloaded, 529)
	a := newFake("prov", map[string][]reply{"k1": {over, over}})
	b := newFake("prov2", nil)
	o := testOptions(c, rec)
	o.Backoff.MaxAttempts = 2
	p := mustNew(t, []Target{
		{Provider: a, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}},
		{Provider: b, Model: modelB},
	}, o)
	if out := drain(t, p, context.Background(), request("")); out.err != nil {
		t.Fatal(out.err)
	}
	if diff := cmp.Diff([]string{"k1", "k1"}, keys(a.Calls())); diff != "" {
		t.Errorf("primary keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]EventKind{EventRetry, EventCooldown, EventFallback}, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if cd := rec.Of(EventCooldown)[0]; cd.Scope != "model" || cd.Model != "model-a" || cd.Delay != 30*time.Second {
		t.Errorf("overload cooldown = %+v", cd)
	}
}

func TestExhaustedErrorSaysWhatWasTried(t *testing.T) {
	c, rec := newClock(), &recorder{}
	a := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeAuth, 401)}, "k2": {fail(llm.CodeBilling, 402)}})
	b := newFake("prov2", map[string][]reply{"model-b": {fail(llm.CodeRateLimit, 429).retryAfter(time.Hour)}})
	p := mustNew(t, []Target{
		{Provider: a, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}},
		{Provider: b, Model: modelB},
	}, testOptions(c, rec))
	o := drain(t, p, context.Background(), request(""))
	var fe *Error
	if !errors.As(o.err, &fe) || !fe.Exhausted {
		t.Fatalf("err = %v, want an exhausted *failover.Error", o.err)
	}
	want := []Attempt{
		{Provider: "prov", Model: "model-a", Profile: "prov:one", Reason: llm.CodeAuth, Tries: 1, Message: "prov: auth (HTTP 401): auth from server"},
		{Provider: "prov", Model: "model-a", Profile: "prov:two", Reason: llm.CodeBilling, Tries: 1, Message: "prov: billing (HTTP 402): billing from server"},
		{Provider: "prov2", Model: "model-b", Profile: "prov2:default", Reason: llm.CodeRateLimit, Tries: 1, Message: "prov2: rate_limit (HTTP 429): rate_limit from server"},
	}
	if diff := cmp.Diff(want, fe.Attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if llm.CodeOf(o.err) != llm.CodeRateLimit || !errors.Is(o.err, llm.ErrRateLimit) {
		t.Errorf("code of final error = %q", llm.CodeOf(o.err))
	}
	for _, s := range []string{"prov:one", "prov:two", "prov2:default", "model-a", "model-b", "auth", "billing", "rate_limit"} {
		if !strings.Contains(o.err.Error(), s) || !strings.Contains(o.msg.ErrorMessage, s) {
			t.Errorf("final error does not mention %q: %v", s, o.err)
		}
	}
	if o.msg.StopReason != llm.StopError || o.msg.ErrorCode != llm.CodeRateLimit {
		t.Errorf("final message stop=%q code=%q", o.msg.StopReason, o.msg.ErrorCode)
	}
	if got := rec.Kinds(); got[len(got)-1] != EventExhausted {
		t.Errorf("last event = %v, want exhausted", got)
	}
}

func TestAllCoolingTriesSoonestExpiring(t *testing.T) {
	c, rec := newClock(), &recorder{}
	o := testOptions(c, rec)
	o.Backoff.MaxAttempts = 1
	f := newFake("prov", map[string][]reply{
		"k1": {fail(llm.CodeAuth, 401)},      // 5m cooldown
		"k2": {fail(llm.CodeRateLimit, 429)}, // 1m cooldown
	})
	p := mustNew(t, []Target{{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}}}, o)
	if out := drain(t, p, context.Background(), request("")); out.err == nil {
		t.Fatal("first request succeeded")
	}
	c.Advance(10 * time.Second)
	out := drain(t, p, context.Background(), request(""))
	if out.err != nil {
		t.Fatal(out.err)
	}
	if diff := cmp.Diff([]string{"k1", "k2", "k2"}, keys(f.Calls())); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	// The success cleared the second profile's cooldown.
	cands, healthy := p.state.candidates([]string{"prov:one", "prov:two"}, "prov/model-a", "", c.Now())
	if healthy != 1 || cands[0].id != "prov:two" {
		t.Errorf("order after success = %+v (healthy %d)", cands, healthy)
	}
}

func TestCoolingTargetIsSkippedForHealthyFallback(t *testing.T) {
	c, rec := newClock(), &recorder{}
	o := testOptions(c, rec)
	o.Backoff.MaxAttempts = 1
	a := newFake("prov", map[string][]reply{"model-a": {fail(llm.CodeRateLimit, 429)}})
	b := newFake("prov2", nil)
	p := mustNew(t, []Target{{Provider: a}, {Provider: b, Model: modelB}}, o)
	drain(t, p, context.Background(), request(""))
	drain(t, p, context.Background(), request(""))
	if len(a.Calls()) != 1 || len(b.Calls()) != 2 {
		t.Errorf("calls primary %d fallback %d, want 1 and 2", len(a.Calls()), len(b.Calls()))
	}
	fbs := rec.Of(EventFallback)
	if len(fbs) != 2 || fbs[1].Reason != llm.CodeRateLimit || fbs[1].From != "prov/model-a" {
		t.Errorf("fallback events = %+v", fbs)
	}
}

func TestCooldownGrowsAndIsCapped(t *testing.T) {
	c, rec := newClock(), &recorder{}
	o := testOptions(c, rec)
	o.Backoff.MaxAttempts = 1
	o.Cooldowns = map[llm.ErrorCode]Cooldown{llm.CodeRateLimit: {Base: time.Minute, Max: 4 * time.Minute}}
	f := newFake("prov", map[string][]reply{"model-a": {
		fail(llm.CodeRateLimit, 429), fail(llm.CodeRateLimit, 429), fail(llm.CodeRateLimit, 429),
		fail(llm.CodeRateLimit, 429), fail(llm.CodeRateLimit, 429).retryAfter(20 * time.Second),
	}})
	p := mustNew(t, []Target{{Provider: f}}, o)
	for range 4 {
		drain(t, p, context.Background(), request(""))
		c.Advance(time.Hour)
	}
	// A Retry-After longer than the computed cooldown wins.
	o2 := o
	o2.Cooldowns = map[llm.ErrorCode]Cooldown{llm.CodeRateLimit: {Base: time.Second, Max: time.Second}}
	p2 := mustNew(t, []Target{{Provider: f}}, o2)
	drain(t, p2, context.Background(), request(""))
	var got []time.Duration
	for _, e := range rec.Of(EventCooldown) {
		got = append(got, e.Delay)
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 4 * time.Minute, 20 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cooldowns (-want +got):\n%s", diff)
	}
	// A success resets the count: the next failure starts from the base.
	f.byKey["model-a"] = []reply{ok("x"), fail(llm.CodeRateLimit, 429)}
	c.Advance(time.Hour)
	drain(t, p, context.Background(), request(""))
	drain(t, p, context.Background(), request(""))
	if e := rec.Of(EventCooldown); e[len(e)-1].Delay != time.Minute {
		t.Errorf("cooldown after success = %v, want 1m", e[len(e)-1].Delay)
	}
}

func TestRateLimitCooldownIsModelScoped(t *testing.T) {
	c, rec := newClock(), &recorder{}
	f := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeRateLimit, 429)}})
	p := mustNew(t, []Target{{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}}},
		testOptions(c, rec))
	other := request("")
	other.Model = llm.Model{ID: "model-x", Provider: "prov"}

	drain(t, p, context.Background(), request("")) // k1 429 on model-a, rotates to k2
	drain(t, p, context.Background(), other)       // k1 is fine on model-x
	drain(t, p, context.Background(), request("")) // k1 still cooling on model-a
	want := []call{{Model: "model-a", Key: "k1"}, {Model: "model-a", Key: "k2"}, {Model: "model-x", Key: "k1"}, {Model: "model-a", Key: "k2"}}
	if diff := cmp.Diff(want, f.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if len(c.Delays()) != 0 {
		t.Errorf("slept %v; a rate limit with another profile available rotates at once", c.Delays())
	}
	cd := rec.Of(EventCooldown)
	if len(cd) != 1 || cd[0].Scope != "model" || cd[0].Model != "model-a" || cd[0].Delay != time.Minute {
		t.Errorf("cooldown events = %+v", cd)
	}
}

func TestPinningPerSession(t *testing.T) {
	c, rec := newClock(), &recorder{}
	o := testOptions(c, rec)
	f := newFake("prov", map[string][]reply{"k1": {ok("a"), fail(llm.CodeRateLimit, 429), ok("a"), fail(llm.CodeAuth, 401)}})
	p := mustNew(t, []Target{{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}}}, o)
	steps := []struct {
		session string
		want    []string // keys called for this request
	}{
		{"s1", []string{"k1"}},       // s1 pinned to one
		{"s2", []string{"k1", "k2"}}, // one rate-limited: s2 pinned to two
		{"", []string{"k2"}},         // one cooling
	}
	run := func(session string, want []string) {
		t.Helper()
		before := len(f.Calls())
		if out := drain(t, p, context.Background(), request(session)); out.err != nil {
			t.Fatal(out.err)
		}
		if diff := cmp.Diff(want, keys(f.Calls()[before:])); diff != "" {
			t.Errorf("session %q keys (-want +got):\n%s", session, diff)
		}
	}
	for _, s := range steps {
		run(s.session, s.want)
	}
	c.Advance(time.Hour) // one is healthy again but has more failures than two
	run("", []string{"k2"})
	run("s1", []string{"k1"}) // pinned wins over fewer failures
	run("s2", []string{"k2"})
	run("s1", []string{"k1", "k2"}) // pinned profile fails: unpinned, rotates
	run("s1", []string{"k2"})       // now pinned to two
}

func TestKeysNeverLeak(t *testing.T) {
	const secret = "sk-very-secret-key-0123456789"
	c, rec := newClock(), &recorder{}
	leaky := func(code llm.ErrorCode) reply {
		return reply{err: &llm.Error{Code: code, Status: 401, Message: "invalid api key " + secret}}
	}
	a := newFake("prov", map[string][]reply{secret: {leaky(llm.CodeRateLimit), leaky(llm.CodeAuth)}})
	b := newFake("prov2", map[string][]reply{"model-b": {leaky(llm.CodeBilling)}})
	o := testOptions(c, rec)
	o.StatePath = t.TempDir() + "/state.json"
	p := mustNew(t, []Target{
		{Provider: a, Profiles: []Profile{keyProfile("prov:main", secret)}},
		{Provider: b, Model: modelB, Profiles: []Profile{
			{ID: "prov2:broken", Key: func(context.Context) (string, error) { return "", errors.New("command printed " + secret) }},
			keyProfile("prov2:main", secret),
		}},
	}, o)
	out := drain(t, p, context.Background(), request(""))
	if out.err == nil {
		t.Fatal("expected failure")
	}
	texts := []string{out.err.Error(), out.msg.ErrorMessage}
	for _, e := range rec.All() {
		texts = append(texts, e.String(), e.Message)
	}
	var fe *Error
	if errors.As(out.err, &fe) {
		for _, a := range fe.Attempts {
			texts = append(texts, a.String(), a.Message)
		}
		texts = append(texts, fe.Err.Error())
	}
	for _, s := range texts {
		if strings.Contains(s, secret) {
			t.Errorf("key leaked: %s", s)
		}
	}
	if len(rec.All()) < 4 {
		t.Errorf("expected several events, got %v", rec.Kinds())
	}
	if !strings.Contains(out.err.Error(), "[REDACTED]") {
		t.Errorf("error does not show the redaction: %v", out.err)
	}
}

func TestRequestIsNotModified(t *testing.T) {
	c, rec := newClock(), &recorder{}
	f := newFake("prov", map[string][]reply{"k1": {fail(llm.CodeAuth, 401)}})
	p := mustNew(t, []Target{
		{Provider: f, Profiles: []Profile{keyProfile("prov:one", "k1"), keyProfile("prov:two", "k2")}},
	}, testOptions(c, rec))
	req := request("s")
	req.Options.Headers = map[string]string{"X": "1"}
	before := *req
	before.Messages = append([]llm.Message(nil), req.Messages...)
	drain(t, p, context.Background(), req)
	if diff := cmp.Diff(before, *req); diff != "" {
		t.Errorf("request changed (-before +after):\n%s", diff)
	}
	if req.Options.APIKey != "" || req.Model.ID != "model-a" {
		t.Errorf("request changed: key %q model %q", req.Options.APIKey, req.Model.ID)
	}
}

func TestCallerKeyKeptWithoutProfiles(t *testing.T) {
	f := newFake("prov", nil)
	p := mustNew(t, []Target{{Provider: f}}, Options{})
	req := request("")
	req.Options.APIKey = "caller-key"
	drain(t, p, context.Background(), req)
	if got := f.Calls()[0].Key; got != "caller-key" {
		t.Errorf("key = %q", got)
	}
}

func TestNewValidates(t *testing.T) {
	f := newFake("prov", nil)
	tests := []struct {
		name    string
		targets []Target
		want    string
	}{
		{"no targets", nil, "no targets"},
		{"no provider", []Target{{Model: modelA}}, "has no provider"},
		{"no id", []Target{{Provider: f, Profiles: []Profile{{Key: keyProfile("", "k").Key}}}}, "has no id"},
		{"no key", []Target{{Provider: f, Profiles: []Profile{{ID: "x"}}}}, "no key function"},
		{"duplicate", []Target{{Provider: f, Profiles: []Profile{keyProfile("x", "1"), keyProfile("x", "2")}}}, "appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.targets, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
