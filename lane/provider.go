package lane

import (
	"context"
	"errors"
	"iter"

	"github.com/reinhq/rein/llm"
)

// Middleware returns an llm.Middleware that makes every Stream call of
// the provider it wraps hold a request slot of s: the call waits in s's
// priority queue (and for the back-off of req.Model.Provider), streams
// with the slot held, touches it on every event, gives it back as soon
// as the final event arrives (or the consumer stops early) and reports
// the outcome to the provider's back-off (Scheduler.Observe).
//
// The stream stays well-formed in every case: a caller cancelled while
// waiting gets a start and an aborted error event; a stream whose slot
// was taken back after Options.RequestIdle without progress ends with a
// timeout error (llm.CodeTimeout) wrapping the *IdleError.
func Middleware(s *Scheduler) llm.Middleware {
	return func(p llm.Provider) llm.Provider { return &provider{s: s, next: p} }
}

type provider struct {
	s    *Scheduler
	next llm.Provider
}

func (p *provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		key := req.Model.Provider
		sctx, slot, err := p.s.Acquire(ctx, Request{Provider: key})
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				err = &llm.Error{Code: llm.CodeOf(ctx.Err()), Message: "cancelled while waiting for a model request slot", Err: err}
			}
			for ev, e := range llm.ErrorStream(req, err) {
				if !yield(ev, e) {
					return
				}
			}
			return
		}
		defer slot.Release()
		for ev, e := range p.next.Stream(sctx, req) {
			slot.Touch()
			if ev.Final() {
				var idle *IdleError
				if cause := context.Cause(sctx); e != nil && ctx.Err() == nil && errors.As(cause, &idle) {
					ev, e = idleFailure(ev, key, idle)
				}
				slot.Release()
				p.s.Observe(key, e)
			}
			if !yield(ev, e) {
				return
			}
		}
	}
}

// idleFailure turns the aborted end of a stream whose slot expired into
// a timeout failure.
func idleFailure(ev llm.Event, provider string, idle *IdleError) (llm.Event, error) {
	le := &llm.Error{Code: llm.CodeTimeout, Provider: provider, Message: idle.Error(), Err: idle}
	if ev.Message != nil {
		m := *ev.Message
		m.StopReason = llm.StopError
		m.ErrorCode = le.Code
		m.ErrorMessage = le.Error()
		ev.Message = &m
	}
	return ev, le
}
