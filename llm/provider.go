package llm

import (
	"context"
	"iter"
)

// Provider streams one assistant reply for a request.
//
// Contract:
//   - The stream yields a start event first and ends with exactly one
//     final event, done or error, carrying the complete message. Nothing
//     follows the final event.
//   - The error value is nil for every event except a final error event,
//     where it is the classified cause (an *Error, or wrapping one). A
//     provider failure is never a half-formed message: the error event's
//     message has stop reason error, or aborted when ctx was cancelled.
//   - Stream must not modify req. Breaking out of the loop early releases
//     every resource the stream holds (HTTP bodies included).
//   - Implementations are safe for concurrent use.
type Provider interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]
}

// ProviderFunc adapts a function to the Provider interface.
type ProviderFunc func(ctx context.Context, req *Request) iter.Seq2[Event, error]

// Stream calls f.
func (f ProviderFunc) Stream(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return f(ctx, req)
}

// Middleware wraps a provider, as http middleware wraps a handler. A
// middleware that changes the request works on a copy.
type Middleware func(Provider) Provider

// Chain wraps p in mws; the first middleware is the outermost.
func Chain(p Provider, mws ...Middleware) Provider {
	for i := len(mws) - 1; i >= 0; i-- {
		p = mws[i](p)
	}
	return p
}

// Collect drains a stream and returns its final message together with the
// final error, if any.
func Collect(ctx context.Context, p Provider, req *Request) (Message, error) {
	var acc Accumulator
	var last error
	for ev, err := range p.Stream(ctx, req) {
		acc.Add(ev)
		if err != nil {
			last = err
		}
	}
	return acc.Message(), last
}

// ErrorStream returns a well-formed stream that fails at once with err:
// a start event followed by an error event. Providers use it for failures
// that happen before any byte is read.
func ErrorStream(req *Request, err error) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		e := NewEmitter(yield, req)
		if !e.Start(Message{}) {
			return
		}
		e.Fail(err)
	}
}
