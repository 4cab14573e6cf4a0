package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/work/long"
	"github.com/spf13/cobra"
)

// longFlags are the flags of rein long's commands.
type longFlags struct {
	run       runOptions
	preset    string
	progress  string
	notes     string
	setup     string
	failures  int
	retries   int
	sessions  int
	untilDone bool
}

func (f *longFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	o := &f.run
	fl.StringVarP(&o.model, "model", "m", "", "model: provider/model or an alias (rein models lists them), or faux with --script")
	fl.StringVar(&o.script, "script", "", "JSONL file of scripted replies for --model faux (shared by every session)")
	fl.StringVar(&o.baseURL, "base-url", "", "send requests to this server instead of the provider's")
	workdirFlag(cmd, &o.workdir)
	fl.IntVar(&o.maxTurns, "max-turns", agent.DefaultMaxTurns, "stop a session after this many turns (0 = no cap)")
	fl.StringVar(&o.tools, "tools", "coding", "tools to offer each session (the work-item tools are always added)")
	fl.StringVar(&o.thinking, "thinking", "", "reasoning effort: off, minimal, low, medium, high, xhigh")
	fl.StringVar(&o.permissionMode, "permission-mode", "", "what runs without asking (default auto_all: nobody answers in long mode; bash stays sandboxed)")
	fl.Float64Var(&o.budget.Cost, "max-cost", 0, "stop once the sessions have spent this many US dollars (0 = no limit beyond .rein/telemetry.json's per-run default); exit status 3")
	fl.StringVar(&f.preset, "preset", "", "file layout: rein (agent-progress.json, agent-notes.md, workspace.sh) or anthropic (feature_list.json, claude-progress.txt, init.sh); default .rein/long.json's, else rein")
	fl.StringVar(&f.progress, "progress-file", "", "the progress file (default: the preset's)")
	fl.StringVar(&f.notes, "notes-file", "", "the notes file (default: the preset's)")
	fl.StringVar(&f.setup, "setup-file", "", "the set-up script (default: the preset's)")
}

// options are long's options from the flags.
func (f *longFlags) options(e *env) (long.Options, error) {
	if !llm.ThinkingLevel(f.run.thinking).Valid() {
		return long.Options{}, fmt.Errorf("unknown thinking level %q: use off, minimal, low, medium, high or xhigh", f.run.thinking)
	}
	if err := f.run.budget.Validate(); err != nil {
		return long.Options{}, err
	}
	if err := long.CheckPreset(long.Preset(f.preset)); err != nil {
		return long.Options{}, fmt.Errorf("--preset: %w", err)
	}
	f.run.frontend = "long"
	co, err := f.run.options(e, "", false)
	if err != nil {
		return long.Options{}, err
	}
	co.Budget.Cost = 0          // the run's whole budget, shared out by long
	co.DefaultMode = "auto_all" // nobody answers in long mode
	return long.Options{Agent: co, Overrides: long.Overrides{Preset: long.Preset(f.preset), Progress: f.progress,
		Notes: f.notes, Setup: f.setup, MaxFailures: f.failures}}, nil
}

func newLongCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "long",
		Short: "Carry out a long task over many sessions: a plan, then one verified task per session",
		Long: `Long mode splits a goal too large for one session into a plan of tasks and
works through it one task per fresh session:

  rein long init "GOAL"    an initializer session writes the plan (the progress
                           file), the notes and a set-up script; they are checked
                           and committed
  rein long work           worker sessions take the next task each; the harness
                           runs its verify commands and marks it done only when
                           they pass and the work is committed
  rein long status         the plan and where it stands

See docs/long-horizon.md.`,
	}
	cmd.AddCommand(newLongInitCmd(e), newLongWorkCmd(e), newLongStatusCmd(e))
	return cmd
}

