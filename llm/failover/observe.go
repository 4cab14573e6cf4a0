package failover

import "context"

// EventAttempt reports, to observers only (see WithObserver), the
// provider, model and profile an attempt is about to use; Attempt counts
// the tries on that profile and model from 1. Options.OnEvent never
// receives it.
const EventAttempt EventKind = "attempt"

type observerKey struct{}

// WithObserver returns a context whose requests report to fn, besides
// Options.OnEvent: every decision, and an EventAttempt before each
// attempt. It lets a caller tie failover decisions to the request they
// belong to (a span, a run record) without a shared OnEvent. fn is called
// synchronously from the stream and must not block; observers of an
// outer context are replaced, not chained.
func WithObserver(ctx context.Context, fn func(Event)) context.Context {
	return context.WithValue(ctx, observerKey{}, fn)
}

func observerOf(ctx context.Context) func(Event) {
	fn, _ := ctx.Value(observerKey{}).(func(Event))
	return fn
}
