package failover

import (
	"github.com/reinhq/rein/llm"
)

// result is the outcome of one request to a wrapped provider.
type result struct {
	// committed is true once an event after start reached the consumer.
	committed bool
	// stopped is true when the consumer broke out of the loop.
	stopped bool
	// err is the final error, nil on success.
	err error
	// start and final are the messages of an uncommitted failed attempt.
	start, final *llm.Message
}

// attempt streams one request. The start event is held back until the
// first content event or the done event: a failure before that is
// returned without anything reaching the consumer, so it can be retried.
// Once committed, events pass through unchanged except that keys are
// removed from a final error.
func (r *run) attempt(p llm.Provider, req *llm.Request) result {
	var res result
	var start *llm.Event
	var acc llm.Accumulator
	for ev, err := range p.Stream(r.ctx, req) {
		if !res.committed && ev.Type == llm.EventStart && err == nil {
			e := ev
			start = &e
			continue
		}
		failed := err != nil || ev.Type == llm.EventError
		if failed && err == nil {
			err = errorOf(ev.Message)
		}
		if !res.committed {
			if failed {
				res.err = err
				res.final = ev.Message
				if start != nil {
					res.start = start.Message
				}
				return res
			}
			res.committed = true
			s := r.startEvent(start, req)
			acc.Add(s)
			if !r.yield(s, nil) {
				res.stopped = true
				return res
			}
		}
		if failed {
			err = sanitize(err, r.keys)
			ev.Message = sanitizeMessage(ev.Message, r.keys)
		}
		acc.Add(ev)
		if !r.yield(ev, err) {
			res.stopped = true
			return res
		}
		if failed || ev.Type == llm.EventDone {
			res.err = err
			return res
		}
	}
	// The wrapped provider broke its contract by ending without a final
	// event. Treat it as a server error.
	res.err = &llm.Error{Code: llm.CodeServerError, Provider: req.Model.Provider,
		Message: "the stream ended without a final event"}
	if !res.committed {
		if start != nil {
			res.start = start.Message
		}
		return res
	}
	m := acc.Message()
	m.StopReason = llm.StopError
	m.ErrorCode = llm.CodeServerError
	m.ErrorMessage = res.err.Error()
	if !r.yield(llm.Event{Type: llm.EventError, Message: &m}, res.err) {
		res.stopped = true
	}
	return res
}

// startEvent returns the buffered start event, or a new one when the
// wrapped provider sent none.
func (r *run) startEvent(start *llm.Event, req *llm.Request) llm.Event {
	if start != nil {
		return *start
	}
	m := llm.Message{Role: llm.RoleAssistant, Provider: req.Model.Provider, Model: req.Model.ID,
		API: req.Model.API, Timestamp: r.p.opts.Now()}
	return llm.Event{Type: llm.EventStart, Message: &m}
}

// errorOf recovers an error from an error event that came without one.
func errorOf(m *llm.Message) error {
	if m == nil {
		return &llm.Error{Code: llm.CodeUnknown, Message: "error event without a message"}
	}
	code := m.ErrorCode
	if code == "" {
		code = llm.ClassifyText(m.ErrorMessage)
	}
	return &llm.Error{Code: code, Provider: m.Provider, Message: m.ErrorMessage}
}
