package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/work/long"
	"github.com/spf13/cobra"
)

// longFlags are the flags of rein long's commands.
type longFlags struct {
	run               runOptions
	layout            long.Overrides
	retries, sessions int
	untilDone         bool
}

func (f *longFlags) add(cmd *cobra.Command, all bool) {
	fl, o := cmd.Flags(), &f.run
	workdirFlag(cmd, &o.workdir)
	fl.StringVar((*string)(&f.layout.Preset), "preset", "", "file layout: rein (agent-progress.json, agent-notes.md, workspace.sh) or anthropic (feature_list.json, claude-progress.txt, init.sh); default .rein/long.json's, else rein")
	fl.StringVar(&f.layout.Progress, "progress-file", "", "the progress file (default: the preset's)")
	fl.StringVar(&f.layout.Notes, "notes-file", "", "the notes file (default: the preset's)")
	fl.StringVar(&f.layout.Setup, "setup-file", "", "the set-up script (default: the preset's)")
	if !all {
		return
	}
	fl.StringVarP(&o.model, "model", "m", "", "model: provider/model or an alias (rein models lists them), or faux with --script")
	fl.StringVar(&o.script, "script", "", "JSONL file of scripted replies for --model faux (shared by every session)")
	fl.StringVar(&o.baseURL, "base-url", "", "send requests to this server instead of the provider's")
	fl.IntVar(&o.maxTurns, "max-turns", agent.DefaultMaxTurns, "stop a session after this many turns (0 = no cap)")
	fl.StringVar(&o.tools, "tools", "coding", "tools to offer each session (the work-item tools are always added)")
	fl.StringVar(&o.thinking, "thinking", "", "reasoning effort: off, minimal, low, medium, high, xhigh")
	fl.StringVar(&o.permissionMode, "permission-mode", "", "what runs without asking (default auto_all: nobody answers in long mode; bash stays sandboxed)")
	fl.Float64Var(&o.budget.Cost, "max-cost", 0, "stop once the sessions have spent this many US dollars, counting those of a run whose process died (0 = no limit beyond .rein/telemetry.json's per-run default); exit status 3")
}

// longCmd is a rein long command: run gets the options from the flags
// and returns what to print, the exit status and the error.
func longCmd(e *env, f *longFlags, cmd *cobra.Command, all bool, run func(context.Context, long.Options, []string) (string, int, error)) *cobra.Command {
	cmd.RunE = func(c *cobra.Command, args []string) (err error) {
		o := long.Options{Overrides: f.layout, Report: func(r long.SessionReport) { fmt.Fprintln(e.stdout, r.Line()) }}
		if f.run.frontend = "long"; all {
			if o.Agent, err = f.run.options(e, "", false); err != nil {
				return &exitError{code: 2, err: err}
			}
		}
		out, code, err := run(c.Context(), o, args)
		fmt.Fprint(e.stdout, out)
		if code != 0 {
			return &exitError{code: code, err: err}
		}
		return nil
	}
	f.add(cmd, all)
	return cmd
}

func newLongCmd(e *env) *cobra.Command {
	var fi, fw, fs longFlags
	initCmd := longCmd(e, &fi, &cobra.Command{Use: "init [flags] GOAL", Args: cobra.MinimumNArgs(1), Short: "Run the initializer session that writes the plan, the notes and the set-up script",
		Example: "  rein long init \"add a REST API for the todo store, with tests\"\n  rein long init --preset anthropic \"build a chat UI\""},
		true, func(ctx context.Context, o long.Options, args []string) (string, int, error) {
			return long.InitOutcome(long.Init(ctx, long.InitOptions{Options: o, Retries: fi.retries}, strings.Join(args, " ")))
		})
	initCmd.Flags().IntVar(&fi.retries, "retries", long.DefaultInitRetries, "how many times invalid files are sent back to the model to fix (-1: none)")
	workCmd := longCmd(e, &fw, &cobra.Command{Use: "work [flags]", Args: cobra.NoArgs, Long: long.WorkHelp, Short: "Run worker sessions: one task each, verified by the harness and committed",
		Example: "  rein long work                       one session\n  rein long work --until-done --max-cost 20\n  rein long work --sessions 3"},
		true, func(ctx context.Context, o long.Options, _ []string) (string, int, error) {
			return long.WorkOutcome(long.Work(ctx, long.WorkOptions{Options: o, Sessions: fw.sessions, UntilDone: fw.untilDone, MaxCost: fw.run.budget.Cost}))
		})
	workCmd.Flags().BoolVar(&fw.untilDone, "until-done", false, "keep starting sessions until every task is done (or another stop)")
	workCmd.Flags().IntVar(&fw.sessions, "sessions", 0, "run at most this many sessions (0: one, or no cap with --until-done)")
	workCmd.Flags().IntVar(&fw.layout.MaxFailures, "max-failures", 0, "stop when one task has failed its verification this many sessions (default: .rein/long.json's, else 3)")
	statusCmd := longCmd(e, &fs, &cobra.Command{Use: "status", Short: "Show the plan: each task's status, failures and evidence", Args: cobra.NoArgs},
		false, func(_ context.Context, o long.Options, _ []string) (string, int, error) {
			return long.StatusReport(fs.run.workdir, o.Overrides)
		})
	cmd := &cobra.Command{Use: "long", Short: "Carry out a long task over many sessions: a plan, then one verified task per session", Long: long.Help}
	cmd.AddCommand(initCmd, workCmd, statusCmd)
	return cmd
}
