package lane

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// Priority orders waiting model requests. Lower is more urgent. A
// waiting request ages: every Options.Aging it waits counts as one
// level, so a background request that has waited two Aging periods goes
// before a foreground one that has just arrived, and nothing starves.
type Priority int

// Priorities, most urgent first. The zero value is Foreground.
const (
	// Foreground: a prompt someone is watching (CLI, TUI, chat, editor).
	Foreground Priority = iota
	// Worker: a sub-agent or a worker doing a part of a larger task.
	Worker
	// Background: background agents, summaries, anything nobody waits on.
	Background
)

func (p Priority) String() string {
	switch p {
	case Foreground:
		return "foreground"
	case Worker:
		return "worker"
	case Background:
		return "background"
	}
	return "priority(" + strconv.Itoa(int(p)) + ")"
}

// Defaults of Options.
const (
	DefaultMaxRequests  = 4
	DefaultAging        = 10 * time.Second
	DefaultRequestIdle  = 5 * time.Minute
	DefaultBackoff      = time.Second
	DefaultBackoffMax   = time.Minute
	DefaultPollInterval = 250 * time.Millisecond
)

// Options configure a Scheduler. The zero value is the default
// scheduler: four concurrent model requests, 10 s aging, a 5 min request
// idle timeout, no run idle timeout, the wall clock.
type Options struct {
	// MaxRequests is the weighted cap on concurrent model requests
	// across every session of the scheduler: 0 means DefaultMaxRequests;
	// a negative value is a *ConfigError.
	MaxRequests int
	// Aging is how long a waiting request takes to gain one priority
	// level: 0 means DefaultAging; negative is a *ConfigError.
	Aging time.Duration
	// RequestIdle takes a request slot back when its holder reports no
	// progress (Slot.Touch: stream deltas) for that long, and cancels the
	// slot's context with an *IdleError: 0 means DefaultRequestIdle,
	// negative means never.
	RequestIdle time.Duration
	// RunIdle ends a session run whose holder reports no progress
	// (Run.Touch: stream deltas, tool output) for that long, releasing
	// the session to the next run: 0 or negative means never.
	RunIdle time.Duration
	// Backoff and BackoffMax shape the pause of a provider after a rate
	// limit that gave no Retry-After: Backoff doubled per consecutive
	// rate limit, at most BackoffMax, which also caps a Retry-After. 0
	// means DefaultBackoff and DefaultBackoffMax.
	Backoff, BackoffMax time.Duration
	// PollInterval is how often a run waiting for a session that another
	// process holds tries its lock again: 0 means DefaultPollInterval.
	PollInterval time.Duration
	// Clock is the source of time; nil means SystemClock.
	Clock Clock
	// Observe, when set, is told of every scheduling decision. It is
	// called with no lock held, from whichever goroutine made the
	// decision, and must not block.
	Observe func(Event)
}

// Scheduler holds the execution lanes of one process or service: the
// FIFO of every session, the global cap on concurrent model requests
// with its priority queue, and the back-off of every provider. One
// Scheduler is meant to be shared by every agent of a process (see
// Default); its methods are safe for concurrent use and it starts no
// goroutine of its own.
type Scheduler struct {
	o     Options
	clock Clock

	mu       sync.Mutex
	used     int // weight of the granted slots
	seq      uint64
	queue    waitHeap
	backoff  map[string]*backoff
	sessions map[string]*sessionLane
}

