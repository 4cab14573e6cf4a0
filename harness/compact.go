package harness

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// Context management (see package compact and docs/context.md): every
// request of a run passes through a provider layer that estimates its
// size against the model's budget, masks old tool output above the soft
// threshold, compacts above the hard threshold (also in the middle of a
// tool loop) and recovers from a context_overflow error by compacting
// and retrying once. Decisions are written to the log (a custom entry
// for masking, a compaction entry for compaction) so that a resumed or
// replayed session builds the same requests.

// Custom entry kinds the harness writes.
const (
	// KindMask records a masking decision: Data is a compact.Masking over
	// the positions of the context as built from the log at that entry.
	KindMask = "rein.context.mask"
	// KindCompactionReport follows every compaction entry the harness
	// writes: Data is a CompactionReport.
	KindCompactionReport = "rein.context.compaction"
)

// EventAfterCompaction reports a compaction that was written (after the
// compaction event); Compaction is its report.
const EventAfterCompaction agent.EventType = "after_compaction"

// EventContextNotice tells the user something about the context that
// needs no answer: a compaction that could not bring the context under
// the threshold, a summary built without a model. Detail says it.
const EventContextNotice agent.EventType = "context_notice"

// CompactionReport says what a compaction did.
type CompactionReport struct {
	// Reason is why it ran: "threshold", "overflow", "handoff", "manual"
	// or "after_run".
	Reason string `json:"reason"`
	// TokensBefore and TokensAfter are the estimates of the context
	// before and after.
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// Duration is how long the summary took.
	Duration time.Duration `json:"duration"`
	// Model wrote the summary ("digest" when none could); Fallback says a
	// later summariser of the chain (or the digest) wrote it; Digest that
	// no model did.
	Model    string `json:"model"`
	Fallback bool   `json:"fallback,omitempty"`
	Digest   bool   `json:"digest,omitempty"`
	// Failures say why the summarisers that failed failed.
	Failures []string `json:"failures,omitempty"`
	// Repaired lists identifiers the summariser lost and that were added
	// back verbatim.
	Repaired []string `json:"repaired,omitempty"`
	// Compacted and Kept count the messages summarised and kept.
	Compacted int `json:"compacted"`
	Kept      int `json:"kept"`
	// Chunks is how many parts were summarised separately.
	Chunks int `json:"chunks,omitempty"`
	// SummarizerInput is what the summariser requests held, in tokens
	// (chunks, merge, retries, the identifier repair); Replaced is the
	// size of the part summarised as the model saw it.
	SummarizerInput int `json:"summarizer_input,omitempty"`
	Replaced        int `json:"replaced,omitempty"`
}

// contextState is the harness-wide part of context management.
type contextState struct {
	settings    compact.Settings
	summarizers []compact.Summarizer
	cal         compact.Calibration

	mu         sync.Mutex
	status     compact.Status
	lastWindow int // the window of the last request, to notice a smaller one
}

func newContextState(o *Options) (*contextState, error) {
	if err := o.Context.Validate(); err != nil {
		return nil, err
	}
	return &contextState{settings: o.Context, summarizers: o.Summarizers}, nil
}

// ContextStatus returns the latest estimate of the context against its
// budget: computed before every request and at every turn end. Before
// the first request it is zero.
func (h *Harness) ContextStatus() compact.Status {
	h.cx.mu.Lock()
	defer h.cx.mu.Unlock()
	return h.cx.status
}

func (h *Harness) setStatus(s compact.Status) {
	h.cx.mu.Lock()
	h.cx.status = s
	h.cx.mu.Unlock()
}

// chain is the summarisers a compaction tries: the configured ones, then
// the session's own model.
func (h *Harness) chain(p llm.Provider, m llm.Model) []compact.Summarizer {
	out := append([]compact.Summarizer(nil), h.cx.summarizers...)
	if p != nil {
		own := compact.Model{Provider: p, Model: m}
		for _, s := range out {
			if s.Name() == own.Name() {
				return out
			}
		}
		out = append(out, own)
	}
	return out
}

// pathBack calls f with the tree entries from the store's leaf toward
// the root until f returns false. It reports false when the store cannot
// look entries up.
func (h *Harness) pathBack(f func(e *session.Entry) bool) bool {
	lookup, ok := h.st().(entryLookup)
	if !ok {
		return false
	}
	id := h.st().Leaf()
	for n := 0; id != "" && n < 1<<24; n++ {
		e, ok := lookup.Entry(id)
		if !ok || !f(&e) {
			return true
		}
		id = e.Parent
	}
	return true
}

