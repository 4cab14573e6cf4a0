package failover

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply scripts one answer of the fake provider: success with text when
// err is nil; otherwise a failure, after streaming text when text is set.
type reply struct {
	text string
	err  *llm.Error
}

func ok(text string) reply { return reply{text: text} }

func fail(code llm.ErrorCode, status int) reply {
	return reply{err: &llm.Error{Code: code, Status: status, Message: string(code) + " from server"}}
}

func failAfter(text string, code llm.ErrorCode) reply {
	return reply{text: text, err: &llm.Error{Code: code, Message: string(code) + " mid-stream"}}
}

func (r reply) retryAfter(d time.Duration) reply {
	e := *r.err
	e.RetryAfter = d
	r.err = &e
	return r
}

// call records what the fake provider was asked.
type call struct {
	Model   string
	Key     string
	Session string
}

// fake is a scripted provider: each key (or model, when keyed by model)
// has a queue of replies; an empty queue answers "ok".
type fake struct {
	name  string
	mu    sync.Mutex
	byKey map[string][]reply
	calls []call
}

func newFake(name string, script map[string][]reply) *fake {
	return &fake{name: name, byKey: script}
}

func (f *fake) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	f.mu.Lock()
	f.calls = append(f.calls, call{Model: req.Model.ID, Key: req.Options.APIKey, Session: req.Options.SessionID})
	k := req.Options.APIKey
	if _, ok := f.byKey[k]; !ok {
		k = req.Model.ID
	}
	r := ok("hello from " + f.name)
	if q := f.byKey[k]; len(q) > 0 {
		r, f.byKey[k] = q[0], q[1:]
	}
	f.mu.Unlock()
	return func(yield func(llm.Event, error) bool) {
		e := llm.NewEmitter(yield, req)
		e.Now = func() time.Time { return time.Unix(100, 0).UTC() }
		if !e.Start(llm.Message{ResponseID: "resp-" + f.name}) {
			return
		}
		if r.text != "" {
			i, _ := e.TextStart()
			for _, w := range strings.SplitAfter(r.text, " ") {
				if !e.Delta(i, w) {
					return
				}
			}
		}
		if r.err != nil {
			err := *r.err
			err.Provider = f.name
			e.Fail(&err)
			return
		}
		e.Usage().Input, e.Usage().Output = 10, 5
		e.Finish("")
	}
}

func (f *fake) Calls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// clock is a manual clock; its sleep advances time instantly and
// records the delays.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	delays []time.Duration
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.delays = append(c.delays, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

func (c *clock) Delays() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.delays...)
}

// recorder collects events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) On(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) Kinds() []EventKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var k []EventKind
	for _, e := range r.events {
		k = append(k, e.Kind)
	}
	return k
}

func (r *recorder) Of(kind EventKind) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) All() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// env bundles a clock and recorder into Options.
func testOptions(c *clock, r *recorder) Options {
	return Options{
		Now:     c.Now,
		Sleep:   c.Sleep,
		Rand:    func() float64 { return 0.5 },
		OnEvent: r.On,
	}
}

func keyProfile(id, key string) Profile {
	return Profile{ID: id, Key: func(context.Context) (string, error) { return key, nil }}
}

var modelA = llm.Model{ID: "model-a", Provider: "prov", API: llm.APIFaux, ContextWindow: 1000}
var modelB = llm.Model{ID: "model-b", Provider: "prov2", API: llm.APIFaux, ContextWindow: 1000}

func request(session string) *llm.Request {
	return &llm.Request{Model: modelA, Messages: []llm.Message{llm.UserText("hi")},
		Options: llm.Options{SessionID: session}}
}

// outcome is what a consumer saw of one stream.
type outcome struct {
	types []llm.EventType
	msg   llm.Message
	err   error
}

func (o outcome) text() string { return o.msg.Text() }

// drain reads a stream with llmtest.Drain, which checks that it is well
// formed.
func drain(t *testing.T, p llm.Provider, ctx context.Context, req *llm.Request) outcome {
	t.Helper()
	s := llmtest.Drain(t, p.Stream(ctx, req))
	o := outcome{msg: s.Message, err: s.Err}
	for _, ev := range s.Events {
		o.types = append(o.types, ev.Type)
	}
	return o
}

func keys(calls []call) []string {
	var k []string
	for _, c := range calls {
		k = append(k, c.Key)
	}
	return k
}

func models(calls []call) []string {
	var k []string
	for _, c := range calls {
		k = append(k, c.Model)
	}
	return k
}

func mustNew(t testing.TB, targets []Target, o Options) *Provider {
	t.Helper()
	p, err := New(targets, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var _ = fmt.Sprint
