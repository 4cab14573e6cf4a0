package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// window is the context management of one run. The loop keeps every
// message of the run in its own list (as the log does); window turns
// that list into what the model is sent: a summary in place of the
// compacted part, then the kept messages from cut on, with old tool
// output masked. It is used only on the run's goroutine.
type window struct {
	r *run
	// started: the state below was read from the log.
	started bool
	// summary stands for msgs[:cut] after a compaction in this run; nil
	// when the run did not compact (a compaction of an earlier run is
	// already in the messages the run started from).
	summary *llm.Message
	cut     int
	// trust is the index of the loop's messages from which a reply's
	// usage measures the current context (see compact.Count).
	trust int
	// mask is the masking in effect, over view positions; sent is the one
	// the last request was sent with (what its reply's usage measured).
	mask, sent compact.Masking
	// files carries the files of earlier compactions forward.
	read, modified []string
	// stuck, when set, says why the last compaction could not run, at
	// stuckAt tokens (see canCompact).
	stuck   string
	stuckAt int
	// notice is a problem found in the log, told once.
	notice string

	// Of the last request: its budget and fixed characters.
	budget compact.Budget
	fixed  int
	model  string
	// fitted is what the current attempt sent to a fallback model.
	fitted *fitted
}

// contextProvider wraps the turn's provider with context management.
func (r *run) contextProvider(p llm.Provider) llm.Provider {
	if r.cw == nil {
		r.cw = &window{r: r}
	}
	return ctxProvider{w: r.cw, inner: p}
}

type ctxProvider struct {
	w     *window
	inner llm.Provider
}

// start reads the state of the context from the log: the compaction in
// effect (usage of replies before the messages that follow it measured
// another context), and the last masking decision.
func (w *window) start(msgs []llm.Message) {
	if w.started {
		return
	}
	w.started = true
	l := w.r.h.readLogged()
	if c := l.compaction; c != nil && c.FirstKept != "" && !l.keptFound {
		w.notice = fmt.Sprintf("the compaction %s names %s as its first kept entry, which is not in the log; the context starts from its summary and the messages after it", c.ID, c.FirstKept)
	}
	if l.compaction != nil {
		w.trust = max(0, len(msgs)-l.after)
		w.read, w.modified = l.compaction.FilesRead, l.compaction.FilesModified
	}
	if l.masked {
		w.mask, w.sent = l.mask, l.mask
	}
}

// view is the conversation the model is sent, before masking.
func (w *window) view(msgs []llm.Message) []llm.Message {
	if w.summary == nil {
		return msgs[w.cut:]
	}
	v := make([]llm.Message, 0, len(msgs)-w.cut+1)
	return append(append(v, *w.summary), msgs[w.cut:]...)
}

// trustView is w.trust in view positions.
func (w *window) trustView() int {
	t := w.trust - w.cut
	if w.summary != nil {
		t++
	}
	return max(t, 0)
}

// agentIndex maps a view position to an index of the loop's messages.
func (w *window) agentIndex(v int) int {
	if w.summary != nil {
		return w.cut + v - 1
	}
	return w.cut + v
}

func (w *window) settings() compact.Settings { return w.r.h.cx.settings }

// estimate returns the masked view and its status.
func (w *window) estimate(msgs []llm.Message) ([]llm.Message, compact.Status) {
	view := w.view(msgs)
	masked, n := w.mask.Apply(view)
	cpt := w.r.h.cx.cal.CharsPerToken(w.model)
	e := compact.Count(masked, w.trustView(), w.fixed, cpt)
	if e.At >= 0 && w.sent != w.mask {
		// The measured prefix was sent with other masking: correct it by
		// the difference of the two, estimated.
		before, _ := w.sent.Apply(view[:e.At+1])
		delta := 0
		for i := 0; i <= e.At; i++ {
			if before[i].Role == llm.RoleToolResult {
				delta += compact.MessageTokens(&before[i], cpt) - compact.MessageTokens(&masked[i], cpt)
			}
		}
		e.Measured -= delta
		e.Tokens -= delta
	}
	return masked, compact.Status{Estimate: e, Budget: w.budget, Masked: n}
}