func newLongInitCmd(e *env) *cobra.Command {
	f := &longFlags{}
	cmd := &cobra.Command{
		Use:   "init [flags] GOAL",
		Short: "Run the initializer session that writes the plan, the notes and the set-up script",
		Example: `  rein long init "add a REST API for the todo store, with tests"
  rein long init --preset anthropic "build a chat UI"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options(e)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			res, err := long.Init(cmd.Context(), long.InitOptions{Options: o, Retries: f.retries}, strings.Join(args, " "))
			if err != nil {
				return &exitError{code: longExit(err), err: err}
			}
			l := res.Layout
			fmt.Fprintf(e.stdout, "planned %d tasks in %s (notes %s, set-up %s) in %d attempt(s), $%.4f\n", res.Counts.Total, l.Progress, l.Notes, l.Setup, res.Attempts, res.Cost)
			if res.Commit != "" {
				fmt.Fprintf(e.stdout, "committed %s\n", shortHash(res.Commit))
			}
			fmt.Fprintln(e.stdout, "next: rein long work --until-done")
			return nil
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&f.retries, "retries", long.DefaultInitRetries, "how many times invalid files are sent back to the model to fix (-1: none)")
	return cmd
}

func newLongWorkCmd(e *env) *cobra.Command {
	f := &longFlags{}
	cmd := &cobra.Command{
		Use:   "work [flags]",
		Short: "Run worker sessions: one task each, verified by the harness and committed",
		Long: `Each worker session is a fresh session. The harness runs the set-up script,
takes the task in progress (else the first to do), and gives the model the
progress counts, the task and the end of the notes. When the model stops, the
harness runs the task's verify commands itself and marks the task done only
when all of them exit 0 and the model committed its work; then it appends a
notes entry and commits the progress and notes files. The model changes the
plan only with the work-item tools.

One line per session is printed: the task, the outcome and the cost.
The run stops when every task is done, after --sessions sessions, when
--max-cost is spent, or when one task fails its verification --max-failures
times. Exit status: 0 done or sessions run, 1 a task keeps failing or a
session failed, 2 bad input (a malformed progress file), 3 the budget.`,
		Example: `  rein long work                       one session
  rein long work --until-done --max-cost 20
  rein long work --sessions 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.sessions < 0 {
				return &exitError{code: 2, err: fmt.Errorf("--sessions %d is negative", f.sessions)}
			}
			o, err := f.options(e)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			o.Report = func(r long.SessionReport) { fmt.Fprintln(e.stdout, r.Line()) }
			res, err := long.Work(cmd.Context(), long.WorkOptions{Options: o, Sessions: f.sessions, UntilDone: f.untilDone, MaxCost: f.run.budget.Cost})
			if err != nil && len(res.Sessions) == 0 {
				return &exitError{code: longExit(err), err: err}
			}
			fmt.Fprintf(e.stdout, "stopped (%s): %s; %s; $%.4f spent\n", res.Stop, res.Detail, res.Counts, res.Cost)
			switch res.Stop {
			case long.StopDone, long.StopSessions:
				return nil
			case long.StopBudget:
				return &exitError{code: exitBudget}
			case long.StopInterrupted:
				return &exitError{code: 130}
			}
			if err == nil {
				err = errors.New(res.Detail)
			}
			return &exitError{code: 1, err: err}
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&f.untilDone, "until-done", false, "keep starting sessions until every task is done (or another stop)")
	cmd.Flags().IntVar(&f.sessions, "sessions", 0, "run at most this many sessions (0: one, or no cap with --until-done)")
	cmd.Flags().IntVar(&f.failures, "max-failures", 0, "stop when one task has failed its verification this many sessions (default: .rein/long.json's, else 3)")
	return cmd
}

func newLongStatusCmd(e *env) *cobra.Command {
	f := &longFlags{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the plan: each task's status, failures and evidence",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := workspaceDir(f.run.workdir)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			l, err := long.LoadLayout(root, long.Overrides{Preset: long.Preset(f.preset), Progress: f.progress, Notes: f.notes, Setup: f.setup})
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			p, err := long.NewStore(root, l).Load()
			if err != nil {
				return &exitError{code: longExit(err), err: err}
			}
			fmt.Fprintf(e.stdout, "%s: %s\n", l.Progress, p.Counts())
			for _, t := range p.Tasks {
				line := fmt.Sprintf("  %-11s %s  %s", t.Status, t.ID, t.Title)
				if t.Evidence != nil {
					line += fmt.Sprintf("  (verified at %s)", shortHash(t.Evidence.Commit))
				}
				if t.Failures > 0 {
					line += fmt.Sprintf("  (%d failed session(s))", t.Failures)
				}
				fmt.Fprintln(e.stdout, line)
			}
			return nil
		},
	}
	workdirFlag(cmd, &f.run.workdir)
	cmd.Flags().StringVar(&f.preset, "preset", "", "file layout: rein or anthropic (default .rein/long.json's, else rein)")
	cmd.Flags().StringVar(&f.progress, "progress-file", "", "the progress file (default: the preset's)")
	cmd.Flags().StringVar(&f.notes, "notes-file", "", "the notes file (default: the preset's)")
	cmd.Flags().StringVar(&f.setup, "setup-file", "", "the set-up script (default: the preset's)")
	return cmd
}

// longExit is the exit status of a long-mode error: 2 for bad input.
func longExit(err error) int {
	var probs long.Problems
	var fe *long.FileError
	switch {
	case errors.As(err, &probs), errors.As(err, &fe), errors.Is(err, long.ErrPlanExists):
		return 2
	case llm.CodeOf(err) == llm.CodeBudget:
		return exitBudget
	}
	return 1
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
