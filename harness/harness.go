// Package harness is rein's long-lived, concurrency-safe agent object. It
// composes the loop (agent), the tool chain (tool), the hooks (hook) and
// the session log (session) and adds what they lack alone: an explicit
// phase, a configuration snapshot per turn, steering, follow-up and
// next-turn queues, ordered persistence with save points, and a stop
// policy (strict mode, stall detection).
//
// The lifecycle, in one paragraph: Prompt takes the harness from idle to
// the turn phase, snapshots the configuration, persists the prompt and
// runs the loop. Every message the loop emits is persisted at its
// message_end before listeners are told. After each assistant message and
// its tool results (a save point) the writes applications queued while
// the run was busy are flushed in order and a fresh snapshot is taken, so
// configuration changes made during a turn apply from the next turn and
// never to a request in flight. The run ends by the stop policy; the
// phase returns to idle whatever happens.
//
// Every method is safe for concurrent use and may be called from
// listeners and hook handlers: the harness never holds its lock while
// calling a listener, a hook, a tool, the provider or a SystemFunc. From
// there, structural operations (Prompt, Compact, Navigate) fail with a
// busy error instead of deadlocking.
//
// See docs/harness.md for the full contract.
package harness

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// Harness is one agent: a session log and a configuration, driven by
// Prompt, Compact and Navigate (one at a time) and steered by every other
// method (at any time, from any goroutine, including from listeners and
// hooks). All methods are safe for concurrent use.
type Harness struct {
	store atomic.Pointer[storeRef] // see st; replaced by SwitchStore
	hooks *hook.Hooks
	stop  StopPolicy
	mw    []tool.Middleware
	// promptMW and guardMW are their parts of the tool chain (nil when
	// off); see ToolChain.
	promptMW, guardMW tool.Middleware
	// decisions are permission decisions waiting for the run to write
	// them before the next tool result (see logDecision); under mu.
	decisions []session.Entry
	limit     tool.LimitOptions
	timeout   time.Duration
	clock     func() time.Time
	wc        *tool.Tool    // the work_complete tool (strict mode)
	pinned    func() string // Options.Pinned
	cx        *contextState
	guard     *guard.Guard // nil with NoGuards

	gate      *permission.Gate   // nil without Options.Permissions
	approvals *permission.Broker // nil without Options.Approvals

	listeners atomic.Pointer[[]*listener]

	// mu guards everything below. It is never held while calling a
	// listener, a hook, a tool, the provider or a SystemFunc.
	mu       sync.Mutex
	cfg      config
	phase    Phase
	cancel   context.CancelFunc // cancels the running operation
	steer    []llm.Message
	follow   []llm.Message
	next     []llm.Message
	steerM   QueueMode
	followM  QueueMode
	pending  []session.Entry
	recorded recorded
	// gone are tools the log recorded that no longer exist (see
	// restoreTools); goneFresh: not yet written to the log, nor told.
	// restore holds the recorded active tools while restoring is on.
	restore    []string
	restoring  bool
	added      func(string) bool
	gone       []string
	goneLogged []string
	goneTold   bool
	conv       conv
	rec        recoverState
}

// config is the latest configuration. Values are replaced, never
// modified in place, so a copy is a consistent snapshot.
type config struct {
	provider   llm.Provider
	model      llm.Model
	system     []llm.SystemPart
	systemFunc SystemFunc
	tools      *tool.Registry
	active     []string // as configured; nil = all
	thinking   llm.ThinkingLevel
	maxTokens  int
	temp       *float64
	options    llm.Options
	offered    *tool.Registry // active tools, plus work_complete in strict mode
	names      []string       // names of the active tools (work_complete excluded)
}

// recorded is what the log's current path says about the configuration,
// so that changes are written once, before the first turn that uses them.
type recorded struct {
	provider, model string
	thinking        llm.ThinkingLevel
	tools           []string
	toolsKnown      bool
}

