package subagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/session"
)

// Default limits (see Limits; the depth limits are in policy.go).
const (
	DefaultMaxChildren   = 20
	DefaultMaxConcurrent = 4
)

// Limits bound what one agent may delegate.
type Limits struct {
	// MaxDepth is how deep children may nest: a root agent has depth 0,
	// its children 1. Zero means DefaultMaxDepth; more than HardMaxDepth
	// is HardMaxDepth.
	MaxDepth int
	// MaxChildren bounds the live children (queued or running) of one
	// agent; a spawn beyond it is refused. Zero means DefaultMaxChildren.
	MaxChildren int
	// MaxConcurrent bounds the children of one agent running at once;
	// the others wait in FIFO order. Zero means DefaultMaxConcurrent.
	MaxConcurrent int
}

func (l Limits) normal() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	l.MaxDepth = min(l.MaxDepth, HardMaxDepth)
	if l.MaxChildren <= 0 {
		l.MaxChildren = DefaultMaxChildren
	}
	if l.MaxConcurrent <= 0 {
		l.MaxConcurrent = DefaultMaxConcurrent
	}
	return l
}

// Spec is what a Host opens a child with.
type Spec struct {
	// ID is the child's id; the host uses it as the session id.
	ID         string
	Definition Definition
	// Depth is the child's depth (its parent's plus one).
	Depth       int
	Description string
	// CallID is the parent's tool call that spawned it.
	CallID     string
	Background bool
}

// Outcome is how a child's run ended.
type Outcome struct {
	// Final is the child's last answer.
	Final string
	// Stop is the harness stop reason ("completed", "max_turns", …).
	Stop  string
	Turns int
	Usage Usage
}

// Child is one opened child session.
type Child interface {
	// Path is the child's session file ("" without one).
	Path() string
	// Run runs prompt until the child stops. ctx ending aborts it. A nil
	// error with a Stop other than "completed" is a child that ended
	// without finishing.
	Run(ctx context.Context, prompt string) (Outcome, error)
	// Close ends the child; it is called once, after Run.
	Close() error
}

// Host is what a Runtime needs from the agent it serves. coding
// implements it; tests implement it with scripted children.
type Host interface {
	// Open opens the child spec describes, with its policy restricted
	// against the parent's. It must honour ctx.
	Open(ctx context.Context, spec Spec) (Child, error)
	// Append writes an entry to the parent's log (safe from any
	// goroutine, in any phase of the parent).
	Append(e session.Entry) error
	// Announce tells the parent that a background child ended: steering
	// when it runs, a new prompt when it is idle.
	Announce(text string)
}

// Definitions is where the runtime finds the agents by name.
type Definitions interface {
	Lookup(name string) (Definition, bool)
	All() []Definition
}

// Options configure a Runtime.
type Options struct {
	Host        Host
	Definitions Definitions
	Limits      Limits
	// Depth is the depth of the agent this runtime serves (0 for a root).
	Depth int
	// Now stamps records; nil means time.Now.
	Now func() time.Time
	// NewID returns a child id; nil means 32 random hex digits.
	NewID func() string
	// OnChange is told of every change of a child's record (for the
	// terminal UI's list of running children). It must not block.
	OnChange func(Record)
	// MaySpawn, when set, refuses definitions the agent's policy does not
	// let it spawn (Agent(x) in its definition's tools).
	MaySpawn func(Definition) error
}

// Runtime runs the children of one agent: it spawns them through its
// Host, bounds their number, depth and concurrency, records them in the
// parent's log and announces background completions. Safe for
// concurrent use.
type Runtime struct {
	o      Options
	limits Limits
	slots  chan struct{}
	life   context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	children map[string]*child
	order    []string
	// spent is what ended children spent, rebuilt ones included.
	spent Usage
}

type child struct {
	rec    Record
	cancel context.CancelFunc
	done   chan struct{}
	final  string
}

// New returns a runtime; Close ends it.
func New(o Options) *Runtime {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	r := &Runtime{o: o, limits: o.Limits.normal(), children: map[string]*child{}}
	r.slots = make(chan struct{}, r.limits.MaxConcurrent)
	r.life, r.stop = context.WithCancel(context.Background())
	return r
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Limits returns the runtime's limits with defaults applied.
func (r *Runtime) Limits() Limits { return r.limits }

// Depth is the depth of the agent the runtime serves.
func (r *Runtime) Depth() int { return r.o.Depth }

// ErrClosed is returned by Spawn after Close.
var ErrClosed = errors.New("subagent: the parent agent is closed")

// LimitError says which limit refused a spawn.
type LimitError struct {
	Limit string // "depth" or "children"
	Max   int
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "depth":
		return fmt.Sprintf("sub-agents may nest at most %d deep and this agent is at that depth: do the work yourself instead of delegating it", e.Max)
	default:
		return fmt.Sprintf("this agent already has %d sub-agents queued or running, the most it may have: wait for one to finish (or cancel one with agent_cancel)", e.Max)
	}
}

// UnknownAgentError is a subagent_type no definition has.
type UnknownAgentError struct {
	Name  string
	Known []string
}

