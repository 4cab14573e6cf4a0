package tool

import "context"

// Handler executes one tool call. Handlers must be safe for concurrent
// use: the calls of a parallel batch run at the same time.
type Handler func(ctx context.Context, call *Call) Result

// Middleware wraps a handler with one concern (limits, timeouts, guards,
// permissions, hooks), as net/http middleware wraps an http.Handler.
type Middleware func(next Handler) Handler

// Chain wraps h in mws; the first middleware is the outermost, so it sees
// the call first and the result last.
func Chain(h Handler, mws ...Middleware) Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			h = mws[i](h)
		}
	}
	return h
}
