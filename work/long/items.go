package long

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/work"
)

// The model edits the plan through the work-item tools of package work:
// the worker session's Ledger starts from the progress file's tasks and
// every change it persists is mapped back onto the file (planLedger).

// itemStatus maps a task's status to a work item's.
func itemStatus(s Status) work.Status {
	switch s {
	case StatusInProgress:
		return work.InProgress
	case StatusDone:
		return work.Completed
	case StatusCancelled:
		return work.Cancelled
	}
	return work.Pending
}

// itemOf is the work item showing task t.
func itemOf(t *Task) work.Item {
	it := work.Item{ID: t.ID, Title: t.Title, Status: itemStatus(t.Status), Acceptance: strings.Join(t.Acceptance, "; "), Note: t.Note}
	for _, v := range t.Verify {
		it.Verify = append(it.Verify, v.Command)
	}
	return it
}

// itemsOf is the work-item list showing plan p.
func itemsOf(p *Plan) work.List {
	out := make(work.List, len(p.Tasks))
	for i := range p.Tasks {
		out[i] = itemOf(&p.Tasks[i])
	}
	return out
}

// planLedger maps work-item changes onto the progress file for a worker
// session on task current.
type planLedger struct {
	store   *Store
	current string
}

// apply writes list, the ledger's whole new list, into the progress
// file. It refuses what a worker may not do: change the title, criteria
// or verify commands of a planned task, start or complete a task other
// than its own, add a task without verify commands. Completing the
// current task (allowed by the gate once its verify commands pass) keeps
// it in progress in the file: the harness marks it done at the end of the
// session, when the work is committed.
func (pl *planLedger) apply(list work.List) error {
	_, err := pl.store.Update(func(p *Plan) error {
		for _, it := range list {
			t := p.Find(it.ID)
			if t == nil {
				nt, err := newTask(it)
				if err != nil {
					return err
				}
				p.Tasks = append(p.Tasks, nt)
				continue
			}
			was := itemOf(t)
			if it.Title != was.Title || it.Acceptance != was.Acceptance || !slices.Equal(it.Verify, was.Verify) {
				return fmt.Errorf("task %s: its title, acceptance criteria and verify commands are fixed by the plan; a worker changes only its status and note (add a new task with work_item_add if the plan misses one)", t.ID)
			}
			if it.Note != "" {
				t.Note = it.Note
			}
			if it.Status == was.Status {
				continue
			}
			switch it.Status {
			case work.Cancelled:
				t.Status = StatusCancelled
			case work.Pending:
				if t.Status == StatusDone {
					return fmt.Errorf("task %s is done, verified by the harness; it cannot be reopened in a worker session (add a new task instead)", t.ID)
				}
				t.Status = StatusTodo
			case work.InProgress, work.Completed:
				if t.ID != pl.current {
					return fmt.Errorf("this session works on task %s only; task %s waits for a later session", pl.current, t.ID)
				}
				if t.Status != StatusDone {
					t.Status = StatusInProgress
				}
			}
		}
		return nil
	})
	return err
}

// newTask is a task added by the model.
func newTask(it work.Item) (Task, error) {
	if it.Status != work.Pending {
		return Task{}, fmt.Errorf("a new task starts as pending: it is for a later session (item %s is %s)", it.ID, it.Status)
	}
	t := Task{ID: it.ID, Title: it.Title, Status: StatusTodo, Note: it.Note}
	if a := strings.TrimSpace(it.Acceptance); a != "" {
		t.Acceptance = []string{a}
	} else {
		t.Acceptance = []string{it.Title}
	}
	if len(it.Verify) == 0 {
		return Task{}, fmt.Errorf("a new task needs verify commands: the harness marks a task done only when they pass (add \"verify\": [\"go test ./...\"], say)")
	}
	for _, v := range it.Verify {
		t.Verify = append(t.Verify, Verify{Command: v})
	}
	return t, nil
}

// gate is the ledger's check before the model completes an item: the
// harness runs the task's verify commands and refuses with their output
// when one fails. It is the model's early warning; the verdict that
// counts is taken again when the session ends.
func (s *worker) gate(ctx context.Context, it work.Item) error {
	if it.ID != s.task.ID {
		return fmt.Errorf("this session works on task %s only", s.task.ID)
	}
	evs, _, err := s.verify(ctx)
	if err != nil {
		return err
	}
	var failed []string
	for _, ev := range evs {
		if !ev.Passed() {
			failed = append(failed, fmt.Sprintf("%s: %s\n%s", ev.Command, outcome(ev), indent(ev.Output)))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("task %s is not done: %d verify command(s) failed:\n%s", s.task.ID, len(failed), strings.Join(failed, "\n"))
	}
	return nil
}
