package telemetry

import (
	"context"
	"iter"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
)

// Provider wraps p so that every request of a run (a context from Begin)
// is checked against the run's budget before it is sent, charged to the
// run after, and traced. A request over budget is not sent: its stream
// fails at once with an *llm.Error of code llm.CodeBudget wrapping a
// *BudgetError, which ends the run (outcome budget_exhausted; what the run
// did is kept). Put it outside failover, so that one logical request is
// one check and one span, with retries and fallbacks as its events.
// Requests without a run pass through untouched (traced when a Tracer is
// set).
func (t *Telemetry) Provider(p llm.Provider) llm.Provider {
	return &provider{t: t, inner: p}
}

// Middleware is Provider as an llm.Middleware.
func (t *Telemetry) Middleware() llm.Middleware { return t.Provider }

type provider struct {
	t     *Telemetry
	inner llm.Provider
}

func (p *provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	r := RunFrom(ctx)
	tr := p.t.o.Tracer
	if r == nil && tr == nil {
		return p.inner.Stream(ctx, req)
	}
	return func(yield func(llm.Event, error) bool) {
		if r != nil {
			if err := r.check(req); err != nil {
				le := &llm.Error{Code: llm.CodeBudget, Provider: req.Model.Provider, Message: err.Error(), Err: err}
				if tr != nil {
					_, s := tr.StartChat(ctx, req)
					s.End(nil, le)
				}
				for ev, e := range llm.ErrorStream(req, le) {
					if !yield(ev, e) {
						return
					}
				}
				return
			}
		}
		var span ChatSpan
		if tr != nil {
			ctx, span = tr.StartChat(ctx, req)
		}
		var profile string
		if r != nil || span != nil {
			ctx = failover.WithObserver(ctx, func(e failover.Event) {
				switch e.Kind {
				case failover.EventAttempt:
					profile = e.Profile
					return
				case failover.EventFallback:
					if r != nil {
						r.failoverEvent(string(e.Kind), e.From, e.Provider+"/"+e.Model, string(e.Reason))
					}
				case failover.EventRetry:
					if r != nil {
						r.failoverEvent(string(e.Kind), "", "", string(e.Reason))
					}
				}
				if span != nil {
					span.Failover(e)
				}
			})
		}
		first := true
		var final *llm.Message
		var ferr error
		for ev, err := range p.inner.Stream(ctx, req) {
			if first && ev.Type != llm.EventStart && span != nil {
				first = false
				span.FirstChunk(p.t.o.Clock())
			}
			if ev.Final() {
				final, ferr = ev.Message, err
				if r != nil {
					if final != nil && final.Usage != nil {
						r.meter.Charge(*final.Usage)
					}
					r.request(final, profile)
				}
				if span != nil {
					span.End(final, ferr)
					span = nil
				}
			}
			if !yield(ev, err) {
				break
			}
		}
		if span != nil {
			span.End(final, ferr)
		}
	}
}

// check is the budget check before a request. The prompt is estimated
// only when a limit needs it.
func (r *Run) check(req *llm.Request) error {
	need := false
	for a := r.meter; a != nil; a = a.parent {
		if a.limits.InputTokens > 0 || a.limits.Cost > 0 {
			need = true
			break
		}
	}
	if !need {
		return r.meter.Check(0, 0)
	}
	prompt := estimate(req)
	cost := float64(prompt) * req.Model.Price.Input / 1e6
	return r.meter.Check(prompt, cost)
}

// estimate is the request's prompt in tokens, at compact's default ratio.
func estimate(req *llm.Request) int {
	chars, images := compact.RequestChars(req.Messages, compact.FixedChars(req.System, req.Tools))
	return compact.Tokens(chars, images, compact.DefaultCharsPerToken)
}
