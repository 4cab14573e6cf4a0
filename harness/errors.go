package harness

import (
	"errors"
	"fmt"

	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
)

// Code classifies a harness failure.
type Code string

// Error codes.
const (
	// CodeBusy: a structural operation was asked for while another runs.
	CodeBusy Code = "busy"
	// CodeHook: a hook handler or an event listener failed. The state it
	// observed was committed before the error was returned.
	CodeHook Code = "hook"
	// CodeStore: the session store could not write an entry.
	CodeStore Code = "store"
	// CodeConfig: the harness configuration or an argument is invalid.
	CodeConfig Code = "config"
	// CodeProvider: the model call failed; Err is the *llm.Error.
	CodeProvider Code = "provider"
	// CodeCancelled: a hook cancelled a compaction or a navigation.
	CodeCancelled Code = "cancelled"
)

// Error is the error of every public harness method. Op names the
// operation ("prompt", "compact", "set_model"…), Err is the cause.
type Error struct {
	Code Code
	Op   string
	Err  error
}

func (e *Error) Error() string {
	switch {
	case e.Err == nil:
		return fmt.Sprintf("harness: %s", e.Code)
	case e.Op == "":
		return fmt.Sprintf("harness: %s: %v", e.Code, e.Err)
	}
	return fmt.Sprintf("harness: %s: %s: %v", e.Op, e.Code, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinels below: errors.Is(err, harness.ErrBusy) holds
// for every busy error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Err == nil && t.Op == "" && t.Code == e.Code
}

// Sentinels for errors.Is; each matches any *Error with its code.
var (
	ErrBusy      = &Error{Code: CodeBusy}
	ErrHook      = &Error{Code: CodeHook}
	ErrStore     = &Error{Code: CodeStore}
	ErrConfig    = &Error{Code: CodeConfig}
	ErrProvider  = &Error{Code: CodeProvider}
	ErrCancelled = &Error{Code: CodeCancelled}
)

func errorf(code Code, op, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Err: fmt.Errorf(format, args...)}
}

// wrap classifies err for op: a harness error keeps its code, a hook
// failure anywhere in its chain is a hook error, an llm failure a
// provider error, anything else gets def. err must not be nil.
func wrap(op string, def Code, err error) *Error {
	var he *Error
	if errors.As(err, &he) {
		if he.Op == "" {
			return &Error{Code: he.Code, Op: op, Err: he.Err}
		}
		return he
	}
	var hk *hook.Error
	if errors.As(err, &hk) {
		return &Error{Code: CodeHook, Op: op, Err: err}
	}
	var le *llm.Error
	if errors.As(err, &le) {
		return &Error{Code: CodeProvider, Op: op, Err: err}
	}
	return &Error{Code: def, Op: op, Err: err}
}
