package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// plan is one compaction, ready to be summarised and written.
type plan struct {
	view      []llm.Message // the context (unmasked)
	seen      []llm.Message // the context as the model saw it (masked); nil: view
	goal      string        // the user's goal, verbatim ("": the summariser finds it)
	k         int           // view[:k] is summarised
	firstKept string        // the entry of view[k]
	tokens    int           // the estimate before
	reason    string
	focus     string
	handoff   bool
	cpt       float64
	summary   string // supplied by the caller or a hook
	read      []string
	modified  []string
}

// summarize runs before_compaction and the summarisers for p; it
// returns the summary text and the report, or a cancelled error.
func (h *Harness) summarize(ctx context.Context, p *plan, chain []compact.Summarizer) (string, CompactionReport, error) {
	rep := CompactionReport{Reason: p.reason, TokensBefore: p.tokens, Compacted: p.k, Kept: len(p.view) - p.k}
	res, err := h.hooks.RunBeforeCompaction(ctx, &hook.CompactionEvent{
		Messages: p.view, FirstKept: p.firstKept, TokensBefore: p.tokens, Summary: p.summary, Focus: p.focus,
	})
	if err != nil {
		return "", rep, err
	}
	if res.Cancel {
		return "", rep, errorf(CodeCancelled, "compact", "a before_compaction hook cancelled the compaction: %s", orNone(res.Reason))
	}
	if res.Summary != "" {
		rep.Model = "supplied"
		return h.pin(res.Summary), rep, nil
	}
	seen := p.seen
	if seen == nil {
		seen = p.view
	}
	in := compact.Input{
		Messages: seen[:p.k], Kept: p.view[p.k:], Focus: res.Focus, Handoff: p.handoff, CharsPerToken: p.cpt, Goal: p.goal,
	}
	if lu := compact.LastUser(p.view); lu >= 0 && lu < p.k {
		in.Latest = p.view[lu].Text()
	}
	start := h.clock()
	sum, err := compact.Summarize(ctx, chain, in)
	rep.Duration = h.clock().Sub(start)
	if err != nil {
		return "", rep, err
	}
	rep.Model, rep.Fallback, rep.Digest, rep.Failures, rep.Repaired, rep.Chunks = sum.Model, sum.Fallback, sum.Digest, sum.Failures, sum.Repaired, sum.Chunks
	rep.SummarizerInput, rep.Replaced = sum.InputTokens, sum.Tokens
	return h.pin(sum.Summary), rep, nil
}

// PinnedHeading introduces the pinned text at the end of a summary.
const PinnedHeading = "## Open work items (verbatim)"

// pin ends summary with the pinned text (Options.Pinned), verbatim.
func (h *Harness) pin(summary string) string {
	if h.pinned == nil {
		return summary
	}
	p := h.pinned()
	if strings.TrimSpace(p) == "" {
		return summary
	}
	return strings.TrimRight(summary, "\n") + "\n\n" + PinnedHeading + "\n" + p
}

// writeCompaction writes the compaction entry of p and its report, and
// tells listeners.
func (h *Harness) writeCompaction(ctx context.Context, p *plan, summary string, rep *CompactionReport, notify func(Event) error) (session.Entry, error) {
	read, modified := compact.Files(p.view[:p.k])
	entry, err := h.append(session.Entry{
		Type: session.TypeCompaction, Summary: summary, FirstKept: p.firstKept, TokensBefore: p.tokens,
		FilesRead: union(p.read, read), FilesModified: union(p.modified, modified),
	}, false)
	if err != nil {
		return session.Entry{}, &Error{Code: classifyStore(err), Op: "compact", Err: err}
	}
	h.forgetReads()
	if err := notify(Event{Event: agent.Event{Type: EventCompaction}, Entry: &entry}); err != nil {
		return entry, err
	}
	if data, err := json.Marshal(rep); err == nil {
		if _, err := h.append(session.Entry{Type: session.TypeCustom, Kind: KindCompactionReport, Data: data}, false); err != nil {
			return entry, &Error{Code: CodeStore, Op: "compact", Err: err}
		}
	}
	if err := notify(Event{Event: agent.Event{Type: EventAfterCompaction, Detail: rep.detail()}, Compaction: rep}); err != nil {
		return entry, err
	}
	if rep.Digest {
		return entry, notify(Event{Event: agent.Event{Type: EventContextNotice, Detail: rep.detail()}})
	}
	return entry, nil
}

