package telemetry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// SessionEntryKind is the Kind of the custom session entry holding a
// run's Record.
const SessionEntryKind = "run"

// Options configure a Telemetry.
type Options struct {
	// Store receives a record of every run; nil keeps none on disk.
	Store *Store
	// Frontend names the program driving the runs (run, chat, tui, acp,
	// http, sdk).
	Frontend string
	// Workdir is the workspace the runs work in.
	Workdir string
	// Limits are the budget of every top-level run; Info.Limits
	// overrides them per run.
	Limits Limits
	// OnWarning is called once per run when it reaches WarnAt of a limit.
	// It must not block.
	OnWarning func(Warning)
	// Tracer, when set, receives spans (see package telemetry/otel).
	Tracer Tracer
	// Logger receives failures to write records; nil discards them.
	Logger *slog.Logger
	// Clock and NewID make time and ids deterministic in tests; nil means
	// time.Now and random 16-hex-digit ids.
	Clock func() time.Time
	NewID func() string
}

// Telemetry observes the runs of one front-end. Safe for concurrent use.
type Telemetry struct {
	o Options

	mu     sync.Mutex
	limits Limits // the budget of top-level runs begun from now on
	// counted maps a session id to the last entry of its log whose
	// spend a run of this Telemetry covers (see unaccounted).
	counted map[string]string
}

// New returns a Telemetry. It starts no goroutine.
func New(o Options) *Telemetry {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Telemetry{o: o, limits: o.Limits}
}

// Limits returns the budget top-level runs begin with.
func (t *Telemetry) Limits() Limits {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limits
}

// SetLimits changes the budget of the top-level runs begun after it (a
// user raising a limit a run reached, say); a run already begun keeps its
// own. Invalid limits are an error and change nothing.
func (t *Telemetry) SetLimits(l Limits) error {
	if err := l.Validate(); err != nil {
		return err
	}
	t.mu.Lock()
	t.limits = l
	t.mu.Unlock()
	return nil
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Info describes a run as it begins.
type Info struct {
	Trigger Trigger // empty: user, or subagent inside another run
	Session string  // empty: the harness's session, when it has an id
	Agent   string
	// Queued is how long the prompt waited before the run began.
	Queued time.Duration
	// Limits, when set, replace Options.Limits for this run (per-agent
	// budgets). A child run is also held to its ancestors' limits.
	Limits *Limits
	// LimitsFrom says where Limits were set, for budget errors and
	// warnings ("the budget of agent reviewer"); "" names the flags.
	LimitsFrom string
}

// Run is one run being observed. Its methods are safe for concurrent use.
type Run struct {
	t      *Telemetry
	h      *harness.Harness
	parent *Run
	meter  *Meter
	span   RunSpan
	ctx    context.Context // the run's context, for spans
	unsub  func()

	mu     sync.Mutex
	rec    Record
	tools  map[string]ToolSpan
	ended  bool
	result *Record
}

type runKey struct{}

// RunFrom returns the run a context carries, or nil.
func RunFrom(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}

// Begin starts observing a run of h and returns the context to pass to
// h.Prompt (it carries the run to the provider wrapper and to runs begun
// inside it) and the Run, which End finishes. A run begun with a context
// that carries another run is that run's child. When the harness starts
// the run (its agent_start event) a record with outcome interrupted is
// written, which End's record replaces; a prompt refused as busy leaves
// no record.
func (t *Telemetry) Begin(ctx context.Context, h *harness.Harness, info Info) (context.Context, *Run) {
	parent := RunFrom(ctx)
	r := &Run{t: t, h: h, parent: parent}
	rec := &r.rec
	rec.Version, rec.ID, rec.Start = RecordVersion, t.o.NewID(), t.o.Clock()
	rec.Trigger, rec.Frontend, rec.Agent, rec.Workdir = info.Trigger, t.o.Frontend, info.Agent, t.o.Workdir
	rec.QueuedMS = info.Queued.Milliseconds()
	rec.Outcome = OutcomeInterrupted
	limits := t.Limits()
	if parent != nil {
		rec.Parent, rec.Depth = parent.rec.ID, parent.rec.Depth+1
		limits = Limits{}
		if rec.Trigger == "" {
			rec.Trigger = TriggerSubagent
		}
	}
	if rec.Trigger == "" {
		rec.Trigger = TriggerUser
	}
	if info.Limits != nil {
		limits = *info.Limits
	}
	if !limits.IsZero() {
		l := limits
		rec.Budget = &l
	}
	rec.Session = info.Session
	if h != nil {
		m := h.Model()
		rec.Provider, rec.Model = m.Provider, m.ID
		if rec.Session == "" {
			if s, ok := h.Store().(interface{ ID() string }); ok {
				rec.Session = s.ID()
			}
		}
	}
	var pm *Meter
	if parent != nil {
		pm = parent.meter
	}
	r.meter = NewMeter(rec.ID, limits, pm, r.warn)
	if info.Limits != nil {
		r.meter.from = info.LimitsFrom
	}
	if parent == nil && h != nil {
		if u, n := t.unaccounted(h, rec.Session); n > 0 {
			rec.Carried = &Carried{Replies: n, Usage: usageOf(u), Cost: u.Cost.Total}
			r.meter.carry(u)
		}
	}
	ctx = context.WithValue(ctx, runKey{}, r)
	if t.o.Tracer != nil {
		ctx, r.span = t.o.Tracer.StartRun(ctx, r)
	}
	r.ctx = ctx
	if h != nil {
		r.unsub = h.Subscribe(r.listen)
	}
	return ctx, r
}

// ID returns the run's id.
func (r *Run) ID() string { return r.rec.ID }

// Meter returns the run's budget meter.
func (r *Run) Meter() *Meter { return r.meter }

// Snapshot returns a copy of the record as it stands.
func (r *Run) Snapshot() Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked()
}

