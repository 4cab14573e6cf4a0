package lane

import "time"

// Clock is the scheduler's source of time. Everything in this package
// that depends on time (aging, idle timeouts, provider back-off, the
// polling of a lock held by another process) reads it through a Clock,
// so tests drive it with a fake one (see package lanetest) and never
// sleep.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f on its own goroutine once d has passed, unless
	// the returned Timer is stopped first. f must not be called with any
	// lock of the caller held.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether
	// it did.
	Stop() bool
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
