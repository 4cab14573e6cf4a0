package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/guard/replay"
	"github.com/spf13/cobra"
)

// newGuardCmd returns `rein guard`, whose subcommand replay runs the
// guards over recorded sessions.
func newGuardCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "guard",
		Short: "Inspect and tune the guards that stop wasted tool calls",
		Long: `rein's guards stop wasted tool calls before they run: repeated failures,
re-reads of unchanged files, cascades of one tool, bash used where a dedicated
tool exists, and loops. They are on by default; configure them in
.rein/harness-config.json (see docs/guards.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newGuardReplayCmd())
	return cmd
}

func newGuardReplayCmd() *cobra.Command {
	var configPath, format, workdir string
	cmd := &cobra.Command{
		Use:   "replay [--config FILE] [--workdir DIR] [--format jsonl|table] FILE…",
		Short: "Run the guards over recorded sessions and report what they would have done",
		Long: `Run the guards over recorded sessions, offline, to tune a configuration and to
see what rein would have saved. Each call is decided as the rules would have
decided it at that point, then recorded with its recorded result.

Inputs (the format is detected from the content): rein session logs, pi session
files and pi --mode json streams, Claude Code session files and stream-json
logs, SWE-agent .traj files, mini-swe-agent .traj.json files, and neutral JSONL
with one call per line:
  {"turn": 1, "tool": "bash", "args": {"command": "cat a.txt"}, "result": "…", "is_error": false}

The configuration is the one the working directory would use
(.rein/harness-config.json, else .pi/harness-config.json, else the defaults)
unless --config names a file. Malformed lines are reported with their file and
line and skipped; the rest is replayed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return guardReplay(cmd.OutOrStdout(), cmd.ErrOrStderr(), configPath, format, workdir, args)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "guard configuration file (default: the working directory's)")
	cmd.Flags().StringVar(&workdir, "workdir", "", "the directory the recorded agent worked in: absolute paths below it count as inside the workspace (default: none, so every absolute path is outside)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: jsonl (one JSON line per call, then a summary line) or table")
	return cmd
}

// guardReplay replays files and writes the verdicts and a summary.
func guardReplay(stdout, stderr io.Writer, configPath, format, workdir string, files []string) error {
	if format != "jsonl" && format != "table" {
		return fmt.Errorf("--format %q: use jsonl or table", format)
	}
	warn := func(msg string) { fmt.Fprintln(stderr, "rein: warning:", msg) }
	cfg, err := guard.LoadFor(configPath, "", warn)
	var missing *guard.NoConfigFileError
	if errors.As(err, &missing) {
		return fmt.Errorf("--config: %w", err)
	} else if err != nil {
		return err
	}

	var out replay.Reporter
	if format == "jsonl" {
		out = replay.NewJSONL(stdout)
	} else {
		out = replay.NewTable(stdout)
	}
	failed, err := replay.Report(files, replay.ReportOptions{
		Options:   replay.Options{Config: &cfg, Workdir: workdir},
		Warn:      warn,
		GCPercent: 400,
		Problem:   func(msg string) { fmt.Fprintln(stderr, "rein:", msg) },
	}, out)
	if err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be replayed; the others were", failed, len(files))}
	}
	return nil
}
