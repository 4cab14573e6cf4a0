package long

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
)

// Work runs worker sessions on the plan of the workspace until a stop:
// every task done, the session cap, MaxCost spent, a task failing its
// verification MaxFailures times, a session that cannot run, or ctx
// ending. Each session is a fresh agent: the harness runs the set-up
// script, takes the task in progress (else the first to do), gives the
// model the progress counts, the task and the tail of the notes, and when
// the model stops runs the task's verify commands itself. The task is
// marked done, with the evidence, only when every command passed and the
// model committed its work; otherwise its failure count grows. The
// harness then appends a notes entry and commits the progress and notes
// files (and nothing else).
//
// A progress file that does not parse or validate is returned as
// Problems before any session starts; so is a workspace that is not a
// git repository.
func Work(ctx context.Context, o WorkOptions) (_ Result, err error) {
	if err := o.check(o.MaxCost); err != nil {
		return Result{}, err
	}
	if o.Sessions < 0 {
		return Result{}, &InputError{fmt.Errorf("--sessions %d is negative", o.Sessions)}
	}
	o.Agent.Budget.Cost = 0 // MaxCost is shared out
	r, err := newRunner(&o.Options)
	if err != nil {
		return Result{}, err
	}
	defer r.close()
	if !r.git.isRepo(ctx) {
		return Result{}, fmt.Errorf("%s is not a git repository: long mode hands work from session to session through commits (git init, then rein long init \"GOAL\")", r.root)
	}
	plan, err := r.store.Load()
	if err != nil {
		return Result{}, err
	}
	spend, carried, err := openRun(r.root, r.o.now())
	if err != nil {
		return Result{}, err
	}
	r.spend = spend
	defer func() {
		if eerr := spend.end(); eerr != nil && err == nil {
			err = fmt.Errorf("recording the end of the run in %s: %w", runFile, eerr)
		}
	}()
	limit := o.Sessions
	if limit == 0 && !o.UntilDone {
		limit = 1
	}
	res := Result{Carried: carried}
	stop := func(s Stop, detail string) (Result, error) {
		res.Stop, res.Detail = s, detail
		if p, err := r.store.Load(); err == nil {
			res.Counts = p.Counts()
		} else {
			res.Counts = plan.Counts()
		}
		return res, nil
	}
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return stop(StopInterrupted, ctx.Err().Error())
		}
		if plan, err = r.store.Load(); err != nil {
			res.Stop, res.Detail = StopError, err.Error()
			return res, err
		}
		t := plan.Next()
		if t == nil {
			c := plan.Counts()
			return stop(StopDone, fmt.Sprintf("all %d tasks done", c.Done))
		}
		if limit > 0 && n > limit {
			return stop(StopSessions, fmt.Sprintf("%d session(s) run; %d task(s) open", limit, plan.Counts().Open()))
		}
		budget := 0.0
		if o.MaxCost > 0 {
			if budget = o.MaxCost - res.Spent(); budget <= 0 {
				return stop(StopBudget, fmt.Sprintf("spent $%.4f of $%.4f (--max-cost)", res.Spent(), o.MaxCost))
			}
		}
		rep, err := r.session(ctx, n, plan, t, budget)
		res.Sessions = append(res.Sessions, rep)
		res.Cost += rep.Cost
		if o.Report != nil {
			o.Report(rep)
		}
		switch {
		case ctx.Err() != nil:
			return stop(StopInterrupted, ctx.Err().Error())
		case err != nil:
			res.Stop, res.Detail = StopError, err.Error()
			if p, lerr := r.store.Load(); lerr == nil {
				res.Counts = p.Counts()
			}
			return res, err
		case rep.Outcome == OutcomeError && strings.HasPrefix(rep.Detail, "budget"):
			return stop(StopBudget, rep.Detail)
		case rep.Outcome == OutcomeError:
			return stop(StopError, rep.Detail)
		}
		if p, err := r.store.Load(); err == nil {
			if cur := p.Find(t.ID); cur != nil && cur.Status.Open() && cur.Failures >= r.layout.MaxFailures {
				return stop(StopFailing, fmt.Sprintf("task %s ended %d sessions without passing its verify commands", t.ID, cur.Failures))
			}
		}
	}
}

// session runs worker session n on task t with budget dollars (0: no
// limit of its own). An error means the session could not run at all.
func (r *runner) session(ctx context.Context, n int, plan *Plan, t *Task, budget float64) (SessionReport, error) {
	t0 := time.Now()
	s := &worker{r: r, n: n, task: *t, rep: SessionReport{N: n, Task: t.ID, Title: t.Title}}
	rep, err := s.run(ctx, plan, t, budget)
	rep.Elapsed = time.Since(t0)
	return rep, err
}