// detail says in one sentence what the compaction did.
func (r *CompactionReport) detail() string {
	s := fmt.Sprintf("compacted %d messages (kept %d): about %d → %d tokens, summary by %s", r.Compacted, r.Kept, r.TokensBefore, r.TokensAfter, r.Model)
	if r.Digest {
		if len(r.Failures) > 0 {
			s += "; a digest built without a model stands for the compacted part because no summariser gave a usable summary (" + strings.Join(r.Failures, "; ") + ")"
		} else {
			s += "; a digest built without a model stands for the compacted part because no summariser is configured"
		}
		s += "; the full messages stay in the session log"
	} else if r.Fallback {
		s += " (fallback)"
	}
	return s
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// compact compacts the run's context before req is sent and reports
// whether it did. When it cannot — no cut leaves anything to summarise,
// the log lacks the message to keep from, a hook cancelled — it says so
// once (see stick) and the run goes on without compacting; only store,
// hook and context failures are errors. After such a failure it tries
// again only once the context has grown (see canCompact).
func (w *window) compact(ctx context.Context, req *llm.Request, tokens int, reason string) (bool, error) {
	h := w.r.h
	if !w.canCompact(tokens) {
		return false, nil
	}
	view := w.view(req.Messages)
	cpt := h.cx.cal.CharsPerToken(req.Model.ID)
	tok := make([]int, len(view))
	for i := range view {
		tok[i] = compact.MessageTokens(&view[i], cpt)
	}
	k, err := compact.Cut(view, tok, w.budget.Keep)
	if err != nil {
		w.stick(ctx, "cannot compact: "+err.Error(), tokens)
		return false, nil
	}
	// The summariser reads what the model saw: the masked view.
	seen, _ := w.mask.Apply(view)
	p := &plan{view: view, seen: seen, k: k, firstKept: h.entryOf(&view[k], len(view)-k), tokens: tokens, reason: reason,
		handoff: reason == "handoff", cpt: cpt, read: w.read, modified: w.modified, goal: h.goal()}
	if p.firstKept == "" {
		w.stick(ctx, "cannot compact: the log does not hold the message to keep from (a store without an Entry method, or messages the log and the run disagree on)", tokens)
		return false, nil
	}
	summary, rep, err := h.summarize(ctx, p, h.chain(w.r.snap.Provider, req.Model))
	if err != nil {
		var he *Error
		if errors.As(err, &he) && he.Code == CodeCancelled {
			w.stick(ctx, he.Err.Error(), tokens)
			return false, nil
		}
		return false, err
	}
	w.stuck = ""
	ak := w.agentIndex(k)
	summaryMsg := session.CompactionMessage(&session.Entry{Summary: summary})
	old := *w
	w.summary, w.cut, w.trust, w.mask = &summaryMsg, ak, len(req.Messages), compact.Masking{}
	_, st := w.estimate(req.Messages)
	rep.TokensAfter = st.Tokens
	entry, err := h.writeCompaction(ctx, p, summary, &rep, func(e Event) error {
		if e.Type == EventCompaction || e.Type == EventAfterCompaction || e.Type == EventContextNotice {
			return h.notify(ctx, e)
		}
		return nil
	})
	if err != nil && entry.ID == "" {
		*w = old
		return false, err
	}
	summaryMsg.Timestamp = entry.Timestamp
	w.read, w.modified = entry.FilesRead, entry.FilesModified
	if err != nil {
		w.r.fail(err)
	}
	return true, nil
}

// stick records why no compaction could run at tokens and tells the
// user once: the run goes on with masking, and compaction is tried again
// when the context has grown (see canCompact).
func (w *window) stick(ctx context.Context, why string, tokens int) {
	w.stuck, w.stuckAt = why, tokens
	w.r.tell(ctx, agent.Event{Type: EventContextNotice, Detail: why + "; the run goes on with masking, and compaction is tried again once the context has grown"})
}

// canCompact reports whether a compaction may be tried at tokens: always
// unless the last one could not run, then once the context has grown by
// half of what a compaction keeps, so that a cut that did not exist may
// exist (no compaction loop).
func (w *window) canCompact(tokens int) bool {
	return w.stuck == "" || tokens >= w.stuckAt+max(w.budget.Keep/2, 1)
}