// prepare returns the messages to send for req: masked above the soft
// threshold, compacted above the hard one. Decisions are logged.
func (w *window) prepare(ctx context.Context, req *llm.Request) ([]llm.Message, error) {
	h := w.r.h
	w.start(req.Messages)
	if w.notice != "" {
		w.r.tell(ctx, agent.Event{Type: EventContextNotice, Detail: w.notice})
		w.notice = ""
	}
	s := w.settings()
	w.budget = s.BudgetFor(req.Model, req.MaxTokens)
	w.fixed = compact.FixedChars(req.System, req.Tools)
	w.model = req.Model.ID
	h.cx.mu.Lock()
	handoff := h.cx.lastWindow > 0 && w.budget.Window < h.cx.lastWindow
	h.cx.lastWindow = w.budget.Window
	h.cx.mu.Unlock()
	out, st := w.estimate(req.Messages)
	if s.Off {
		h.setStatus(st)
		return out, nil
	}
	if st.Tokens >= w.budget.Soft && !s.NoMasking {
		view := w.view(req.Messages)
		if m := compact.PlanMask(view, s.KeepTurnsOrDefault(), w.mask); m != w.mask {
			// Mask in steps worth a cache miss: a new decision changes
			// the request from its first newly masked result on.
			prev := w.mask
			w.mask = m
			o2, st2 := w.estimate(req.Messages)
			w.mask = prev
			if st.Tokens-st2.Tokens >= w.budget.Window/20 || st.Tokens >= w.budget.Hard {
				if err := w.recordMask(m); err != nil {
					return nil, err
				}
				out, st = o2, st2
			}
		}
	}
	if st.Tokens >= w.budget.Hard && w.canCompact(st.Tokens) {
		reason := "threshold"
		if handoff {
			reason = "handoff"
		}
		done, err := w.compact(ctx, req, st.Tokens, reason)
		if err != nil {
			return nil, err
		}
		out, st = w.estimate(req.Messages)
		if done && st.Tokens >= w.budget.Hard {
			w.stick(ctx, fmt.Sprintf("the context is still %d tokens after compacting, above the compaction threshold of %d: what must be kept (the latest request and its turn) is too large", st.Tokens, w.budget.Hard), st.Tokens)
		}
	}
	if st.Tokens > w.budget.Limit() {
		// Compaction could not make room: mask all tool output but the
		// last turn's before giving up.
		if m := compact.PlanMask(w.view(req.Messages), 1, w.mask); m != w.mask {
			if err := w.recordMask(m); err != nil {
				return nil, err
			}
			out, st = w.estimate(req.Messages)
			w.r.tell(ctx, agent.Event{Type: EventContextNotice, Detail: fmt.Sprintf("the context could not be compacted enough; the output of every tool call before the last turn is masked to fit (about %d tokens now)", st.Tokens)})
		}
	}
	h.setStatus(st)
	if st.Tokens > w.budget.Limit() {
		why := w.stuck
		if why == "" {
			why = "compacting and masking cannot make it fit"
		}
		return nil, &llm.Error{Code: llm.CodeContextOverflow, Provider: req.Model.Provider,
			Message: fmt.Sprintf("the request would hold about %d tokens, more than the %d the window of %s leaves after the reply reserve; %s", st.Tokens, w.budget.Limit(), req.Model.ID, why)}
	}
	return out, nil
}

// recordMask logs a masking decision and applies it.
func (w *window) recordMask(m compact.Masking) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := w.r.h.append(session.Entry{Type: session.TypeCustom, Kind: KindMask, Data: data}, false); err != nil {
		return &Error{Code: CodeStore, Op: "mask", Err: err}
	}
	w.mask = m
	w.r.h.forgetReads()
	return nil
}

// Stream implements llm.Provider.
func (p ctxProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		w := p.w
		msgs, err := w.prepare(ctx, req)
		if err != nil {
			llm.NewEmitter(yield, req).Fail(err)
			return
		}
		w.sent = w.mask
		off := w.settings().Off
		for attempt := 0; ; attempt++ {
			sub := *req
			sub.Messages = msgs
			w.fitted = nil
			if !off {
				sub.Options.OnFallback = func(ctx context.Context, m llm.Model) ([]llm.Message, error) {
					return w.fitFallback(ctx, req, m)
				}
			}
			overflow := p.stream(ctx, &sub, yield, attempt == 0 && !off, attempt > 0, off)
			if !overflow {
				return
			}
			done, err := w.compact(ctx, req, w.r.h.ContextStatus().Tokens, "overflow")
			if err != nil || !done {
				why := w.stuck
				if err != nil {
					why = err.Error()
				}
				llm.NewEmitter(yield, req).Fail(&llm.Error{Code: llm.CodeContextOverflow, Provider: req.Model.Provider,
					Message: "the request overflowed the context window and compacting failed: " + why, Err: err})
				return
			}
			msgs, _ = w.estimate(req.Messages)
			w.sent = w.mask
		}
	}
}