// logged is what the log says about the context at the leaf: the
// compaction in effect, how many context messages follow it, and the
// last masking decision since.
type logged struct {
	compaction *session.Entry
	after      int
	mask       compact.Masking
	masked     bool
	// keptFound: the compaction's first kept entry is on the path.
	keptFound bool
}

func (h *Harness) readLogged() logged {
	var l logged
	h.pathBack(func(e *session.Entry) bool {
		switch e.Type {
		case session.TypeCompaction:
			if e.Summary == "" {
				return true // ignored by the context (session.IssueBadCompaction)
			}
			c := *e
			l.compaction = &c
			if c.FirstKept == "" {
				return false
			}
			// Look on for its first kept entry.
			id := c.Parent
			lookup, _ := h.st().(entryLookup)
			for n := 0; id != "" && lookup != nil && n < 1<<24; n++ {
				p, ok := lookup.Entry(id)
				if !ok {
					break
				}
				if p.ID == c.FirstKept {
					l.keptFound = true
					break
				}
				id = p.Parent
			}
			return false
		case session.TypeMessage, session.TypeBranchSummary:
			l.after++
		case session.TypeCustom:
			if e.Kind == KindMask && !l.masked {
				if json.Unmarshal(e.Data, &l.mask) == nil {
					l.masked = true
				}
			}
		}
		return true
	})
	return l
}

// entryOf returns the ID of the message entry holding m, expected to be
// the n-th (1-based) context entry from the leaf; when an application
// wrote messages of its own meanwhile, the nearest entry holding the
// same message is taken. "" when none does. The context entries are
// those after the compaction in effect and those it kept (from its first
// kept entry up to it), so a later compaction may keep from a message
// an earlier one kept.
func (h *Harness) entryOf(m *llm.Message, n int) string {
	id, near := "", -1
	k := 0
	keptFrom := "" // inside the kept range of the compaction in effect
	inKept := false
	h.pathBack(func(e *session.Entry) bool {
		switch e.Type {
		case session.TypeMessage, session.TypeBranchSummary:
			k++
			if e.Type == session.TypeMessage && sameMessage(e.Message, m) {
				if d := abs(k - n); near < 0 || d < near {
					id, near = e.ID, d
				}
				if k >= n {
					return false
				}
			}
		case session.TypeCompaction:
			if inKept || e.Summary == "" {
				return true // superseded by the one in effect, or ignored
			}
			if e.FirstKept == "" {
				return false
			}
			keptFrom, inKept = e.FirstKept, true
		}
		return !inKept || e.ID != keptFrom // stop after the kept range
	})
	return id
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sameMessage reports whether a logged message is m: same role, call
// id, time and content.
func sameMessage(a, b *llm.Message) bool {
	if a == nil || a.Role != b.Role || a.ToolCallID != b.ToolCallID || !a.Timestamp.Equal(b.Timestamp) || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		x, y := &a.Content[i], &b.Content[i]
		if x.Type != y.Type || x.Text != y.Text || x.ID != y.ID || string(x.Arguments) != string(y.Arguments) {
			return false
		}
	}
	return true
}

// forgetReads tells the guard that earlier tool results left the
// conversation (masking, a compaction): its read cache answers re-reads
// by pointing at earlier results, which must still be there.
func (h *Harness) forgetReads() {
	if h.guard != nil {
		h.guard.ForgetReads()
	}
}

// goal is the user's goal: the first message the user wrote on the
// path from the root (the briefing's goal in a session made by Handoff),
// read from the log so that every compaction, however many came before,
// carries the same words. "" when the log cannot be walked.
func (h *Harness) goal() string {
	var first *llm.Message
	h.pathBack(func(e *session.Entry) bool {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == llm.RoleUser && !compact.IsSummary(e.Message) {
			first = e.Message
		}
		return true
	})
	if first == nil {
		return ""
	}
	text := strings.TrimSpace(first.Text())
	if b, ok := strings.CutPrefix(text, HandoffPrefix); ok {
		if g := compact.GoalOf(b); g != "" {
			return g
		}
	}
	return text
}
