package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/guard/replay"
	"github.com/reinhq/rein/trajectory"
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
	var cfg guard.Config
	if configPath != "" {
		c, err := guard.LoadConfig(configPath)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--config: no such file: %s", configPath)
		}
		if err != nil {
			warn(err.Error())
		}
		cfg = c
	} else {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		cfg = (&guard.Loader{Warn: warn}).Load(wd)
	}

	var out guardOutput
	if format == "jsonl" {
		out = &guardJSONL{enc: json.NewEncoder(stdout)}
	} else {
		out = newGuardTable(stdout)
	}
	var total replay.Summary
	failed := 0
	// Replay makes many short-lived strings (decoded messages, hashed
	// outputs): collecting less often halves its time, for a heap of a
	// few tens of megabytes.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	// Sessions are independent: they are read and replayed on every core,
	// and reported in the order given.
	for r := range replay.Files(files, replay.Options{Config: &cfg, Workdir: workdir}, runtime.GOMAXPROCS(0)) {
		path, s := r.Path, r.Session
		if r.Err != nil {
			if empty, _ := isEmptyFile(path); empty {
				warn(path + " is empty: nothing to replay; skipped")
				continue
			}
			fmt.Fprintln(stderr, "rein:", r.Err)
			failed++
			continue
		}
		for i, p := range s.Problems {
			if i == 20 {
				fmt.Fprintf(stderr, "rein: %s: %d more malformed lines skipped\n", path, len(s.Problems)-i)
				break
			}
			fmt.Fprintln(stderr, "rein:", p)
		}
		out.file(path, s)
		for _, e := range r.Entries {
			out.entry(e)
		}
		total.Add(r.Summary)
	}
	if err := out.summary(total); err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be replayed; the others were", failed, len(files))}
	}
	return nil
}

// guardOutput writes verdicts as they come and the summary at the end.
type guardOutput interface {
	// file starts the verdicts of one recording.
	file(path string, s *trajectory.Session)
	entry(e replay.Entry)
	summary(s replay.Summary) error
}

type guardJSONL struct {
	enc *json.Encoder
	err error
}

func (o *guardJSONL) file(string, *trajectory.Session) {}

func (o *guardJSONL) entry(e replay.Entry) {
	if o.err == nil {
		o.err = o.enc.Encode(e)
	}
}

func (o *guardJSONL) summary(s replay.Summary) error {
	if o.err != nil {
		return o.err
	}
	return o.enc.Encode(struct {
		Summary replay.Summary `json:"summary"`
	}{s})
}

type guardTable struct {
	w     io.Writer
	tw    *tabwriter.Writer
	files int
}

func newGuardTable(w io.Writer) *guardTable { return &guardTable{w: w} }

func (o *guardTable) file(path string, s *trajectory.Session) {
	o.flush()
	if o.files > 0 {
		fmt.Fprintln(o.w)
	}
	o.files++
	fmt.Fprintf(o.w, "%s (%s, %s)\n", path, s.Format, guardPlural(len(s.Calls), "call"))
	o.tw = tabwriter.NewWriter(o.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(o.tw, "  LINE\t#\tTURN\tTOOL\tDECISION\tRULE\tMESSAGE")
}

func (o *guardTable) flush() {
	if o.tw != nil {
		o.tw.Flush()
		o.tw = nil
	}
}

func (o *guardTable) entry(e replay.Entry) {
	line := "-"
	if e.Line > 0 {
		line = fmt.Sprint(e.Line)
	}
	msg := strings.Join(strings.Fields(e.Message), " ")
	if len(msg) > 110 {
		n := 110
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n] + "…"
	}
	fmt.Fprintf(o.tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%s\n", line, e.I, e.Turn, e.Tool, e.Decision, guardDash(e.Rule), msg)
}

func guardDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (o *guardTable) summary(s replay.Summary) error {
	o.flush()
	w := o.w
	if o.files > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Summary: %s, %s", guardPlural(s.Files, "file"), guardPlural(s.Calls, "call"))
	if s.Malformed > 0 {
		fmt.Fprintf(w, " (%s skipped)", guardPlural(s.Malformed, "malformed line"))
	}
	fmt.Fprintln(w)
	if len(s.Formats) > 0 {
		fmt.Fprintf(w, "  formats:   %s\n", guardCounts(s.Formats, nil))
	}
	fmt.Fprintf(w, "  decisions: %s\n", guardCounts(s.Decisions, []string{"allow", "hint", "warn", "cached", "block", "stop", replay.Skipped}))
	if len(s.Rules) > 0 {
		fmt.Fprintln(w, "  by rule:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range append(guard.Rules(), guardOtherRules(s.Rules)...) {
			if m, ok := s.Rules[r]; ok {
				t := s.ByRule[r]
				fmt.Fprintf(tw, "    %s\t%s\tnet %+d\t(saved %d, added %d, round trips %d)\n", r, guardCounts(m, []string{"allow", "hint", "warn", "cached", "block", "stop"}), t.Net, t.Saved, t.Added, t.RoundTrip)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	t := s.Tokens
	fmt.Fprintf(w, "  tokens (characters/4; request prefixes as recorded, else estimated): net %+d = %d saved (output not sent again: unchanged views, blocked repeats, everything after a stop) - %d added by guard messages - %d for the extra round trips of blocks",
		t.Net, t.Saved, t.Added, t.RoundTrip)
	if s.TokensCached > 0 {
		fmt.Fprintf(w, "; %d re-served as cached copies", s.TokensCached)
	}
	fmt.Fprintln(w)
	return nil
}

// otherRules lists rule ids that guard.Rules does not know, sorted.
func guardOtherRules(m map[string]map[string]int) []string {
	known := guard.Rules()
	var out []string
	for r := range m {
		if !slices.Contains(known, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// counts formats "a 3, b 1" in the given order, then any other keys
// sorted.
func guardCounts(m map[string]int, order []string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		if v, ok := m[k]; ok && v > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		seen[k] = true
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func guardPlural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// isEmptyFile reports whether path holds only white space.
func isEmptyFile(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	return len(strings.TrimSpace(string(b))) == 0, nil
}
