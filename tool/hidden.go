package tool

import "context"

type hiddenKey struct{}

// WithHidden returns ctx carrying hidden, a test of absolute paths that
// a call must not show or open (paths a deny rule covers). Tools that
// walk a tree (grep, find, ls) skip what it reports and say so in their
// result. The permission gate sets it.
func WithHidden(ctx context.Context, hidden func(abs string) bool) context.Context {
	return context.WithValue(ctx, hiddenKey{}, hidden)
}

// Hidden returns the test WithHidden put in ctx, or nil.
func Hidden(ctx context.Context) func(abs string) bool {
	h, _ := ctx.Value(hiddenKey{}).(func(string) bool)
	return h
}