func (r *Run) snapshotLocked() Record {
	rec := r.rec
	rec.Tools = cloneMap(rec.Tools)
	rec.Guard = cloneMap(rec.Guard)
	rec.Permission = cloneMap(rec.Permission)
	rec.Compactions = append([]Compaction(nil), rec.Compactions...)
	rec.Fallbacks = append([]Fallback(nil), rec.Fallbacks...)
	rec.Children = append([]Child(nil), rec.Children...)
	if rec.Carried != nil {
		c := *rec.Carried
		rec.Carried = &c
	}
	rec.Usage = usageOf(r.meter.Own())
	rec.Cost = r.meter.Own().Cost.Total
	return rec
}

func cloneMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (r *Run) warn(w Warning) {
	if r.t.o.OnWarning != nil {
		r.t.o.OnWarning(w)
	}
	if r.span != nil {
		r.span.Warn(w)
	}
}

// End finishes the run with what Prompt returned: it writes the final
// record to the store and, when the harness is idle, as a "run" entry to
// the session, tells the parent run, ends the span and returns the
// record. Later calls return the same record and do nothing else.
func (r *Run) End(res harness.Result, err error) Record {
	r.mu.Lock()
	if r.ended {
		rec := *r.result
		r.mu.Unlock()
		return rec
	}
	r.ended = true
	if errors.Is(err, harness.ErrBusy) {
		r.rec.Outcome, r.rec.Stop, r.rec.Detail = OutcomeError, string(harness.StopError), err.Error()
		rec := r.snapshotLocked()
		r.result = &rec
		r.mu.Unlock()
		if r.unsub != nil {
			r.unsub()
		}
		if r.span != nil {
			r.span.End(&rec)
		}
		return rec
	}
	now := r.t.o.Clock()
	r.rec.DurationMS = now.Sub(r.rec.Start).Milliseconds()
	r.rec.Outcome = OutcomeOf(res.Stop, err)
	r.rec.Stop, r.rec.Detail = string(res.Stop), res.Detail
	if res.Stop == "" && err != nil {
		r.rec.Stop, r.rec.Detail = string(harness.StopError), err.Error()
	}
	r.rec.Turns = max(r.rec.Turns, res.Turns)
	for _, s := range r.tools {
		s.End(nil)
	}
	r.tools = nil
	rec := r.snapshotLocked()
	r.result = &rec
	r.mu.Unlock()
	if r.unsub != nil {
		r.unsub()
	}
	if r.span != nil {
		r.span.End(&rec)
	}
	r.t.write(&rec)
	if r.h != nil && r.parent == nil {
		defer r.t.markCounted(r.h, rec.Session)
	}
	if r.h != nil && r.h.Phase() == harness.PhaseIdle {
		if data, jerr := json.Marshal(&rec); jerr == nil {
			if werr := r.h.AppendEntry(session.Entry{Type: session.TypeCustom, Kind: SessionEntryKind, Data: data}); werr != nil {
				r.t.o.Logger.Warn("cannot write the run entry to the session", "run", rec.ID, "err", werr)
			}
		}
	}
	if p := r.parent; p != nil {
		total := usageOf(r.meter.Total())
		c := Child{ID: rec.ID, Agent: rec.Agent, Outcome: rec.Outcome, Usage: total, Cost: r.meter.Total().Cost.Total}
		p.mu.Lock()
		c.Late = p.ended
		p.rec.Children = append(p.rec.Children, c)
		p.rec.ChildUsage.Add(c.Usage)
		p.rec.ChildCost += c.Cost
		var amended *Record
		if p.ended {
			a := p.snapshotLocked()
			p.result, amended = &a, &a
		}
		p.mu.Unlock()
		if amended != nil {
			p.amend(amended)
		}
	}
	return rec
}