// New returns a scheduler, or a *ConfigError for a negative cap or
// aging.
func New(o Options) (*Scheduler, error) {
	switch {
	case o.MaxRequests < 0:
		return nil, &ConfigError{"MaxRequests", "must be positive (or 0 for the default of 4), got " + strconv.Itoa(o.MaxRequests)}
	case o.Aging < 0:
		return nil, &ConfigError{"Aging", "must be positive (or 0 for the default), got " + o.Aging.String()}
	case o.Backoff < 0 || o.BackoffMax < 0:
		return nil, &ConfigError{"Backoff", "must be positive (or 0 for the default)"}
	case o.PollInterval < 0:
		return nil, &ConfigError{"PollInterval", "must be positive (or 0 for the default)"}
	}
	if o.MaxRequests == 0 {
		o.MaxRequests = DefaultMaxRequests
	}
	if o.Aging == 0 {
		o.Aging = DefaultAging
	}
	if o.RequestIdle == 0 {
		o.RequestIdle = DefaultRequestIdle
	}
	if o.Backoff == 0 {
		o.Backoff = DefaultBackoff
	}
	if o.BackoffMax == 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.PollInterval == 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	return &Scheduler{o: o, clock: o.Clock, backoff: map[string]*backoff{}, sessions: map[string]*sessionLane{}}, nil
}

var (
	defaultOnce  sync.Once
	defaultSched *Scheduler
)

// Default returns the scheduler of this process, built with the zero
// Options on first use. Every agent opened without a scheduler of its
// own shares it, so one process never exceeds one cap however many
// agents it opens.
func Default() *Scheduler {
	defaultOnce.Do(func() { defaultSched, _ = New(Options{}) })
	return defaultSched
}

// Stats is a snapshot of a scheduler.
type Stats struct {
	// InUse is the weight of the granted request slots; Cap the cap.
	InUse, Cap int
	// Waiting is the number of requests waiting for a slot.
	Waiting int
	// Runs is the number of sessions with a run in progress; Queued the
	// runs waiting behind them in this process.
	Runs, Queued int
}

// Stats returns the scheduler's current state.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{InUse: s.used, Cap: s.o.MaxRequests, Waiting: s.queue.Len()}
	for _, l := range s.sessions {
		if l.holder != nil {
			st.Runs++
		}
		st.Queued += len(l.waiters)
	}
	return st
}

// Options returns the scheduler's options with the defaults filled in.
func (s *Scheduler) Options() Options { return s.o }

// EventType names a scheduling decision.
type EventType string

// Event types.
const (
	EventQueued   EventType = "queued"   // a request waits for a slot
	EventGranted  EventType = "granted"  // a request got a slot
	EventReleased EventType = "released" // a slot was given back
	EventExpired  EventType = "expired"  // a slot or run was taken back after its idle timeout
	EventBackoff  EventType = "backoff"  // a provider pauses after a rate limit
	EventRunStart EventType = "run_start"
	EventRunWait  EventType = "run_wait"
	EventRunEnd   EventType = "run_end"
)

// Event is one scheduling decision, for Options.Observe.
type Event struct {
	Type EventType
	// At is the scheduler's clock at the decision.
	At       time.Time
	Session  string
	Provider string
	Priority Priority
	// Waited is how long the request or run waited (granted, run_start).
	Waited time.Duration
	// Until is the end of a provider's back-off.
	Until time.Time
	// InUse is the weight of granted slots after the decision.
	InUse int
}

// emit calls Observe for each event; it must be called with no lock held.
func (s *Scheduler) emit(evs ...Event) {
	if s.o.Observe == nil {
		return
	}
	var now time.Time
	for _, e := range evs {
		if e.At.IsZero() {
			if now.IsZero() {
				now = s.clock.Now()
			}
			e.At = now
		}
		s.o.Observe(e)
	}
}

// ctxKey carries a run's identity through contexts.
type ctxKey struct{}

// runInfo is what a context says about the run it belongs to.
type runInfo struct {
	session  string
	priority Priority
	run      *Run
}

// WithPriority returns a context whose model requests wait at priority
// p (a sub-agent's runs use Worker, background agents Background). A
// run entered with this context takes p when its request names none.
func WithPriority(ctx context.Context, p Priority) context.Context {
	ri, _ := ctx.Value(ctxKey{}).(runInfo)
	ri.priority = p
	return context.WithValue(ctx, ctxKey{}, ri)
}

// PriorityOf returns the priority ctx carries (Foreground when none).
func PriorityOf(ctx context.Context) Priority {
	ri, _ := ctx.Value(ctxKey{}).(runInfo)
	return ri.priority
}
