package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/reinhq/rein/telemetry"
	"github.com/spf13/cobra"
)

// runsFlags are the flags every rein runs command shares.
type runsFlags struct {
	dir   string
	since string
	json  bool
}

func (f *runsFlags) add(cmd *cobra.Command, since string) {
	workdirFlag(cmd, &f.dir)
	cmd.Flags().StringVar(&f.since, "since", since, "only runs begun since: a duration back from now (7d, 12h, 2w) or a date (2026-11-01); empty for all")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of a table")
}

// read loads the records, telling of skipped lines on standard error.
func (f *runsFlags) read(e *env) ([]telemetry.Record, error) {
	since, err := telemetry.ParseSince(f.since, time.Now())
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	root, err := workspaceDir(f.dir)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	recs, err := telemetry.ReadWorkspace(root, since, func(p telemetry.Problem) { fmt.Fprintln(e.stderr, "rein: skipped", p) })
	if err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	return recs, nil
}

func newRunsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List, show and sum up the record of every run in this workspace",
		Long: `Every prompt rein runs leaves a record in .rein/runs/ (one JSON line per run)
and in its session: who started it, the model, how it ended, turns, tool calls,
guard decisions, compactions, fallbacks, tokens and cost, and the runs it
started. See docs/observability.md for the fields.`,
	}
	cmd.AddCommand(newRunsListCmd(e), newRunsShowCmd(e), newRunsStatsCmd(e))
	return cmd
}

func newRunsListCmd(e *env) *cobra.Command {
	var f runsFlags
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List runs, newest last",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			recs, err := f.read(e)
			if err != nil {
				return err
			}
			if limit > 0 && len(recs) > limit {
				recs = recs[len(recs)-limit:]
			}
			if f.json {
				return telemetry.WriteJSONL(e.stdout, recs)
			}
			if len(recs) == 0 {
				fmt.Fprintln(e.stderr, "rein: no runs recorded in this workspace"+sinceText(f.since))
				return nil
			}
			return telemetry.WriteList(e.stdout, recs)
		},
	}
	f.add(cmd, "7d")
	cmd.Flags().IntVarP(&limit, "limit", "n", 30, "show at most this many runs, the latest (0 = all)")
	return cmd
}

func sinceText(since string) string {
	if since == "" {
		return ""
	}
	return " since " + since + " (--since \"\" for all)"
}

func newRunsShowCmd(e *env) *cobra.Command {
	var f runsFlags
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show everything recorded about one run (an id or a unique prefix; last for the latest)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			recs, err := f.read(e)
			if err != nil {
				return err
			}
			rec, err := telemetry.FindRef(recs, args[0])
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if f.json {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rec)
			}
			return telemetry.WriteShow(e.stdout, rec)
		},
	}
	f.add(cmd, "")
	return cmd
}

func newRunsStatsCmd(e *env) *cobra.Command {
	var f runsFlags
	var by string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Sum up runs by model, agent, tool, outcome, front-end or day",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(telemetry.Groups(), telemetry.Group(by)) {
				_, err := telemetry.Stats(nil, telemetry.Group(by))
				return &exitError{code: 2, err: err}
			}
			recs, err := f.read(e)
			if err != nil {
				return err
			}
			rows, err := telemetry.Stats(recs, telemetry.Group(by))
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if f.json {
				return json.NewEncoder(e.stdout).Encode(rows)
			}
			if len(recs) == 0 {
				fmt.Fprintln(e.stderr, "rein: no runs recorded in this workspace"+sinceText(f.since))
				return nil
			}
			return telemetry.WriteStats(e.stdout, rows, telemetry.Group(by))
		},
	}
	f.add(cmd, "7d")
	cmd.Flags().StringVar(&by, "by", "model", "group by: model, agent, tool, outcome, frontend or day")
	return cmd
}