// amend writes the record of a run that had ended again, after a child
// it began (a background sub-agent) ended too: to the store, where the
// later line replaces the first, and as another "run" entry to the
// session, where the last entry of a run id is its record.
func (r *Run) amend(rec *Record) {
	r.t.write(rec)
	if r.h == nil {
		return
	}
	data, err := json.Marshal(rec)
	if err == nil {
		err = r.h.AppendEntry(session.Entry{Type: session.TypeCustom, Kind: SessionEntryKind, Data: data})
	}
	if err != nil {
		r.t.o.Logger.Warn("cannot write the amended run entry to the session", "run", rec.ID, "err", err)
	}
}

// Record returns the run's record: as it stands while the run goes on,
// then End's, amended by the children that ended after it.
func (r *Run) Record() Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.result != nil {
		rec := *r.result
		rec.Children = append([]Child(nil), rec.Children...)
		return rec
	}
	return r.snapshotLocked()
}

func (t *Telemetry) write(rec *Record) {
	if t.o.Store == nil {
		return
	}
	if err := t.o.Store.Append(rec); err != nil {
		t.o.Logger.Warn("cannot write the run record", "run", rec.ID, "err", err)
	}
}

// request notes a provider reply: model, profile, usage details.
func (r *Run) request(m *llm.Message, profile string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.Requests++
	if m != nil && m.Model != "" {
		r.rec.Provider, r.rec.Model = m.Provider, m.Model
	}
	if profile != "" {
		r.rec.Profile = profile
	}
}

func (r *Run) failoverEvent(kind, from, to, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch kind {
	case "retry":
		r.rec.Retries++
	case "fallback":
		r.rec.Fallbacks = append(r.rec.Fallbacks, Fallback{From: from, To: to, Reason: reason})
	}
}

// notes counts the notes of a tool result.
func (r *Run) notes(notes []string) {
	for _, n := range notes {
		switch {
		case strings.HasPrefix(n, "guard:"):
			r.rec.Guard = inc(r.rec.Guard, strings.TrimPrefix(n, "guard:"))
		case strings.HasPrefix(n, "permission:"):
			r.rec.Permission = inc(r.rec.Permission, strings.TrimPrefix(n, "permission:"))
		}
	}
}

func inc(m map[string]int, k string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k]++
	return m
}

// String renders the run's id and outcome.
func (r *Run) String() string { return fmt.Sprintf("run %s", r.rec.ID) }
