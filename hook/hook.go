// Package hook is rein's typed hook system: named events at fixed points
// of a run, each with its own payload and result type, handlers
// registered in a defined order, and a reducer per event that folds the
// handlers' results into one outcome.
//
// Two reducer rules cover every event:
//
//   - Transform events (before_agent_start, context,
//     before_provider_request, before_provider_payload, tool_result) chain:
//     handlers run in order and each sees the payload as the previous
//     handlers left it.
//   - Block and cancel events (tool_call, agent_stop, before_compaction,
//     before_tree_navigation) stop at the first handler that blocks or
//     cancels; later handlers do not run. The summary that
//     before_compaction and before_tree_navigation handlers may supply
//     chains like a transform.
//
// Handlers run in descending Priority, then in registration order. A
// handler that returns an error or panics ends the event with an *Error
// naming the event and the handler; later handlers do not run.
//
// The tool_call and tool_result hooks plug into the tool chain with
// ToolMiddleware; the context and provider hooks wrap a provider with
// ProviderMiddleware. The harness runs the others itself.
//
// External command hooks declared in settings files, in the format of
// Claude Code's hooks, live in the subpackage hook/command, which
// installs them here as typed handlers.
package hook

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// EventName names a hook event.
type EventName string

// Hook events.
const (
	EventBeforeAgentStart      EventName = "before_agent_start"
	EventContext               EventName = "context"
	EventBeforeProviderRequest EventName = "before_provider_request"
	EventBeforeProviderPayload EventName = "before_provider_payload"
	EventToolCall              EventName = "tool_call"
	EventToolResult            EventName = "tool_result"
	EventBeforeCompaction      EventName = "before_compaction"
	EventBeforeTreeNavigation  EventName = "before_tree_navigation"
	EventAgentStop             EventName = "agent_stop"
)

// Code is the error code of hook failures, as harness errors report it.
const Code = "hook"

// Error reports a handler that failed (returned an error or panicked).
type Error struct {
	Event EventName
	// Handler is the registration's name (see Name), or "#n" for the n-th
	// registration of the Hooks value when it has none.
	Handler string
	Err     error
}

func (e *Error) Error() string {
	return fmt.Sprintf("hook %s: handler %s failed: %v", e.Event, e.Handler, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Code returns "hook".
func (e *Error) Code() string { return Code }

// Option configures one registration.
type Option func(*regOpts)

type regOpts struct {
	name     string
	priority int
}

// Name names the handler in errors and diagnostics.
func Name(name string) Option { return func(o *regOpts) { o.name = name } }

// Priority orders handlers: higher priorities run first; handlers of equal
// priority run in registration order. The default is zero.
func Priority(p int) Option { return func(o *regOpts) { o.priority = p } }

// Hooks holds the registered handlers of every event. The zero value is
// ready to use; a nil *Hooks has no handlers (every Run method returns the
// zero result). Safe for concurrent use: handlers may be added and removed
// while events run, including from inside a handler; a running event uses
// the handlers registered when it started.
type Hooks struct {
	mu  sync.Mutex
	seq int

	agentStart slot[BeforeAgentStartEvent, BeforeAgentStartResult]
	context    slot[ContextEvent, ContextResult]
	request    slot[ProviderRequestEvent, RequestPatch]
	payload    slot[ProviderPayloadEvent, ProviderPayloadResult]
	toolCall   slot[ToolCallEvent, ToolCallResult]
	toolResult slot[ToolResultEvent, ToolResultResult]
	compaction slot[CompactionEvent, SummaryResult]
	navigation slot[NavigationEvent, SummaryResult]
	agentStop  slot[AgentStopEvent, AgentStopResult]
}

// New returns an empty set of hooks.
func New() *Hooks { return &Hooks{} }

// Handler handles one event: it gets the payload and returns the event's
// result type. The zero result means "no change" for every event.
type Handler[P, R any] func(ctx context.Context, e *P) (R, error)

type reg[P, R any] struct {
	name     string
	priority int
	fn       Handler[P, R]
}

// slot is the handler list of one event, replaced as a whole on every
// change so that running events read it without a lock.
type slot[P, R any] struct {
	regs atomic.Pointer[[]*reg[P, R]]
}

func (s *slot[P, R]) load() []*reg[P, R] {
	if p := s.regs.Load(); p != nil {
		return *p
	}
	return nil
}

// add registers fn on s and returns the function that removes it.
func add[P, R any](h *Hooks, s *slot[P, R], fn Handler[P, R], opts []Option) func() {
	var o regOpts
	for _, opt := range opts {
		opt(&o)
	}
	h.mu.Lock()
	h.seq++
	if o.name == "" {
		o.name = fmt.Sprintf("#%d", h.seq)
	}
	r := &reg[P, R]{name: o.name, priority: o.priority, fn: fn}
	old := s.load()
	i := len(old)
	for i > 0 && old[i-1].priority < r.priority {
		i--
	}
	next := slices.Insert(slices.Clone(old), i, r)
	s.regs.Store(&next)
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			cur := s.load()
			if k := slices.Index(cur, r); k >= 0 {
				next := slices.Delete(slices.Clone(cur), k, k+1)
				s.regs.Store(&next)
			}
		})
	}
}

// has reports whether any handler is registered on s.
func has[P, R any](s *slot[P, R]) bool {
	return len(s.load()) > 0
}

// run calls the handlers of s in order, passing each result to reduce,
// until reduce reports that the event is decided or a handler fails.
func run[P, R any](ctx context.Context, event EventName, s *slot[P, R], e *P, reduce func(r *R) (stop bool)) error {
	for _, r := range s.load() {
		res, err := call(ctx, r, e)
		if err != nil {
			return &Error{Event: event, Handler: r.name, Err: err}
		}
		if reduce(&res) {
			return nil
		}
	}
	return nil
}

// call runs one handler, turning a panic into an error.
func call[P, R any](ctx context.Context, r *reg[P, R], e *P) (res R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return r.fn(ctx, e)
}
