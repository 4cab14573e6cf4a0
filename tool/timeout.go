package tool

import (
	"context"
	"errors"
	"time"

	"github.com/reinhq/rein/llm"
)

// DefaultTimeout bounds a tool call when neither the tool nor the
// middleware says otherwise.
const DefaultTimeout = 10 * time.Minute

// Timeout returns middleware that bounds every call: by the tool's own
// Timeout when set, else by def (DefaultTimeout when def is zero). A call
// that runs out of time has its context cancelled; its result becomes an
// error that keeps any partial output and says how long it ran.
// Cancellation of the run itself is not reported as a timeout.
func Timeout(def time.Duration) Middleware {
	if def <= 0 {
		def = DefaultTimeout
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, call *Call) Result {
			d := def
			if call.Tool != nil && call.Tool.Timeout != 0 {
				d = call.Tool.Timeout
			}
			if d < 0 {
				return next(ctx, call)
			}
			tctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			res := next(tctx, call)
			if ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
				res.IsError = true
				res.Content = append(res.Content, llm.Text("Tool "+call.Name+" timed out after "+d.String()+" and was stopped. Try a smaller step, or a command that finishes sooner."))
				res.Notes = append(res.Notes, "timeout")
			}
			return res
		}
	}
}