// run is the body of session.
func (s *worker) run(ctx context.Context, plan *Plan, t *Task, budget float64) (SessionReport, error) {
	r, n := s.r, s.n
	var err error
	if s.start, err = r.git.head(ctx); err != nil {
		return s.rep, err
	}
	if t.Status == StatusTodo {
		if plan, err = r.store.Update(func(p *Plan) error { p.Find(t.ID).Status = StatusInProgress; return nil }); err != nil {
			return s.rep, err
		}
		t = plan.Find(t.ID)
	}
	c0 := time.Now()
	setup, err := r.runSetup(ctx)
	s.rep.Commands += time.Since(c0)
	if err != nil {
		return s.rep, err
	}
	notes, err := r.store.NotesTail(r.layout.NotesTail)
	if err != nil {
		return s.rep, err
	}
	g, err := newGuard(r.root, r.layout.Progress)
	if err != nil {
		return s.rep, err
	}
	a, err := coding.Open(ctx, r.agentOptions(budget))
	if err != nil {
		return s.rep, err
	}
	defer a.Close()
	if _, err := s.install(a, plan, g); err != nil {
		return s.rep, err
	}
	if sess := a.Session(); sess != nil {
		s.rep.Session = sess.Path()
		if err := r.spend.add(sess.Path()); err != nil {
			return s.rep, fmt.Errorf("recording the session in %s: %w", runFile, err)
		}
	}
	m0 := time.Now()
	res, serr := a.Submit(ctx, workPrompt(r.layout, plan, t, notes, setup, n))
	s.rep.Model = time.Since(m0)
	s.rep.Usage = res.Usage
	s.rep.Cost = res.Usage.Cost.Total
	s.rep.Refused = g.count()
	if ctx.Err() != nil {
		return s.rep, nil
	}
	if err := s.finish(ctx, a, serr); err != nil {
		return s.rep, err
	}
	final := coding.FinalText(res)
	if err := a.Close(); err != nil && s.rep.Detail == "" {
		s.rep.Detail = "closing the session: " + err.Error()
	}
	if err := r.store.AppendNotes(s.notesEntry(final)); err != nil {
		return s.rep, err
	}
	msg := fmt.Sprintf("long: task %s %s (session %d)", t.ID, s.rep.Outcome, n)
	if _, err := r.git.commitFiles(ctx, msg, r.layout.Progress, r.layout.Notes); err != nil {
		return s.rep, fmt.Errorf("committing %s and %s: %w", r.layout.Progress, r.layout.Notes, err)
	}
	return s.rep, nil
}

// finish takes the session's verdict once the model has stopped (serr is
// how Submit ended): the progress file is restored if it was changed
// behind the tools, the verify commands run, the commits are checked, and
// the task is marked done with evidence, or its failures counted.
func (s *worker) finish(ctx context.Context, a *coding.Agent, serr error) error {
	r := s.r
	if changed, err := r.store.Changed(); err != nil {
		return err
	} else if changed {
		if err := r.store.Restore(); err != nil {
			return fmt.Errorf("restoring %s after a change behind the work-item tools: %w", r.layout.Progress, err)
		}
		s.rep.Restored = true
	}
	plan, err := r.store.Load()
	if err != nil {
		return err
	}
	if cur := plan.Find(s.task.ID); cur != nil && cur.Status == StatusCancelled {
		s.rep.Outcome, s.rep.Detail = OutcomeCancelled, cur.Note
		return nil
	}
	evs, tree, err := s.verify(ctx)
	if err != nil {
		return err
	}
	s.rep.Verify = evs
	if err := s.logEvidence(a.Harness(), evs, tree); err != nil {
		s.rep.Detail = "logging the evidence: " + err.Error()
	}
	if s.rep.Commits, err = r.git.commitsSince(ctx, s.start); err != nil {
		return err
	}
	dirty, err := r.git.dirty(ctx, r.layout.Progress, r.layout.Notes)
	if err != nil {
		return err
	}
	var failed []string
	for _, ev := range evs {
		if !ev.Passed() {
			failed = append(failed, fmt.Sprintf("%s: %s", ev.Command, outcome(ev)))
		}
	}
	switch {
	case len(failed) > 0:
		s.rep.Outcome, s.rep.Detail = OutcomeVerifyFailed, strings.Join(failed, "; ")
		if serr != nil {
			s.rep.Outcome, s.rep.Detail = OutcomeError, describeErr(serr)+"; "+s.rep.Detail
		}
	case len(s.rep.Commits) == 0:
		s.rep.Outcome, s.rep.Detail = OutcomeNoCommit, "the verify commands pass but nothing was committed"
	case len(dirty) > 0:
		s.rep.Outcome, s.rep.Detail = OutcomeNoCommit, "the verify commands pass but changes are not committed: "+strings.Join(limitList(dirty, 5), ", ")
	default:
		s.rep.Outcome = OutcomeDone
	}
	id := s.task.ID
	if s.rep.Outcome == OutcomeDone {
		head, err := r.git.head(ctx)
		if err != nil {
			return err
		}
		ev := &Evidence{At: r.o.now().UTC(), Commit: head, Tree: tree, Commands: evs}
		if sess := a.Session(); sess != nil {
			ev.Session = sess.ID()
		}
		_, err = r.store.Update(func(p *Plan) error {
			t := p.Find(id)
			t.Status, t.Evidence = StatusDone, ev
			return nil
		})
		return err
	}
	// A session that failed (the model's provider, the budget) is not
	// the task's failure.
	counts := s.rep.Outcome != OutcomeError
	_, err = r.store.Update(func(p *Plan) error {
		if t := p.Find(id); t != nil && t.Status.Open() {
			t.Status = StatusInProgress
			if counts {
				t.Failures++
			}
		}
		return nil
	})
	return err
}

// describeErr says how a session's run failed; a budget stop starts with
// "budget".
func describeErr(err error) string {
	if llm.CodeOf(err) == llm.CodeBudget {
		return "budget: " + err.Error()
	}
	return "the session failed: " + err.Error()
}

func limitList(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}