func (e *UnknownAgentError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("there is no agent %q and no agents are defined", e.Name)
	}
	return fmt.Sprintf("there is no agent %q; the agents are: %s", e.Name, strings.Join(e.Known, ", "))
}

// Rebuild reads the parent's log: children it records are known again,
// with their usage, and every child without a terminal entry (its
// process ended before it did) gets an orphaned entry now. It returns
// the records orphaned. Call it once, before the first Spawn.
func (r *Runtime) Rebuild(entries []session.Entry) ([]Record, error) {
	var orphaned []Record
	var errs []error
	for _, rec := range ReadEntries(entries) {
		if !rec.State.Terminal() {
			rec.State = Orphaned
			rec.Ended = r.o.Now().UTC()
			rec.Error = "the process running this sub-agent ended before it finished; its work, if any, is in its session"
			if err := r.o.Host.Append(rec.Entry()); err != nil {
				errs = append(errs, err)
				continue
			}
			orphaned = append(orphaned, rec)
		}
		r.mu.Lock()
		r.children[rec.ID] = &child{rec: rec}
		r.order = append(r.order, rec.ID)
		r.spent.Add(rec.Usage)
		r.mu.Unlock()
	}
	return orphaned, errors.Join(errs...)
}

// Request is one call of the agent tool.
type Request struct {
	Type        string
	Description string
	Prompt      string
	Background  bool
	CallID      string
}

// Result is what a foreground spawn returns.
type Result struct {
	Record  Record
	Outcome Outcome
}

// Spawn starts a child for req. A foreground child (req.Background
// false) is waited for, bounded by ctx: ctx ending cancels it. A
// background child runs on its own, bounded by the runtime's life (Close
// or Cancel ends it); Spawn returns its record at once and its end is
// announced through the Host. A spawn waits for a free slot when
// MaxConcurrent children run; it is refused with a *LimitError beyond
// MaxDepth or MaxChildren and an *UnknownAgentError for an unknown type.
func (r *Runtime) Spawn(ctx context.Context, req Request) (Result, error) {
	def, ok := r.o.Definitions.Lookup(req.Type)
	if !ok {
		var names []string
		for _, d := range r.o.Definitions.All() {
			names = append(names, d.Name)
		}
		sort.Strings(names)
		return Result{}, &UnknownAgentError{Name: req.Type, Known: names}
	}
	if r.o.Depth+1 > r.limits.MaxDepth {
		return Result{}, &LimitError{Limit: "depth", Max: r.limits.MaxDepth}
	}
	if r.o.MaySpawn != nil {
		if err := r.o.MaySpawn(def); err != nil {
			return Result{}, err
		}
	}
	if def.Background {
		req.Background = true
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return Result{}, ErrClosed
	}
	if r.liveLocked() >= r.limits.MaxChildren {
		r.mu.Unlock()
		return Result{}, &LimitError{Limit: "children", Max: r.limits.MaxChildren}
	}
	c := &child{done: make(chan struct{}), rec: Record{
		ID: r.o.NewID(), Agent: def.Name, Description: req.Description, CallID: req.CallID,
		Background: req.Background, Depth: r.o.Depth + 1, State: Queued, Started: r.o.Now().UTC(),
	}}
	// A background child outlives the call; a foreground one ends with it.
	base := ctx
	if req.Background {
		base = context.WithoutCancel(ctx)
	}
	cctx, cancelCause := context.WithCancelCause(base)
	cancel := func() { cancelCause(nil) }
	stopLife := context.AfterFunc(r.life, func() { cancelCause(errParentClosed) })
	c.cancel = func() { cancelCause(errCancelled) }
	r.children[c.rec.ID] = c
	r.order = append(r.order, c.rec.ID)
	r.wg.Add(1)
	r.mu.Unlock()

	spec := Spec{ID: c.rec.ID, Definition: def, Depth: c.rec.Depth, Description: req.Description, CallID: req.CallID, Background: req.Background}
	if err := r.o.Host.Append(c.rec.Entry()); err != nil {
		r.finish(c, Failed, Outcome{}, fmt.Errorf("cannot record the sub-agent in the session: %w", err), false)
		stopLife()
		cancel()
		r.wg.Done()
		return Result{Record: r.record(c)}, err
	}
	r.changed(c)
	run := func() Outcome {
		defer r.wg.Done()
		defer stopLife()
		defer cancel()
		out, state, err := r.run(cctx, c, spec, req.Prompt)
		r.finish(c, state, out, err, req.Background)
		return out
	}
	if req.Background {
		go run()
		return Result{Record: r.record(c)}, nil
	}
	out := run()
	return Result{Record: r.record(c), Outcome: out}, nil
}

// liveLocked counts queued and running children; r.mu must be held.
func (r *Runtime) liveLocked() int {
	n := 0
	for _, c := range r.children {
		if !c.rec.State.Terminal() {
			n++
		}
	}
	return n
}

