package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/trajectory"
	"github.com/spf13/cobra"
)

// contextEvent prints the context events of the harness: compactions and
// notices the user should see.
func contextEvent(w io.Writer, p *printer, ev harness.Event) {
	switch ev.Type {
	case harness.EventAfterCompaction:
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

--config takes a JSON file like .rein/context.json (soft, hard, keep_tokens,
keep_turns, off, no_masking, window, max_output); --window overrides its
window. The default window is 128,000 tokens.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var c coding.ContextConfig
			if configPath != "" {
				var err error
				if c, err = coding.LoadContextConfig(configPath); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			if window > 0 {
				c.Window = window
			}
			if output != "text" && output != "json" {
				return &exitError{code: 2, err: fmt.Errorf("--output %q: use text or json", output)}
			}
			return contextReplay(cmd.OutOrStdout(), cmd.ErrOrStderr(), c, args, output == "json", turns)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "context settings (JSON, as .rein/context.json)")
	cmd.Flags().IntVar(&window, "window", 0, "context window to simulate, in tokens (default 128000)")
	cmd.Flags().BoolVar(&turns, "turns", false, "list every turn, not only the totals")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

// replayFile is the result of one file in JSON output.
type replayFile struct {
	File   string `json:"file"`
	Format string `json:"format"`
	compact.ReplayResult
}

func contextReplay(stdout, stderr io.Writer, c coding.ContextConfig, files []string, asJSON, turns bool) error {
	model := llm.Model{ContextWindow: c.Window, MaxOutput: c.MaxOutput}
	if model.ContextWindow == 0 {
		model.ContextWindow = compact.AssumedWindow
	}
	o := compact.ReplayOptions{Settings: c.Settings, Model: model}
	b := c.Settings.BudgetFor(model, 0)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	if !asJSON {
		fmt.Fprintf(stdout, "window %d tokens: masking from %d, compaction from %d, keep %d\n", b.Window, b.Soft, b.Hard, b.Keep)
	}
	var total compact.ReplayResult
	failed := 0
	enc := json.NewEncoder(stdout)
	for _, path := range files {
		msgs, format, err := readConversation(path)
		if err != nil {
			fmt.Fprintln(stderr, "rein:", err)
			failed++
			continue
		}
		r := compact.Replay(msgs, o)
		if asJSON {
			if err := enc.Encode(replayFile{File: path, Format: format, ReplayResult: r}); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(stdout, "\n%s (%s)\n", path, format)
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
		total.None += r.None
		total.Masked += r.Masked
		total.Compacted += r.Compacted
		total.Compactions += r.Compactions
		total.Stuck += r.Stuck
		total.Pairs += r.Pairs
		total.PairsWhole += r.PairsWhole
		total.Over += r.Over
		total.Turns = append(total.Turns, r.Turns...)
	}
	if !asJSON && len(files) > 1 {
		fmt.Fprintf(stdout, "\nall %d files\n", len(files)-failed)
		printReplayTotals(stdout, total)
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be read", failed, len(files))}
	}
	return nil
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
}

// readConversation reads a recording as a conversation: a rein session
// log gives its messages (the path to its leaf, compacted parts
// included); other formats give their tool calls and results, one
// assistant message a turn.
func readConversation(path string) ([]llm.Message, string, error) {
	if h, entries, _, err := session.ReadFile(path); err == nil && h.Type == session.HeaderType {
		return reinMessages(entries), "rein", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	s, err := trajectory.Read(f, path)
	if err != nil {
		return nil, "", err
	}
	return callMessages(s), string(s.Format), nil
}

// reinMessages returns the messages on the path from the root to the
// log's leaf, compaction summaries left out: the whole conversation as
// it happened.
func reinMessages(entries []session.Entry) []llm.Message {
	byID := make(map[string]*session.Entry, len(entries))
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
	}
	var path []llm.Message
	for id := session.LastLeaf(entries); id != ""; {
		e, ok := byID[id]
		if !ok {
			break
		}
		if e.Type == session.TypeMessage && e.Message != nil {
			path = append(path, *e.Message)
		}
		id = e.Parent
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// callMessages turns recorded calls into a conversation: a task message,
// then per turn an assistant message with its calls and their results.
func callMessages(s *trajectory.Session) []llm.Message {
	msgs := []llm.Message{llm.UserText("(recorded task)")}
	var cur *llm.Message
	var results []llm.Message
	turn := -1
	flush := func() {
		if cur != nil {
			msgs = append(msgs, *cur)
			msgs = append(msgs, results...)
		}
		cur, results = nil, nil
	}
	for i, c := range s.Calls {
		if c.Turn != turn || cur == nil {
			flush()
			turn = c.Turn
			cur = &llm.Message{Role: llm.RoleAssistant}
		}
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		args := c.Args
		if !json.Valid(args) || len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		cur.Content = append(cur.Content, llm.ToolCall(id, c.Tool, args))
		results = append(results, llm.ToolResult(id, c.Tool, c.IsError, llm.Text(c.Result)))
	}
	flush()
	return append(msgs, llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("(end of recording)")}})
}