// stream sends one request. With retry, an overflow error that comes
// before any content is held back and reported by returning true;
// otherwise events pass through (an overflow's message says what was
// tried). Usage calibrates the estimate.
func (p ctxProvider) stream(ctx context.Context, req *llm.Request, yield func(llm.Event, error) bool, retry, again, off bool) (overflow bool) {
	var held []llm.Event
	passing := false
	for ev, err := range p.inner.Stream(ctx, req) {
		if !passing {
			if ev.Type == llm.EventStart && err == nil {
				held = append(held, ev)
				continue
			}
			if isOverflow(ev, err) {
				if retry && (p.w.fitted == nil || !p.w.fitted.overflow) {
					return true
				}
				ev, err = explainOverflow(ev, err, again, off)
			}
			passing = true
			for _, h := range held {
				if !yield(h, nil) {
					return false
				}
			}
		}
		if ev.Final() && ev.Message != nil && ev.Message.Usage != nil {
			model, sent := req.Model.ID, req.Messages
			if f := p.w.fitted; f != nil && ev.Message.Model == f.model {
				model, sent = f.model, f.msgs
			}
			ch, im := compact.RequestChars(sent, compact.FixedChars(req.System, req.Tools))
			p.w.r.h.cx.cal.Observe(model, ch, im, ev.Message.Usage.PromptTokens())
		}
		if !yield(ev, err) {
			return false
		}
	}
	for _, h := range held {
		if !yield(h, nil) {
			return false
		}
	}
	return false
}

func isOverflow(ev llm.Event, err error) bool {
	if err != nil && errors.Is(err, llm.ErrContextOverflow) {
		return true
	}
	return ev.Type == llm.EventError && ev.Message != nil && ev.Message.ErrorCode == llm.CodeContextOverflow
}

// explainOverflow adds to an overflow error what context management did.
func explainOverflow(ev llm.Event, err error, again, off bool) (llm.Event, error) {
	note := ""
	switch {
	case off:
		note = " (context management is off, so nothing was compacted; turn it on or start a new session)"
	case again:
		note = " (the context was compacted and the request retried once, and it still overflows; start a new session with a handoff, or lower the compaction thresholds)"
	default:
		return ev, err
	}
	if ev.Message != nil {
		m := *ev.Message
		m.ErrorMessage += note
		ev.Message = &m
	}
	if le := llm.AsError(err); le != nil {
		c := *le
		c.Message += note
		err = &c
	}
	return ev, err
}

// afterRun compacts after a run that ended normally with its context
// over the hard threshold, so that the next prompt starts small. A
// failure is reported as a notice; the run's result stands.
func (r *run) afterRun(ctx context.Context, stop StopReason) {
	w := r.cw
	if w == nil || !w.started || w.settings().Off || stop != StopCompleted || r.failure() != nil {
		return
	}
	if _, st := w.estimate(r.msgs); st.Tokens < w.budget.Hard {
		return
	}
	s := &r.snap
	req := &llm.Request{Model: s.Model, System: s.System, Messages: r.msgs, MaxTokens: s.MaxTokens}
	if s.Tools != nil {
		req.Tools = s.Tools.Specs()
	}
	_, st := w.estimate(r.msgs)
	if done, err := w.compact(ctx, req, st.Tokens, "after_run"); err != nil {
		r.tell(ctx, agent.Event{Type: EventContextNotice, Detail: "compacting after the run failed: " + err.Error()})
		return
	} else if !done {
		return
	}
	_, st = w.estimate(r.msgs)
	r.h.setStatus(st)
}

// tellTurnEnd reports a turn's end with the context's status.
func (r *run) tellTurnEnd(ctx context.Context, ev agent.Event) {
	e := Event{Event: ev}
	if r.cw != nil && r.cw.started {
		_, st := r.cw.estimate(r.msgs)
		r.h.setStatus(st)
		e.Context = &st
	}
	if err := r.h.notify(ctx, e); err != nil {
		r.fail(err)
	}
}
