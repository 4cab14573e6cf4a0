package long

import (
	"context"
	"fmt"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/work"
)

// Options configure Init and Work.
type Options struct {
	// Agent are the options every session's agent is opened with. Its
	// Workdir names the workspace ("" is the project around the current
	// directory); its Budget is replaced by what MaxCost leaves.
	Agent coding.Options
	// Layout chooses the files; its zero value reads .rein/long.json and
	// the preset it names (see LoadLayout).
	Overrides Overrides
	// Report receives one report per session as it ends, for a person
	// watching; nil drops them.
	Report func(SessionReport)
	// Now stamps evidence and notes; nil means time.Now.
	Now func() time.Time
	// RunCommand runs a verify command or the set-up script in the
	// workspace; nil means work.RunCommand, confined like bash: under the
	// workspace's .rein/security.json, whose loosening settings count
	// only when trusted (see coding.CommandSandbox).
	RunCommand func(ctx context.Context, command string, timeout time.Duration) (CommandEvidence, string, error)
}

// WorkOptions configure Work.
type WorkOptions struct {
	Options
	// Sessions caps the number of worker sessions; 0 means one session,
	// or no cap with UntilDone.
	Sessions int
	// UntilDone keeps starting sessions until every task is done (or
	// another stop comes first).
	UntilDone bool
	// MaxCost stops the run once its sessions have spent this many US
	// dollars; each session's agent gets what is left as its budget, so a
	// session that reaches it is stopped by the telemetry budget. 0 means
	// no limit (the workspace's telemetry default still applies per
	// session). A run continued after its process died counts what the
	// dead process's sessions logged (Result.Carried).
	MaxCost float64
}

// Stop says why a run of worker sessions ended.
type Stop string

// Stops.
const (
	StopDone        Stop = "done"        // every task is done (or cancelled)
	StopSessions    Stop = "sessions"    // the session cap was reached
	StopBudget      Stop = "budget"      // MaxCost was spent
	StopFailing     Stop = "failing"     // a task failed verification MaxFailures times
	StopError       Stop = "error"       // a session could not run
	StopInterrupted Stop = "interrupted" // the context ended
)

// Outcome is how one worker session ended.
type Outcome string

// Outcomes. Only OutcomeDone counts as success.
const (
	OutcomeDone         Outcome = "done"          // verify passed and the work is committed: the task is done
	OutcomeVerifyFailed Outcome = "verify failed" // a verify command failed or timed out
	OutcomeNoCommit     Outcome = "not committed" // verify passed but the model committed nothing, or left changes out
	OutcomeError        Outcome = "error"         // the session itself failed (model error, budget)
	OutcomeCancelled    Outcome = "cancelled"     // the model cancelled the task (with a note)
)

// SessionReport describes one worker session.
type SessionReport struct {
	N     int // 1-based within the run
	Task  string
	Title string
	Outcome
	// Detail explains an outcome other than done.
	Detail string
	// Verify is the evidence of the task's verify commands.
	Verify []CommandEvidence
	// Commits are the commits the model made, newest first ("hash subject").
	Commits []string
	// Refused counts direct edits of the progress file that were refused;
	// Restored says the file was changed behind the tools and put back.
	Refused  int
	Restored bool
	Usage    llm.Usage
	Cost     float64
	// Session is the session log file.
	Session string
	// Elapsed is the session's wall time; Model and Commands are the parts
	// spent waiting for the model and running verify and set-up commands.
	Elapsed, Model, Commands time.Duration
}

// Line is the one-line summary of the session for a person watching.
func (r SessionReport) Line() string {
	s := fmt.Sprintf("session %d  %s %q  %s", r.N, r.Task, r.Title, r.Outcome)
	if n := len(r.Verify); n > 0 {
		pass := 0
		for _, v := range r.Verify {
			if v.Passed() {
				pass++
			}
		}
		s += fmt.Sprintf(" (verify %d/%d)", pass, n)
	}
	if r.Detail != "" && r.Outcome != OutcomeDone {
		s += ": " + r.Detail
	}
	return s + fmt.Sprintf("  $%.4f", r.Cost)
}

// Result is the end of a run of worker sessions.
type Result struct {
	Stop   Stop
	Detail string
	// Sessions are the sessions run, in order.
	Sessions []SessionReport
	// Cost is what they spent, in US dollars.
	Cost float64
	// Carried is what the sessions of earlier processes of the run spent:
	// a run whose process died is continued by the next Work, and its
	// logged spend counts against MaxCost.
	Carried Carried
	// Counts are the plan's counts at the end.
	Counts Counts
}

// check reports bad options as an InputError, and fills in the agent's
// permission default (auto_all: nobody answers in long mode).
func (o *Options) check(maxCost float64) error {
	if !o.Agent.Thinking.Valid() {
		return &InputError{fmt.Errorf("unknown thinking level %q: use off, minimal, low, medium, high or xhigh", o.Agent.Thinking)}
	}
	if err := (telemetry.Limits{Cost: maxCost}).Validate(); err != nil {
		return &InputError{err}
	}
	if err := CheckPreset(o.Overrides.Preset); err != nil {
		return &InputError{fmt.Errorf("--preset: %w", err)}
	}
	if o.Agent.DefaultMode == "" {
		o.Agent.DefaultMode = "auto_all"
	}
	return nil
}

// Spent is the run's whole spend: its sessions' and what it carried.
func (r Result) Spent() float64 { return r.Cost + r.Carried.Cost }

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// workRunner runs commands with work.RunCommand in root, confined by
// pol.
func workRunner(root string, env []string, pol *sandbox.Policy, hasher *work.TreeHasher) func(ctx context.Context, command string, timeout time.Duration) (CommandEvidence, string, error) {
	return func(ctx context.Context, command string, timeout time.Duration) (CommandEvidence, string, error) {
		ev, err := work.RunCommand(ctx, work.CommandOptions{Dir: root, Env: env, Sandbox: pol, Timeout: timeout, Hasher: hasher}, command)
		if err != nil {
			return CommandEvidence{}, "", err
		}
		return CommandEvidence{Command: command, ExitCode: ev.ExitCode, TimedOut: ev.TimedOut, DurationMS: ev.DurationMS, Output: ev.Output}, ev.Tree, nil
	}
}
