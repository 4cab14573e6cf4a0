package harness

import (
	"context"
	"fmt"

	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
)

// Failover (package llm/failover) moves a request to a fallback model
// inside the provider. Before its first attempt on such a model it calls
// the request's Options.OnFallback, which the context layer sets to
// fitFallback: when the context is over that model's compaction
// threshold, it is compacted for that model's window — in handoff mode
// when the window is smaller than the one the request was prepared for —
// and the fallback is sent the compacted context.

// fitted is what fitFallback sent to a fallback model, so that the
// reply's usage calibrates that model with the messages it measured.
type fitted struct {
	model string
	msgs  []llm.Message
	// overflow: the context could not be made to fit the fallback; the
	// overflow error says so, and no overflow recovery runs for it (it
	// would compact for the request's own, larger window).
	overflow bool
}

// fitFallback returns the messages to send to m in place of those
// prepared for req's own model: nil when they fit m's budget, the
// context compacted for m's window otherwise. It fails with a
// context_overflow error when no compaction can make them fit, and with
// the compaction's error when the log or a hook failed.
func (w *window) fitFallback(ctx context.Context, req *llm.Request, m llm.Model) ([]llm.Message, error) {
	s := w.settings()
	if s.Off {
		return nil, nil
	}
	prev, prevModel := w.budget, w.model
	defer func() { w.budget, w.model = prev, prevModel }()
	w.budget, w.model = s.BudgetFor(m, req.MaxTokens), m.ID
	out, st := w.estimate(req.Messages)
	if st.Tokens < w.budget.Hard {
		return nil, nil
	}
	if w.canCompact(st.Tokens) {
		reason := "threshold"
		if w.budget.Window < prev.Window {
			reason = "handoff"
		}
		fr := *req
		fr.Model = m
		if _, err := w.compact(ctx, &fr, st.Tokens, reason); err != nil {
			return nil, err
		}
		out, st = w.estimate(req.Messages)
		w.sent = w.mask
	}
	if st.Tokens > w.budget.Limit() {
		why := w.stuck
		if why == "" {
			why = "what a compaction must keep verbatim (the most recent messages, tool calls with their results) is too large for it"
		}
		w.fitted = &fitted{model: m.ID, overflow: true}
		return nil, &llm.Error{Code: llm.CodeContextOverflow, Provider: m.Provider,
			Message: fmt.Sprintf("cannot fall back to %s: the request would hold about %d tokens, more than the %d its window leaves after the reply reserve; %s", m.ID, st.Tokens, w.budget.Limit(), why)}
	}
	// The fallback's messages pass the context hooks, as every request's do.
	msgs, err := w.r.h.hooks.RunContext(ctx, &hook.ContextEvent{Messages: out})
	if err != nil {
		return nil, err
	}
	w.fitted = &fitted{model: m.ID, msgs: msgs}
	return msgs, nil
}
