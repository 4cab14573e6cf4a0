package main

import (
	"fmt"
	"io"

	"github.com/reinhq/rein/coding"
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

func contextReplay(stdout, stderr io.Writer, c coding.ContextConfig, flagWindow int, files []string, asJSON, turns bool) error {
	rp := &coding.ContextReplayer{Config: c, Window: flagWindow}
	failed, err := rp.Report(stdout, files, asJSON, turns, func(err error) { fmt.Fprintln(stderr, "rein:", err) })
	if err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be read", failed, len(files))}
	}
	return nil
}
