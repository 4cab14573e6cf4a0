package harness

import (
	"context"
	"slices"
	"sync"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
)

// Result is the outcome of a run.
type Result struct {
	// Stop says why the run ended; Detail explains it.
	Stop   StopReason
	Detail string
	// Messages are the messages the run persisted, in order: next-turn
	// messages, the prompt, hook messages, then what the loop added.
	Messages []llm.Message
	// Usage is the summed usage of the run's model calls.
	Usage llm.Usage
	// Turns is the number of turns the run took.
	Turns int
}

// Text returns the text of the run's last assistant message.
func (r *Result) Text() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleAssistant {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// run is the state of one Prompt.
type run struct {
	h      *Harness
	cancel context.CancelFunc
	msgs   []llm.Message // the conversation: context, inputs, loop messages
	inputs []llm.Message // what the prompt added before the loop
	// recovered are the results of the tool calls a crash left open,
	// persisted before the inputs (see recoverCalls).
	recovered []llm.Message
	added     []llm.Message // everything persisted by this run
	system    []llm.SystemPart
	snap      Snapshot
	turn      int
	usage     llm.Usage
	last      *llm.Message // the last assistant message
	cw        *window      // context management of the run

	loopEnd agent.Event
	loopErr error
	stop    StopReason // a stop decided by the harness
	detail  string

	// Strict mode and the agent_stop hook.
	completed bool          // work_complete succeeded this turn
	reminders int           // work_complete reminders sent
	inject    []llm.Message // delivered at the next steering poll
	stall     stall

	// The contract (StopPolicy.Verify).
	checks      int  // contract checks made
	verifyTries int  // failure messages sent to the model
	verified    bool // the last check passed and nothing happened since

	mu  sync.Mutex // guards err: tool hooks report from tool goroutines
	err error      // the first hook, listener or store failure
}

// Prompt runs the agent on a user message (text plus optional images)
// and blocks until the run ends and the harness is idle again. It fails
// fast with a busy error when another operation runs.
//
// The error is nil when the run ended normally, whatever its stop reason
// (completed, aborted, max_turns, stalled, work_incomplete…); otherwise
// it is a *Error: provider (the model call failed), hook (a hook or
// listener failed; what it observed is committed), store (a write failed;
// nothing acknowledged is lost) or config. The Result is filled in every
// case but busy.
func (h *Harness) Prompt(ctx context.Context, text string, images ...llm.Content) (res Result, err error) {
	const op = "prompt"
	prompt, err := userMessage(op, text, images)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel, err := h.begin(ctx, op, PhaseTurn)
	if err != nil {
		return Result{}, err
	}
	r := &run{h: h, cancel: cancel}
	settled := false
	defer func() {
		h.settle(r.msgs, settled && err == nil)
		if ferr := h.end(); ferr != nil && err == nil {
			err, res.Stop, res.Detail = wrap(op, CodeStore, ferr), StopError, ferr.Error()
		}
	}()
	if err := r.start(ctx, prompt); err != nil {
		return Result{Stop: StopError, Detail: err.Error(), Messages: r.added}, wrap(op, CodeConfig, err)
	}
	res, err = r.execute(ctx)
	settled = true
	return res, err
}

// start flushes what earlier operations left pending, builds the
// conversation, takes the first snapshot, runs before_agent_start and
// persists the prompt's messages.
func (r *run) start(ctx context.Context, prompt llm.Message) error {
	h := r.h
	if err := h.flush(); err != nil {
		return err
	}
	r.msgs = h.conversation()
	h.mu.Lock()
	next := slices.Clone(h.next)
	h.mu.Unlock()
	if err := r.snapshot(ctx); err != nil {
		return err
	}
	recovered, err := r.recoverCalls(ctx)
	r.recovered = recovered
	r.added = append(r.added, recovered...)
	r.msgs = append(r.msgs, recovered...)
	if err != nil {
		return err
	}
	res, err := h.hooks.RunBeforeAgentStart(ctx, &hook.BeforeAgentStartEvent{Prompt: prompt, Messages: r.msgs, System: r.snap.System})
	if err != nil {
		return err
	}
	if res.System != nil {
		r.system = res.System
		r.snap.System = res.System
	}
	r.inputs = make([]llm.Message, 0, len(next)+1+len(res.Messages))
	r.inputs = append(append(append(r.inputs, next...), prompt), res.Messages...)
	for i := range r.inputs {
		m := &r.inputs[i]
		if m.Timestamp.IsZero() {
			m.Timestamp = h.clock()
		}
		if err := h.persist(*m); err != nil {
			return err
		}
		r.added = append(r.added, *m)
		if i < len(next) {
			h.mu.Lock()
			h.next = h.next[1:]
			h.mu.Unlock()
		}
	}
	r.msgs = append(r.msgs, r.inputs...)
	return nil
}

// execute runs the loop and reports its events.
func (r *run) execute(ctx context.Context) (Result, error) {
	h := r.h
	cfg := agent.Config{
		MaxTurns: h.stop.MaxTurns, MaxNudges: h.stop.MaxNudges,
		Steering: r.steering, FollowUp: r.followUp, Refresh: r.refresh, Clock: h.clock,
	}
	cfg.Settings = r.settings()
	for ev, err := range agent.Run(ctx, cfg, r.msgs) {
		if !r.handle(ctx, ev, err) {
			break
		}
	}
	res := r.result()
	r.afterRun(ctx, res.Stop)
	end := agent.Event{Type: agent.EventAgentEnd, Turn: r.turn, Stop: res.Stop, Detail: res.Detail, Messages: res.Messages, Usage: res.Usage}
	end.Err = r.failure()
	if nerr := h.notify(ctx, Event{Event: end}); nerr != nil {
		r.fail(nerr)
	}
	if err := r.failure(); err != nil {
		if res.Stop != StopError {
			res.Stop, res.Detail = StopError, err.Error()
		}
		return res, wrap("prompt", CodeProvider, err)
	}
	return res, nil
}

// handle processes one loop event and reports whether to keep reading.
func (r *run) handle(ctx context.Context, ev agent.Event, err error) bool {
	h := r.h
	r.turn = max(r.turn, ev.Turn)
	switch ev.Type {
	case agent.EventAgentStart:
		r.tell(ctx, ev)
		for i := range r.recovered {
			m := &r.recovered[i]
			r.tell(ctx, agent.Event{Type: agent.EventMessageStart, Message: m})
			r.tell(ctx, agent.Event{Type: agent.EventMessageEnd, Message: m})
		}
		for i := range r.inputs {
			m := &r.inputs[i]
			r.tell(ctx, agent.Event{Type: agent.EventMessageStart, Message: m})
			r.tell(ctx, agent.Event{Type: agent.EventMessageEnd, Message: m})
		}
		return true
	case agent.EventMessageEnd:
		m := *ev.Message
		if m.Role == llm.RoleToolResult {
			// The permission decisions of the batch precede its results.
			if ferr := h.writeDecisions(); ferr != nil {
				r.fail(ferr)
				return false
			}
		}
		if perr := h.persist(m); perr != nil {
			r.fail(perr)
			return false
		}
		r.msgs = append(r.msgs, m)
		r.added = append(r.added, m)
		if m.Role == llm.RoleAssistant {
			r.last = &r.msgs[len(r.msgs)-1]
			if m.Usage != nil {
				r.usage.Add(*m.Usage)
			}
		}
	case agent.EventToolEnd:
		if h.wc != nil && ev.Call.Name == h.wc.Name && !ev.Result.IsError {
			r.completed = true
		}
	case agent.EventTurnEnd:
		r.tellTurnEnd(ctx, ev)
		if ferr := h.flush(); ferr != nil {
			r.fail(ferr)
			return false
		}
		return r.decide(ctx, &ev)
	case agent.EventAgentEnd:
		r.loopEnd, r.loopErr = ev, err
		return true
	}
	r.tell(ctx, ev)
	return true
}

// tell notifies the listeners; a failure aborts the run.
func (r *run) tell(ctx context.Context, ev agent.Event) {
	if err := r.h.notify(ctx, Event{Event: ev}); err != nil {
		r.fail(err)
	}
}

// fail records the first failure of the run and cancels it, so that the
// loop still gives every started tool call a result.
func (r *run) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.cancel()
}

