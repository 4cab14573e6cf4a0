package failover

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reinhq/rein/llm"
)

// run is the state of one request.
type run struct {
	p     *Provider
	ctx   context.Context
	req   *llm.Request
	yield func(llm.Event, error) bool

	keys     []string
	attempts []Attempt
	// What the last failed attempt produced, used to end the stream.
	lastErr   error
	lastStart *llm.Message
	lastFinal *llm.Message
	lastModel llm.Model
	// The messages Options.OnFallback returned for target fitTarget-1.
	fitTarget int
	fitMsgs   []llm.Message
}

// action is what to do after a profile gave up.
type action int

const (
	actDone        action = iota // the stream ended (success, committed failure, consumer stopped)
	actStop                      // a failure nothing can fix: end the stream with lastErr
	actNextProfile               // try the next planned step
	actNextTarget                // skip the rest of this target
)

func (r *run) emit(e Event) {
	e.Message = redact(e.Message, r.keys)
	r.p.opts.OnEvent(e)
	if fn := observerOf(r.ctx); fn != nil {
		fn(e)
	}
}

func (r *run) run() {
	plan := r.p.plan(r.req)
	prev := -1
	var prevStep step
	skip := -1
	for _, s := range plan {
		if s.target == skip {
			continue
		}
		if prev >= 0 {
			if s.target != prevStep.target {
				r.emit(Event{Kind: EventFallback, Provider: s.model.Provider, Model: s.model.ID, Profile: s.profile.ID,
					Reason: llm.CodeOf(r.lastErr), From: modelKey(prevStep.model)})
			} else {
				r.emit(Event{Kind: EventRotate, Provider: s.model.Provider, Model: s.model.ID, Profile: s.profile.ID,
					Reason: llm.CodeOf(r.lastErr), From: prevStep.profile.ID})
			}
		}
		prev, prevStep = s.target, s
		r.lastModel = s.model
		if s.cooling {
			msg := fmt.Sprintf("every profile of %s is cooling down", modelKey(s.model))
			r.lastErr = &llm.Error{Code: s.reason, Provider: s.model.Provider, Message: msg}
			r.attempts = append(r.attempts, Attempt{Provider: s.model.Provider, Model: s.model.ID,
				Profile: s.profile.ID, Reason: s.reason, Message: msg})
			continue
		}
		switch r.tryStep(s, remainingInTarget(plan, s)) {
		case actDone:
			return
		case actStop:
			r.finish(false)
			return
		case actNextTarget:
			skip = s.target
		}
	}
	r.emit(Event{Kind: EventExhausted, Provider: r.lastModel.Provider, Model: r.lastModel.ID,
		Reason: llm.CodeOf(r.lastErr), Message: (&Error{Attempts: r.attempts, Exhausted: true}).Error()})
	r.finish(true)
}

// remainingInTarget reports whether the plan holds another usable profile
// of s's target after s.
func remainingInTarget(plan []step, s step) bool {
	after := false
	for _, o := range plan {
		if after && o.target == s.target && !o.cooling {
			return true
		}
		if o.target == s.target && o.profile.ID == s.profile.ID {
			after = true
		}
	}
	return false
}

