package coding

import (
	"context"
	"fmt"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/telemetry"
)

// Every prompt of an Agent is a run of its session's lane (package lane):
// runs of one session start one at a time in arrival order, and every
// model request, the summaries of compaction included, holds a slot of
// the scheduler's global cap while it streams. Agents opened without
// Options.Lanes share lane.Default, so one process keeps one cap however
// many agents it opens.

// scheduler is the agent's lane scheduler.
func (s *setup) scheduler() *lane.Scheduler {
	if s.o.Lanes != nil {
		return s.o.Lanes
	}
	return lane.Default()
}

// laneProvider makes every Stream call of p hold a request slot.
func (s *setup) laneProvider(p llm.Provider) llm.Provider {
	if p == nil {
		return nil
	}
	return lane.Middleware(s.scheduler())(p)
}

// SubmitWait is Submit for a session that may be busy: instead of failing
// with busy, the prompt waits for its turn behind the runs already
// running or queued on the session (strict FIFO, see docs/lanes.md). A
// prompt whose ctx ends while it waits is not run and its error is
// returned.
func (a *Agent) SubmitWait(ctx context.Context, text string, images ...llm.Content) (harness.Result, error) {
	return a.submit(ctx, true, text, images, telemetry.Info{})
}

// enterLane takes the session's turn for one prompt. Without wait, a
// session that runs already fails with a harness busy error that also
// matches lane.ErrBusy. The returned context carries the run.
func (a *Agent) enterLane(ctx context.Context, wait bool) (context.Context, func(), error) {
	o := lane.RunOptions{NoWait: !wait, Priority: a.s.o.Priority}
	if sess := a.Session(); sess != nil && sess.Path() != "" {
		o.Session, o.LockFile = sess.Path(), sess.Path()+".run.lock"
	} else {
		o.Session = fmt.Sprintf("agent-%p", a)
	}
	if lane.RunOf(ctx).Session() == o.Session {
		return ctx, func() {}, nil // the caller holds the session's turn already
	}
	ctx, run, err := a.s.scheduler().Enter(ctx, o)
	if err != nil {
		if wait {
			return nil, nil, err
		}
		return nil, nil, &harness.Error{Code: harness.CodeBusy, Op: "prompt", Err: err}
	}
	return ctx, run.Release, nil
}

// watchProgress restarts the running prompt's idle timeout on every
// stream delta and tool output (Options.Lanes' RunIdle).
func watchProgress(h *harness.Harness) {
	h.Subscribe(func(ctx context.Context, ev harness.Event) error {
		switch ev.Type {
		case agent.EventMessageUpdate, agent.EventToolUpdate, agent.EventToolEnd, agent.EventTurnEnd:
			lane.RunOf(ctx).Touch()
		}
		return nil
	})
}

// Queue sends text to the agent's session by mode (see docs/lanes.md):
// steer and followup go to the running prompt's queues, as Steer and
// FollowUp do; collect holds the text and, with every message collected
// until the prompt's turn comes, runs it as one prompt (joined by blank
// lines) once the running prompt ends; interrupt aborts the running
// prompt and runs text next among the queued messages (runs already
// waiting in the session's lane keep their place). Prompts Queue starts
// run in the background, in the session's lane: their events arrive
// through Subscribe. An empty text or an unknown mode is an error and
// nothing is queued.
func (a *Agent) Queue(text string, mode lane.QueueMode) (lane.Delivery, error) {
	d, err := a.queue().SendAs(mode, text)
	if err != nil || (d != lane.Collected && d != lane.Interrupted) {
		return d, err
	}
	a.background(func(ctx context.Context) {
		ctx, leave, err := a.enterLane(ctx, true)
		if err != nil {
			return
		}
		defer leave()
		// Take the text only now that it is the prompt's turn, so that
		// everything collected meanwhile goes in one prompt.
		if text, ok := a.queue().Next(); ok {
			_, _ = a.submit(ctx, true, text, nil, telemetry.Info{})
		}
	})
	return d, nil
}

// Queued is the number of collected and interrupting messages waiting
// for their prompt.
func (a *Agent) Queued() int { return a.queue().Pending() }

func (a *Agent) queue() *lane.Inbox {
	a.inboxOnce.Do(func() { a.inbox, _ = lane.NewInbox(inboxTarget{a}, lane.ModeFollowUp) })
	return a.inbox
}

// inboxTarget delivers steering and follow-ups to the agent.
type inboxTarget struct{ a *Agent }

func (t inboxTarget) Steer(text string) error    { return t.a.Steer(text) }
func (t inboxTarget) FollowUp(text string) error { return t.a.FollowUp(text) }
func (t inboxTarget) Abort()                     { t.a.Abort() }