// hookFailed receives the failures of tool hooks (from tool goroutines).
// The hook middleware already ends the run after the batch.
func (r *run) hookFailed(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

func (r *run) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// refresh is the loop's save point before every turn after the first:
// pending writes are flushed and a fresh snapshot replaces the settings.
func (r *run) refresh(ctx context.Context, s *agent.Settings) error {
	if err := r.h.flush(); err != nil {
		return err
	}
	if err := r.snapshot(ctx); err != nil {
		return err
	}
	*s = r.settings()
	return nil
}

// result builds the run's outcome: a failure of the harness wins over
// the loop's error, which wins over a stop the harness decided, which
// wins over the loop's own stop reason.
func (r *run) result() Result {
	res := Result{Stop: r.loopEnd.Stop, Detail: r.loopEnd.Detail, Messages: r.added, Usage: r.usage, Turns: r.turn}
	if r.stop != "" {
		res.Stop, res.Detail = r.stop, r.detail
	}
	if res.Stop == StopCompleted && r.h.stop.Verify != nil && !r.verified {
		// Success is never reported without a passing check.
		res.Stop, res.Detail = StopContractUnmet, "the run ended before its contract was verified"
	}
	if r.loopErr != nil && r.failure() == nil {
		r.mu.Lock()
		r.err = r.loopErr
		r.mu.Unlock()
	}
	if err := r.failure(); err != nil {
		res.Stop, res.Detail = StopError, err.Error()
	}
	return res
}