// tryStep sends the request with one profile to one model, retrying
// transient failures, and says what to do next.
func (r *run) tryStep(s step, moreProfiles bool) action {
	opts := &r.p.opts
	req := *r.req
	req.Model = s.model
	mkey := modelKey(s.model)
	pin := pinKey(r.req.Options.SessionID, s.model)
	if !r.fit(s, &req) {
		return actStop
	}
	if s.profile.Key != nil {
		key, err := s.profile.Key(r.ctx)
		if err != nil {
			if r.ctx.Err() != nil {
				r.lastErr = ctxError(r.ctx, s.model.Provider)
				return actStop
			}
			msg := redact(fmt.Sprintf("cannot get the key of profile %s: %v", s.profile.ID, err), append(r.keys, key))
			r.lastErr = &llm.Error{Code: llm.CodeAuth, Provider: s.model.Provider, Message: msg}
			r.attempts = append(r.attempts, Attempt{Provider: s.model.Provider, Model: s.model.ID,
				Profile: s.profile.ID, Reason: llm.CodeAuth, Message: msg})
			return actNextProfile
		}
		if key != "" {
			r.keys = append(r.keys, key)
		}
		req.Options.APIKey = key
	}
	observe := observerOf(r.ctx)
	for n := 1; ; n++ {
		if observe != nil {
			observe(Event{Kind: EventAttempt, Provider: s.model.Provider, Model: s.model.ID, Profile: s.profile.ID, Attempt: n})
		}
		res := r.attempt(r.p.targets[s.target].Provider, &req)
		code := llm.CodeOf(res.err)
		if res.stopped || (res.committed && res.err == nil) {
			if res.err == nil && !res.stopped {
				r.p.state.succeed(s.profile.ID, mkey, pin, opts.Now())
			}
			return actDone
		}
		if res.committed {
			// Content reached the consumer: the stream already ended with
			// this error; only remember the failure for later requests.
			r.cooldown(s, code, llm.AsError(res.err).RetryAfter)
			return actDone
		}
		r.lastErr, r.lastStart, r.lastFinal = sanitize(res.err, r.keys), res.start, res.final
		giveUp := func(reason llm.ErrorCode) {
			r.attempts = append(r.attempts, Attempt{Provider: s.model.Provider, Model: s.model.ID,
				Profile: s.profile.ID, Reason: reason, Tries: n, Message: redact(r.lastErr.Error(), r.keys)})
		}
		if r.ctx.Err() != nil {
			if code != llm.CodeAborted && code != llm.CodeTimeout {
				r.lastErr = ctxError(r.ctx, s.model.Provider)
			}
			giveUp(llm.CodeOf(r.lastErr))
			return actStop
		}
		switch {
		case code == llm.CodeAuth || code == llm.CodeBilling:
			giveUp(code)
			r.cooldown(s, code, 0)
			return actNextProfile
		case code == llm.CodeModelNotFound:
			giveUp(code)
			return actNextTarget
		case !code.Transient():
			// context_overflow, format, aborted, unknown: no retry, no
			// fallback.
			giveUp(code)
			return actStop
		}
		ra := llm.AsError(res.err).RetryAfter
		if (code == llm.CodeRateLimit && moreProfiles) || ra > opts.Backoff.Cap || n >= opts.Backoff.MaxAttempts {
			giveUp(code)
			r.cooldown(s, code, ra)
			if code == llm.CodeRateLimit {
				return actNextProfile
			}
			// Overload, timeouts and server errors are not the key's
			// fault: another key on the same model would fare no better.
			return actNextTarget
		}
		d := opts.Backoff.delay(n, opts.Rand)
		if ra > d {
			d = ra
		}
		r.emit(Event{Kind: EventRetry, Provider: s.model.Provider, Model: s.model.ID, Profile: s.profile.ID,
			Reason: code, Attempt: n + 1, Delay: d, Message: r.lastErr.Error()})
		if err := opts.Sleep(r.ctx, d); err != nil || r.ctx.Err() != nil {
			r.lastErr = ctxError(r.ctx, s.model.Provider)
			giveUp(llm.CodeOf(r.lastErr))
			return actStop
		}
	}
}

// ctxError classifies the context's end: aborted when cancelled, timeout
// when its deadline passed.
func ctxError(ctx context.Context, provider string) error {
	err := ctx.Err()
	if err == nil {
		err = context.Canceled
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &llm.Error{Code: llm.CodeTimeout, Provider: provider, Message: "deadline passed while retrying", Err: err}
	}
	return &llm.Error{Code: llm.CodeAborted, Provider: provider, Message: "request cancelled", Err: err}
}

// cooldown puts the profile of s to rest when code is a cooldown reason,
// releases its session pin and reports the decision.
func (r *run) cooldown(s step, code llm.ErrorCode, retryAfter time.Duration) {
	r.p.state.unpin(pinKey(r.req.Options.SessionID, s.model), s.profile.ID)
	c, ok := r.p.opts.Cooldowns[code]
	if !ok || c.Base <= 0 {
		return
	}
	scoped := code != llm.CodeAuth && code != llm.CodeBilling
	d, until := r.p.state.fail(s.profile.ID, modelKey(s.model), scoped, code, c, retryAfter, r.p.opts.Now())
	scope := "profile"
	if scoped {
		scope = "model"
	}
	e := Event{Kind: EventCooldown, Provider: s.model.Provider, Profile: s.profile.ID, Reason: code,
		Delay: d, Until: until, Scope: scope}
	if scoped {
		e.Model = s.model.ID
	}
	r.emit(e)
}

// finish ends the stream after the last failure: the start event of the
// last attempt (or a new one), then an error event.
func (r *run) finish(exhausted bool) {
	err := r.lastErr
	if err == nil {
		err = &llm.Error{Code: llm.CodeUnknown, Message: "no attempt was made"}
	}
	if exhausted || len(r.attempts) > 1 {
		err = &Error{Attempts: r.attempts, Exhausted: exhausted, Err: err}
	}
	now := r.p.opts.Now()
	start := llm.Message{Role: llm.RoleAssistant, Provider: r.lastModel.Provider, Model: r.lastModel.ID,
		API: r.lastModel.API, Timestamp: now}
	if r.lastStart != nil {
		start = *r.lastStart
		start.Content = nil
	}
	if !r.yield(llm.Event{Type: llm.EventStart, Message: &start}, nil) {
		return
	}
	final := start
	if r.lastFinal != nil {
		final = *sanitizeMessage(r.lastFinal, r.keys)
	}
	final.Role = llm.RoleAssistant
	code := llm.CodeOf(err)
	final.StopReason = llm.StopError
	if code == llm.CodeAborted {
		final.StopReason = llm.StopAborted
	}
	final.ErrorCode = code
	final.ErrorMessage = redact(err.Error(), r.keys)
	r.yield(llm.Event{Type: llm.EventError, Message: &final}, err)
}
