package lane

import (
	"errors"
	"fmt"
	"time"
)

// Sentinels for errors.Is.
var (
	// ErrBusy: the session already runs (or has runs queued) and the
	// caller asked not to wait. The error is a *BusyError.
	ErrBusy = errors.New("busy")
	// ErrIdle: a slot or a run made no progress for its idle timeout and
	// was taken back. The error is an *IdleError.
	ErrIdle = errors.New("idle timeout")
)

// BusyError says a session is running elsewhere. It matches ErrBusy.
type BusyError struct {
	// Session is the session key asked for.
	Session string
	// PID is the process holding it when that is another process (read
	// from the lock file), zero when it is this one.
	PID int
	// Queued is the number of runs of this process already waiting.
	Queued int
}

func (e *BusyError) Error() string {
	switch {
	case e.PID != 0:
		return fmt.Sprintf("session %s is busy: process %d is running it; wait for it or send the message as steering", e.Session, e.PID)
	case e.Queued > 0:
		return fmt.Sprintf("session %s is busy: a run is in progress and %d more are queued; wait or steer it", e.Session, e.Queued)
	}
	return fmt.Sprintf("session %s is busy: a run is in progress; wait for it or steer it", e.Session)
}

// Is matches ErrBusy.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// IdleError says a holder made no progress for Timeout and lost its
// slot or its run. It matches ErrIdle and is the cause
// (context.Cause) of the context handed out with the slot or run.
type IdleError struct {
	// What is "request" or "run".
	What string
	// Session is the session key, when known.
	Session string
	// Timeout is the idle timeout that passed.
	Timeout time.Duration
}

func (e *IdleError) Error() string {
	s := fmt.Sprintf("%s made no progress for %s and was stopped", e.What, e.Timeout)
	if e.Session != "" {
		s = "session " + e.Session + ": " + s
	}
	return s
}

// Is matches ErrIdle.
func (e *IdleError) Is(target error) bool { return target == ErrIdle }

// ConfigError is a bad option or argument; nothing was acquired.
type ConfigError struct {
	Field   string
	Problem string
}

func (e *ConfigError) Error() string { return "lane: " + e.Field + ": " + e.Problem }
