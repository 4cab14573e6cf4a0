package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/harness"
	"github.com/spf13/cobra"
)

// contextEvent prints the context events of the harness: compactions and
// notices the user should see.
func contextEvent(w io.Writer, p *printer, ev harness.Event) {
	switch ev.Type {
	case harness.EventAfterCompaction:
		if ev.Compaction != nil && ev.Compaction.Digest {
			return // the context notice that follows says it, and why
		}
		fmt.Fprintln(w, p.style(ansiDim, "  ⟳ "+ev.Detail))
	case harness.EventContextNotice:
		fmt.Fprintln(w, p.style(ansiRed, "  ! "+ev.Detail))
	}
}

func newContextCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Measure context management (masking, compaction) on recorded sessions",
	}
	cmd.AddCommand(newContextReplayCmd())
	return cmd
}

func newContextReplayCmd() *cobra.Command {
	var configPath, output string
	var window int
	var turns bool
	cmd := &cobra.Command{
		Use:   "replay [--config FILE] FILE…",
		Short: "Size every request of recorded sessions with no management, with masking, and with masking + compaction",
		Long: `Replay recorded sessions (rein session logs and every format rein guard replay
reads: pi sessions and events, Claude Code sessions and stream-json, SWE-agent
.traj, neutral JSONL) and report the input tokens each model request would have
held: with no context management, with masking of old tool output only, and
with masking and compaction. Summaries come from the deterministic digest, so
the figures are reproducible offline. Recordings other than rein's own give
tool calls and results only: their text is not counted.

Each file is replayed at the window of the model it recorded: a rein log's
model, or the model another agent's recording names, looked up in the model
catalog. --window, or a window in --config, replaces it for every file; a
recording whose model is unknown is replayed at 128,000 tokens, and says so.
--config takes a JSON file like .rein/context.json (soft, hard, keep_tokens,
keep_turns, off, no_masking, window, max_output).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var c coding.ContextConfig
			if configPath != "" {
				var err error
				if c, err = coding.LoadContextConfig(configPath); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			if output != "text" && output != "json" {
				return &exitError{code: 2, err: fmt.Errorf("--output %q: use text or json", output)}
			}
			return contextReplay(cmd.OutOrStdout(), cmd.ErrOrStderr(), c, window, args, output == "json", turns)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "context settings (JSON, as .rein/context.json)")
	cmd.Flags().IntVar(&window, "window", 0, "context window to simulate, in tokens (default: the recorded model's)")
	cmd.Flags().BoolVar(&turns, "turns", false, "list every turn, not only the totals")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

// replayFile is the result of one file in JSON output.
type replayFile = coding.ContextReplay

// replayTotal is the total of every file in JSON output.
type replayTotal struct {
	Total compact.ReplayResult `json:"total"`
	Files int                  `json:"files"`
}

func contextReplay(stdout, stderr io.Writer, c coding.ContextConfig, flagWindow int, files []string, asJSON, turns bool) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	rp := &coding.ContextReplayer{Config: c, Window: flagWindow}
	var total compact.ReplayResult
	failed := 0
	enc := json.NewEncoder(stdout)
	for _, path := range files {
		r, err := rp.Replay(path)
		if err != nil {
			fmt.Fprintln(stderr, "rein:", err)
			failed++
			continue
		}
		if asJSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
		} else {
			b := r.Budget
			fmt.Fprintf(stdout, "\n%s (%s)\n  window %d tokens (%s): masking from %d, compaction from %d, keep %d\n",
				path, r.Format, b.Window, windowSource(r.WindowFrom, r.Model), b.Soft, b.Hard, b.Keep)
			if turns {
				fmt.Fprintln(tw, "turn\tnone\tmasking\tmasking+compaction\t")
				for _, t := range r.Turns {
					mark := ""
					if t.Compaction {
						mark = " ⟳"
					}
					fmt.Fprintf(tw, "%d\t%d\t%d\t%d%s\t\n", t.Turn, t.None, t.Masked, t.Compacted, mark)
				}
				tw.Flush()
			}
			printReplayTotals(stdout, r.ReplayResult)
		}
		total.Add(r.ReplayResult)
	}
	switch {
	case asJSON && len(files) > 1:
		if err := enc.Encode(replayTotal{Total: total, Files: len(files) - failed}); err != nil {
			return err
		}
	case !asJSON && len(files) > 1:
		fmt.Fprintf(stdout, "\nall %d files\n", len(files)-failed)
		printReplayTotals(stdout, total)
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be read", failed, len(files))}
	}
	return nil
}

func windowSource(from, ref string) string {
	switch from {
	case coding.WindowFromModel:
		return "of " + ref
	case coding.WindowFromFlag:
		return "--window"
	case coding.WindowFromConfig:
		return "--config"
	}
	if ref != "" {
		return ref + " is not in the model catalog: assumed; give --window"
	}
	return "the recording names no model: assumed; give --window"
}

func printReplayTotals(w io.Writer, r compact.ReplayResult) {
	ratio := func(n int) string {
		if r.None == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", float64(n)/float64(r.None))
	}
	fmt.Fprintf(w, "  %d requests; input tokens: none %d, masking %d (×%s), masking+compaction %d (×%s)\n",
		len(r.Turns), r.None, r.Masked, ratio(r.Masked), r.Compacted, ratio(r.Compacted))
	fmt.Fprintf(w, "  %d compactions", r.Compactions)
	if r.Stuck > 0 {
		fmt.Fprintf(w, " (%d could not get under the threshold)", r.Stuck)
	}
	fmt.Fprintf(w, "; tool pairs kept whole: %d of %d", r.PairsWhole, r.Pairs)
	if r.Over > 0 {
		fmt.Fprintf(w, "; %d requests still over the window", r.Over)
	}
	fmt.Fprintln(w)
	if r.Compactions > 0 {
		fmt.Fprintf(w, "  summaries: goal verbatim in %d of %d; identifiers the kept part needs: %d of %d kept\n",
			r.Compactions-r.GoalMissing, r.Compactions, r.IdentsNeeded-r.IdentsMissing, r.IdentsNeeded)
	}
}
