package coding

import (
	"context"
	"slices"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/subagent"
)

// Event is one event of the agent: the harness's event, and for a
// permission request (Type harness.EventPermissionRequest) the Approval
// to answer.
type Event struct {
	harness.Event
	Approval *Approval
	// Subagent is the record of the sub-agent an EventSubagent event
	// reports.
	Subagent *subagent.Record
}

// Approval is a tool call waiting for the user's answer. Every front-end
// answers it the same way, through Answer; a request no one answers
// waits until the settings' approval timeout, the run's end or Close.
type Approval struct {
	permission.Request
	// Agent names the sub-agent asking ("explore 7f3a9c0e"); "" when the
	// agent itself asks.
	Agent string
	a     *Agent
}

// Answer answers the request: allow once, allow always (the suggested
// rule is remembered in the scope the answer names), or deny with a
// reason. It fails when the request was already answered or has ended.
func (p *Approval) Answer(ans permission.Answer) error {
	return p.a.h.AnswerPermission(p.ID, ans)
}

// Subscribe calls fn with every event of the agent until the returned
// function is called. fn runs on the goroutine that produced the event,
// in order for the events of one run; it must not block for long and
// must not wait for an approval's answer (answer from another goroutine
// or later). Approval requests come from the waiting call's goroutine,
// so they may interleave with other events of a parallel batch.
//
// The agent's sub-agents (at any depth) add two kinds of events, from
// their own goroutines: their approval requests (Approval.Agent names
// the sub-agent; answer them as any other) and EventSubagent events
// reporting a child's change.
func (a *Agent) Subscribe(fn func(ctx context.Context, ev Event) error) (unsubscribe func()) {
	sub := &subscriber{fn: fn}
	a.smu.Lock()
	a.subs = append(a.subs, sub)
	a.smu.Unlock()
	unsub := a.h.Subscribe(func(ctx context.Context, ev harness.Event) error {
		out := Event{Event: ev}
		if ev.Type == harness.EventPermissionRequest && ev.Permission != nil {
			out.Approval = &Approval{Request: *ev.Permission, a: a}
		}
		return fn(ctx, out)
	})
	return func() {
		unsub()
		a.smu.Lock()
		a.subs = slices.DeleteFunc(a.subs, func(s *subscriber) bool { return s == sub })
		a.smu.Unlock()
	}
}

// subscriber is one Subscribe call.
type subscriber struct {
	fn func(ctx context.Context, ev Event) error
}
