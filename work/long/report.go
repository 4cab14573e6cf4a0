package long

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
)

// Help is the long description of rein long.
const Help = `Long mode splits a goal too large for one session into a plan of tasks and
works through it one task per fresh session:

  rein long init "GOAL"    an initializer session writes the plan (the progress
                           file), the notes and a set-up script; they are checked
                           and committed
  rein long work           worker sessions take the next task each; the harness
                           runs its verify commands and marks it done only when
                           they pass and the work is committed
  rein long status         the plan and where it stands

See docs/long-horizon.md.`

// WorkHelp is the long description of rein long work.
const WorkHelp = `Each worker session is a fresh session. The harness runs the set-up script,
takes the task in progress (else the first to do), and gives the model the
progress counts, the task and the end of the notes. When the model stops, the
harness runs the task's verify commands itself and marks the task done only
when all of them exit 0 and the model committed its work; then it appends a
notes entry and commits the progress and notes files. The model changes the
plan only with the work-item tools.

One line per session is printed: the task, the outcome and the cost.
The run stops when every task is done, after --sessions sessions, when
--max-cost is spent, or when one task fails its verification --max-failures
times. A run whose process died (kill -9, a crash) is continued by the next
rein long work: what its sessions logged as spent counts against --max-cost.
Exit status: 0 done or sessions run, 1 a task keeps failing or a session
failed, 2 bad input (a malformed progress file), 3 the budget.`

// Exit statuses of the long-mode commands.
const (
	ExitFailed      = 1   // a task keeps failing, a session failed
	ExitBadInput    = 2   // a malformed plan, bad flags, a plan that exists
	ExitBudget      = 3   // MaxCost (or a telemetry budget) was spent
	ExitInterrupted = 130 // the context ended
)

// ExitStatus is the exit status of an error Init, Work or StatusReport
// returned: 0 for nil, ExitBadInput for bad input, ExitBudget for a
// spent budget, else ExitFailed.
func ExitStatus(err error) int {
	if err == nil {
		return 0
	}
	var probs Problems
	var fe *FileError
	var ie *InputError
	switch {
	case errors.As(err, &probs), errors.As(err, &fe), errors.As(err, &ie), errors.Is(err, ErrPlanExists):
		return ExitBadInput
	case llm.CodeOf(err) == llm.CodeBudget:
		return ExitBudget
	}
	return ExitFailed
}

// InputError is bad input that is not in the plan: a workspace that is
// not there, an unknown preset, a malformed .rein/long.json.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// WorkOutcome is what rein long work reports for Work's results: the
// closing line to print ("" when no session ran and Work failed), the
// exit status (0 when every task is done or the session cap was reached)
// and the error to report with it.
func WorkOutcome(r Result, err error) (string, int, error) {
	if err != nil && len(r.Sessions) == 0 {
		return "", ExitStatus(err), err
	}
	out := r.Summary() + "\n"
	switch r.Stop {
	case StopDone, StopSessions:
		return out, 0, nil
	case StopBudget:
		return out, ExitBudget, nil
	case StopInterrupted:
		return out, ExitInterrupted, nil
	}
	if err == nil {
		err = errors.New(r.Detail)
	}
	return out, ExitFailed, err
}

// InitOutcome is what rein long init reports for Init's results: the
// text to print, the exit status and the error.
func InitOutcome(r InitResult, err error) (string, int, error) {
	if err != nil {
		return "", ExitStatus(err), err
	}
	return r.Summary(), 0, nil
}

// Summary is the closing line of a run of worker sessions.
func (r Result) Summary() string {
	s := fmt.Sprintf("stopped (%s): %s; %s; $%.4f spent", r.Stop, r.Detail, r.Counts, r.Cost)
	if c := r.Carried; c.Sessions > 0 {
		s += fmt.Sprintf(", and $%.4f before by %d session(s) of this run whose process died ($%.4f in all)", c.Cost, c.Sessions, r.Spent())
	}
	return s
}

// Summary is what rein long init prints when the plan is written.
func (r InitResult) Summary() string {
	l := r.Layout
	s := fmt.Sprintf("planned %d tasks in %s (notes %s, set-up %s) in %d attempt(s), $%.4f\n", r.Counts.Total, l.Progress, l.Notes, l.Setup, r.Attempts, r.Cost)
	if r.Commit != "" {
		s += fmt.Sprintf("committed %s\n", shortHash(r.Commit))
	}
	return s + "next: rein long work --until-done\n"
}

// StatusReport describes the plan of the workspace at workdir ("" is the
// project around the current directory) for rein long status: its
// counts, then one line per task with its status, evidence and failures;
// with the exit status and the error when the plan cannot be shown.
func StatusReport(workdir string, o Overrides) (string, int, error) {
	s, err := status(workdir, o)
	return s, ExitStatus(err), err
}

func status(workdir string, o Overrides) (string, error) {
	root, err := coding.WorkspaceDir(workdir)
	if err != nil {
		return "", &InputError{err}
	}
	l, err := LoadLayout(root, o)
	if err != nil {
		return "", &InputError{err}
	}
	p, err := NewStore(root, l).Load()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", l.Progress, p.Counts())
	for _, t := range p.Tasks {
		fmt.Fprintf(&b, "  %-11s %s  %s", t.Status, t.ID, t.Title)
		if t.Evidence != nil {
			fmt.Fprintf(&b, "  (verified at %s)", shortHash(t.Evidence.Commit))
		}
		if t.Failures > 0 {
			fmt.Fprintf(&b, "  (%d failed session(s))", t.Failures)
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