// New returns an idle harness. It fails with a config error when the
// provider or model is missing, the thinking level, queue modes or stop
// mode are unknown, or an active tool does not exist.
func New(o Options) (*Harness, error) {
	const op = "new"
	if o.Provider == nil {
		return nil, errorf(CodeConfig, op, "no provider: set Options.Provider")
	}
	if o.Model.ID == "" {
		return nil, errorf(CodeConfig, op, "no model: set Options.Model")
	}
	if !o.Thinking.Valid() {
		return nil, errorf(CodeConfig, op, "unknown thinking level %q; use one of %v", o.Thinking, llm.ThinkingLevels())
	}
	if !o.SteeringMode.valid() || !o.FollowUpMode.valid() {
		return nil, errorf(CodeConfig, op, "unknown queue mode; use %q or %q", QueueOneAtATime, QueueAll)
	}
	switch o.Stop.Mode {
	case "", Interactive, Strict:
	default:
		return nil, errorf(CodeConfig, op, "unknown stop mode %q; use %q or %q", o.Stop.Mode, Interactive, Strict)
	}
	mw := o.Middleware
	systemFunc := o.SystemFunc
	var g *guard.Guard
	var promptMW, guardMW tool.Middleware
	if o.Prompt != nil {
		promptMW = o.Prompt.Middleware()
		if systemFunc == nil {
			systemFunc = promptSystem(o.Prompt)
		}
	}
	if !o.NoGuards {
		g = o.Guard
		if g == nil {
			var names []string
			if o.Tools != nil {
				names = o.Tools.Names()
			}
			g = guard.New(guard.Options{Config: o.GuardConfig, Workdir: o.Limit.Workdir, Tools: names})
		}
		guardMW = g.Middleware()
	}
	cx, err := newContextState(&o)
	if err != nil {
		return nil, &Error{Code: CodeConfig, Op: op, Err: err}
	}
	h := &Harness{cx: cx, guard: g,
		hooks: o.Hooks, stop: o.Stop, mw: mw, promptMW: promptMW, guardMW: guardMW,
		limit: o.Limit, timeout: o.ToolTimeout, clock: o.Clock, pinned: o.Pinned,
		phase: PhaseIdle, steerM: orDefault(o.SteeringMode), followM: orDefault(o.FollowUpMode),
	}
	if h.clock == nil {
		h.clock = time.Now
	}
	if h.hooks == nil {
		h.hooks = hook.New()
	}
	store := o.Store
	if store == nil {
		store = NewMemoryStore(h.clock)
	}
	h.store.Store(&storeRef{store})
	if o.Stop.Mode == Strict {
		h.wc = workCompleteTool()
	}
	h.newGate(o)
	h.cfg = config{
		provider: o.Provider, model: o.Model, system: o.System, systemFunc: systemFunc,
		thinking: o.Thinking, maxTokens: o.MaxTokens, temp: cloneFloat(o.Temperature), options: cloneOptions(o.StreamOptions),
	}
	if err := h.setTools(&h.cfg, o.Tools, o.ActiveTools); err != nil {
		return nil, wrap(op, CodeConfig, err)
	}
	h.recorded = recordedFrom(h.st().Context())
	if o.ActiveTools == nil && h.recorded.toolsKnown {
		h.restore, h.restoring, h.goneLogged, h.added = h.recorded.tools, true, h.loggedGone(), o.AddedTools
		if err := h.restoreLocked(&h.cfg, o.Tools); err != nil {
			return nil, wrap(op, CodeConfig, err)
		}
	}
	if o.Prompt != nil {
		h.Subscribe(refreshOnCompaction(o.Prompt))
	}
	h.restoreFromLog()
	return h, nil
}

func orDefault(m QueueMode) QueueMode {
	if m == "" {
		return QueueOneAtATime
	}
	return m
}

func recordedFrom(c session.Context) recorded {
	return recorded{provider: c.Provider, model: c.Model, thinking: c.Thinking, tools: c.ActiveTools, toolsKnown: c.ActiveTools != nil}
}

// Phase returns the current phase. Safe to call from listeners.
func (h *Harness) Phase() Phase {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.phase
}

// Store returns the session store. Its reads show persisted entries only,
// never the writes still pending.
func (h *Harness) Store() Store { return h.st() }

// storeRef holds the store, so that SwitchStore can replace it while
// other goroutines read it.
type storeRef struct{ s Store }

// st returns the current store.
func (h *Harness) st() Store { return h.store.Load().s }

// SwitchStore makes s the session log from now on, as when a session is
// forked and the conversation continues in the fork: the next prompt
// continues from s's leaf, and the configuration changes s's path does
// not show are written before it. It needs the harness idle (else a busy
// error). Writes still pending go to the old store first; the old store
// is otherwise left as it is, and closing it is the caller's. A nil s is
// a config error.
func (h *Harness) SwitchStore(s Store) error {
	const op = "switch_store"
	if s == nil {
		return errorf(CodeConfig, op, "no store")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.phase != PhaseIdle {
		return &Error{Code: CodeBusy, Op: op, Err: errBusy(h.phase)}
	}
	if err := h.flushLocked(); err != nil {
		return err
	}
	h.store.Store(&storeRef{s})
	h.conv = conv{}
	h.recorded = recordedFrom(s.Context())
	h.switchRecoveryLocked(s)
	h.forgetReads()
	return nil
}

// Hooks returns the hooks: those given to New, or an empty set New made.
// Handlers may be added and removed at any time.
func (h *Harness) Hooks() *hook.Hooks { return h.hooks }

// begin starts a structural operation: it fails fast with a busy error
// unless the harness is idle, and otherwise sets the phase before
// anything can block. The returned context is cancelled by Abort and by
// the returned function; end must be called (deferred) whatever happens.
func (h *Harness) begin(ctx context.Context, op string, p Phase) (context.Context, context.CancelFunc, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.phase != PhaseIdle {
		return nil, nil, &Error{Code: CodeBusy, Op: op, Err: errBusy(h.phase)}
	}
	h.phase = p
	ctx, h.cancel = context.WithCancel(ctx)
	return ctx, h.cancel, nil
}

// end flushes the pending writes and returns to idle. It runs on every
// path out of an operation, panics included.
func (h *Harness) end() error {
	err := h.flush()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel != nil {
		h.cancel()
		h.cancel = nil
	}
	h.phase = PhaseIdle
	return err
}

type busyError Phase

func (e busyError) Error() string {
	return "the harness is busy (phase " + string(e) + "); wait for the current operation to end, or steer, follow up or abort it"
}

func errBusy(p Phase) error { return busyError(p) }