// run waits for a slot, opens the child and runs it. It returns the
// terminal state.
func (r *Runtime) run(ctx context.Context, c *child, spec Spec, prompt string) (Outcome, State, error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return Outcome{}, Cancelled, cancelReason(ctx)
	}
	defer func() { <-r.slots }()
	if ctx.Err() != nil {
		return Outcome{}, Cancelled, cancelReason(ctx)
	}
	ch, err := r.o.Host.Open(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{}, Cancelled, cancelReason(ctx)
		}
		return Outcome{}, Failed, fmt.Errorf("cannot start the sub-agent: %w", err)
	}
	r.mu.Lock()
	c.rec.Path, c.rec.State = ch.Path(), Running
	r.mu.Unlock()
	r.changed(c)
	out, err := ch.Run(ctx, prompt)
	if cerr := ch.Close(); cerr != nil && err == nil {
		err = cerr
	}
	switch {
	case ctx.Err() != nil:
		return out, Cancelled, cancelReason(ctx)
	case err != nil:
		return out, Failed, err
	case out.Stop != "" && out.Stop != "completed":
		return out, Failed, fmt.Errorf("the sub-agent stopped without finishing (%s)", out.Stop)
	}
	return out, Completed, nil
}

var (
	errCancelled    = errors.New("cancelled with agent_cancel")
	errParentClosed = errors.New("cancelled: the parent agent closed")
)

func cancelReason(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c
	}
	return errors.New("cancelled: the parent stopped it")
}

// finish records c's end in the log and, for a background child that
// completed or failed, announces it.
func (r *Runtime) finish(c *child, state State, out Outcome, err error, announce bool) {
	r.mu.Lock()
	c.rec.State, c.rec.Ended = state, r.o.Now().UTC()
	c.rec.Turns, c.rec.Usage = out.Turns, out.Usage
	if state != Completed && out.Stop != "completed" {
		c.rec.Stop = out.Stop
	}
	c.final = out.Final
	if err != nil {
		c.rec.Error = err.Error()
	}
	r.spent.Add(out.Usage)
	rec := c.rec
	r.mu.Unlock()
	// The terminal entry is written whatever happens to the log, once.
	_ = r.o.Host.Append(rec.Entry())
	r.changed(c)
	if c.done != nil {
		close(c.done)
	}
	// A cancelled child is not announced: whoever cancelled it knows.
	if announce && state != Cancelled {
		r.o.Host.Announce(Announcement(rec, out.Final))
	}
}

func (r *Runtime) record(c *child) Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return c.rec
}

func (r *Runtime) changed(c *child) {
	if r.o.OnChange != nil {
		r.o.OnChange(r.record(c))
	}
}

// Cancel stops the live child id; it reports whether there was one.
// The child's terminal entry is written when it has stopped.
func (r *Runtime) Cancel(id string) (Record, bool) {
	r.mu.Lock()
	c := r.children[id]
	if c == nil {
		// Accept an unambiguous prefix, as the footer shows short ids.
		for k, v := range r.children {
			if strings.HasPrefix(k, id) && id != "" {
				if c != nil {
					c = nil
					break
				}
				c = v
			}
		}
	}
	if c == nil || c.rec.State.Terminal() || c.cancel == nil {
		var rec Record
		if c != nil {
			rec = c.rec
		}
		r.mu.Unlock()
		return rec, false
	}
	cancel, done := c.cancel, c.done
	r.mu.Unlock()
	cancel()
	<-done
	return r.record(c), true
}

// Wait blocks until the child id has ended or ctx ends, and returns its
// record and final answer.
func (r *Runtime) Wait(ctx context.Context, id string) (Record, string, error) {
	r.mu.Lock()
	c := r.children[id]
	r.mu.Unlock()
	if c == nil {
		return Record{}, "", fmt.Errorf("no sub-agent %q", id)
	}
	if c.done != nil {
		select {
		case <-c.done:
		case <-ctx.Done():
			return r.record(c), "", ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return c.rec, c.final, nil
}

// Children returns the records of every child, in spawning order.
func (r *Runtime) Children() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Record, 0, len(r.order))
	for _, id := range r.order {
		out = append(out, r.children[id].rec)
	}
	return out
}

// Active returns the live children (queued or running).
func (r *Runtime) Active() []Record {
	var out []Record
	for _, rec := range r.Children() {
		if !rec.State.Terminal() {
			out = append(out, rec)
		}
	}
	return out
}

// Spent is what the ended children spent, those the log records from
// earlier included.
func (r *Runtime) Spent() Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spent
}

// Close cancels every live child and waits until each has its terminal
// entry. Spawn fails with ErrClosed afterwards. Idempotent.
func (r *Runtime) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.stop()
	r.wg.Wait()
}

// ActiveBlock is the "active sub-agents" block a compaction of the
// parent keeps verbatim: one line per live child ("" when none).
func (r *Runtime) ActiveBlock() string {
	act := r.Active()
	if len(act) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Active sub-agents\n")
	for _, rec := range act {
		mode := "foreground"
		if rec.Background {
			mode = "background"
		}
		fmt.Fprintf(&b, "- %s (%s, %s, %s): %s\n", rec.ID, rec.Agent, mode, rec.State, rec.Description)
	}
	b.WriteString("Their results will arrive as messages; agent_cancel stops one.\n")
	return b.String()
}
