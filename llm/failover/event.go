package failover

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/reinhq/rein/llm"
)

// EventKind names a failover decision.
type EventKind string

// Event kinds.
const (
	// EventRetry: the same profile and model are tried again after Delay.
	EventRetry EventKind = "retry"
	// EventRotate: the next profile of the same target is tried; From
	// names the profile given up.
	EventRotate EventKind = "rotate"
	// EventCooldown: Profile was put in cooldown for Delay, until Until,
	// because of Reason (on Model only when the cooldown is model-scoped).
	EventCooldown EventKind = "cooldown"
	// EventFallback: the next target (Provider, Model) is tried; From
	// names the provider/model given up.
	EventFallback EventKind = "fallback"
	// EventExhausted: every planned attempt failed; Message lists them.
	EventExhausted EventKind = "exhausted"
	// EventState: the cooldown state file could not be read or written;
	// Message says why. The Provider keeps working from memory.
	EventState EventKind = "state"
)

// Event reports one failover decision. It never holds key material and is
// safe to log.
type Event struct {
	Kind     EventKind
	Provider string
	Model    string
	// Profile is the id of the credential profile concerned, or
	// "<provider>:default" for a target without profiles.
	Profile string
	// Reason is the error code that caused the decision.
	Reason llm.ErrorCode
	// Attempt counts attempts on the current profile and model, from 1.
	Attempt int
	// Delay is the backoff before a retry, or the length of a cooldown.
	Delay time.Duration
	// Until is when a cooldown ends.
	Until time.Time
	// Scope is "model" for a model-scoped cooldown and "profile" for one
	// covering the key on every model.
	Scope string
	// From names what was given up: a profile id for rotate, a
	// provider/model for fallback.
	From string
	// Message is a redacted explanation (the provider's error text).
	Message string
}

// String renders the event on one line.
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%s", k, v)
		}
	}
	field("provider", e.Provider)
	field("model", e.Model)
	field("profile", e.Profile)
	field("reason", string(e.Reason))
	if e.Attempt > 0 {
		field("attempt", fmt.Sprint(e.Attempt))
	}
	if e.Delay > 0 {
		field("delay", e.Delay.String())
	}
	if !e.Until.IsZero() {
		field("until", e.Until.UTC().Format(time.RFC3339))
	}
	field("scope", e.Scope)
	field("from", e.From)
	if e.Message != "" {
		fmt.Fprintf(&b, " message=%q", e.Message)
	}
	return b.String()
}

// LogValue renders the event as a group of slog attributes.
func (e Event) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("kind", string(e.Kind))}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, slog.String(k, v))
		}
	}
	add("provider", e.Provider)
	add("model", e.Model)
	add("profile", e.Profile)
	add("reason", string(e.Reason))
	if e.Attempt > 0 {
		attrs = append(attrs, slog.Int("attempt", e.Attempt))
	}
	if e.Delay > 0 {
		attrs = append(attrs, slog.Duration("delay", e.Delay))
	}
	if !e.Until.IsZero() {
		attrs = append(attrs, slog.Time("until", e.Until))
	}
	add("scope", e.Scope)
	add("from", e.From)
	add("message", e.Message)
	return slog.GroupValue(attrs...)
}

// Attempt records one failed try: which profile on which model, and why.
type Attempt struct {
	Provider string
	Model    string
	Profile  string
	Reason   llm.ErrorCode
	// Tries counts the requests sent with this profile and model.
	Tries int
	// Message is the redacted error text of the last try.
	Message string
}

func (a Attempt) String() string {
	s := fmt.Sprintf("%s/%s with profile %s: %s", a.Provider, a.Model, a.Profile, a.Reason)
	if a.Tries > 1 {
		s += fmt.Sprintf(" after %d tries", a.Tries)
	}
	return s
}

// Error is the final error of a request that failed after more than one
// attempt, or after every planned attempt. It lists what was tried and
// wraps the last cause, so errors.As finds the last *llm.Error and
// llm.CodeOf reports its code.
type Error struct {
	Attempts []Attempt
	// Exhausted is true when every planned attempt failed, false when a
	// failure no fallback can fix stopped the request early.
	Exhausted bool
	Err       error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Exhausted {
		fmt.Fprintf(&b, "failover: every attempt failed (%d)", len(e.Attempts))
	} else {
		fmt.Fprintf(&b, "failover: stopped after %d attempts", len(e.Attempts))
	}
	for i, a := range e.Attempts {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(a.String())
	}
	if e.Err != nil {
		b.WriteString(": last error: ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }
