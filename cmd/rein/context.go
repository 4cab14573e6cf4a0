package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/session"
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
type replayFile struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// Model is the model the recording names ("" when none); Window the
	// window replayed and WindowFrom where it came from ("model", "flag",
	// "config", "assumed").
	Model      string `json:"model,omitempty"`
	Window     int    `json:"window"`
	WindowFrom string `json:"window_from"`
	compact.ReplayResult
}

// replayTotal is the total of every file in JSON output.
type replayTotal struct {
	Total compact.ReplayResult `json:"total"`
	Files int                  `json:"files"`
}

func contextReplay(stdout, stderr io.Writer, c coding.ContextConfig, flagWindow int, files []string, asJSON, turns bool) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	var cat *catalog.Catalog
	var total compact.ReplayResult
	failed := 0
	enc := json.NewEncoder(stdout)
	for _, path := range files {
		msgs, format, err := coding.ReadConversation(path)
		if err != nil {
			fmt.Fprintln(stderr, "rein:", err)
			failed++
			continue
		}
		ref, recorded := recordedModelOf(path, format)
		model := llm.Model{ContextWindow: c.Window, MaxOutput: c.MaxOutput}
		from := "config"
		switch {
		case flagWindow > 0:
			model.ContextWindow, from = flagWindow, "flag"
		case c.Window > 0:
		case recorded > 0:
			model.ContextWindow, from = recorded, "model"
		default:
			if cat == nil {
				cat = catalog.New(catalog.Options{})
			}
			if m, ok := recordedWindow(cat, ref); ok {
				model.ContextWindow, from = m.ContextWindow, "model"
				if model.MaxOutput == 0 {
					model.MaxOutput = m.MaxOutput
				}
			} else {
				model.ContextWindow, from = compact.AssumedWindow, "assumed"
			}
		}
		b := c.Settings.BudgetFor(model, 0)
		r := compact.Replay(msgs, compact.ReplayOptions{Settings: c.Settings, Model: model})
		if asJSON {
			if err := enc.Encode(replayFile{File: path, Format: format, Model: ref, Window: b.Window, WindowFrom: from, ReplayResult: r}); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(stdout, "\n%s (%s)\n  window %d tokens (%s): masking from %d, compaction from %d, keep %d\n",
				path, format, b.Window, windowSource(from, ref), b.Soft, b.Hard, b.Keep)
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
			printReplayTotals(stdout, r)
		}
		addReplay(&total, &r)
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

func addReplay(total, r *compact.ReplayResult) {
	total.None += r.None
	total.Masked += r.Masked
	total.Compacted += r.Compacted
	total.Compactions += r.Compactions
	total.Stuck += r.Stuck
	total.Pairs += r.Pairs
	total.PairsWhole += r.PairsWhole
	total.Over += r.Over
	total.GoalMissing += r.GoalMissing
	total.IdentsNeeded += r.IdentsNeeded
	total.IdentsMissing += r.IdentsMissing
	total.Turns = append(total.Turns, r.Turns...)
}

func windowSource(from, ref string) string {
	switch from {
	case "model":
		return "of " + ref
	case "flag":
		return "--window"
	case "config":
		return "--config"
	}
	if ref != "" {
		return ref + " is not in the model catalog: assumed; give --window"
	}
	return "the recording names no model: assumed; give --window"
}

// recordedWindow looks the model a recording names up in the catalog:
// as written ("anthropic/claude-sonnet-4-5"), then by its last part
// ("openrouter/google/gemini-…" → "gemini-…"), each also without a
// date suffix. Only a model the catalog knows counts.
func recordedWindow(cat *catalog.Catalog, ref string) (llm.Model, bool) {
	if ref == "" {
		return llm.Model{}, false
	}
	refs := []string{ref}
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		refs = append(refs, ref[i+1:])
	}
	// A dated snapshot ("claude-sonnet-4-5-20250929") has the window of
	// its model.
	for _, r := range refs {
		if i := strings.LastIndexByte(r, '-'); i > 0 && len(r)-i-1 == 8 && strings.Trim(r[i+1:], "0123456789") == "" {
			refs = append(refs, r[:i])
		}
	}
	for _, r := range refs {
		if res, err := cat.Resolve(r); err == nil && res.Known && res.Model.ContextWindow > 0 {
			return res.Model, true
		}
	}
	return llm.Model{}, false
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

// recordedModelOf returns the model a recording names ("" when none)
// and its context window when the recording says (rein logs do), else 0.
func recordedModelOf(path, format string) (ref string, window int) {
	if format == "rein" {
		if _, entries, _, err := session.ReadFile(path); err == nil {
			c := session.BuildContext(entries, session.LastLeaf(entries))
			if c.Model != "" {
				ref = c.Provider + "/" + c.Model
			}
			return ref, c.ContextWindow
		}
	}
	return recordedModel(path), 0
}

// maxModelScan bounds how much of a recording is searched for the model
// it names.
const maxModelScan = 64 << 20

// recordedModel returns the model a recording of another agent names:
// the last string under a "model", "model_name" or "modelId" key in any
// of its JSON values (Claude Code's message.model, pi's model_change,
// mini-swe-agent's info.config.model.model_name). "" when none.
func recordedModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, maxModelScan))
	found := ""
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			return found
		}
		if m := modelIn(v, 0); m != "" {
			found = m
		}
	}
}

func modelIn(v any, depth int) string {
	if depth > 12 {
		return ""
	}
	found := ""
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && (k == "model" || k == "model_name" || k == "modelId") && plausibleModel(s) {
				found = s
			} else if m := modelIn(val, depth+1); m != "" && found == "" {
				found = m
			}
		}
	case []any:
		for _, val := range x {
			if m := modelIn(val, depth+1); m != "" {
				found = m
			}
		}
	}
	return found
}

// plausibleModel reports whether s looks like a model id, not prose.
func plausibleModel(s string) bool {
	return s != "" && len(s) <= 100 && !strings.ContainsAny(s, " \n\t") && strings.ContainsAny(s, "0123456789")
}
