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
