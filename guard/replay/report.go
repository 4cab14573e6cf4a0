package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/trajectory"
)

// Reporter writes the verdicts of a replay as they come and the summary
// at the end: File starts one recording, Entry follows for each of its
// calls, Summary is called once with the total of every file. Report
// calls a Reporter from one goroutine.
type Reporter interface {
	File(path string, s *trajectory.Session)
	Entry(e Entry)
	Summary(s Summary) error
}

// ReportOptions configures Report.
type ReportOptions struct {
	Options
	// Workers is how many files are replayed at once; 0 or less is one
	// per core (runtime.GOMAXPROCS). Sessions are independent, and are
	// reported in the order given whatever the number.
	Workers int
	// Warn receives notes that lose nothing, such as an empty file that
	// was skipped. Nil drops them.
	Warn func(msg string)
	// GCPercent, when above 0, sets the garbage collector's target
	// percentage (debug.SetGCPercent) while Report runs, and restores it
	// after. Replay makes many short-lived strings (decoded messages,
	// hashed outputs): 400 halves its time for a heap of a few tens of
	// megabytes. The setting is the process's, so only a caller that
	// owns the process (a command) should set it.
	GCPercent int
	// Problem receives each file that could not be read or replayed and
	// the malformed lines that were skipped (at most MaxProblems a file,
	// then one line saying how many more). Nil drops them.
	Problem func(msg string)
}

// MaxProblems bounds the malformed lines of one file that Report passes
// to ReportOptions.Problem.
const MaxProblems = 20

// Report replays the recordings at paths (see Files) and writes each
// file's verdicts, in the order of paths, and then the total summary to
// out. A file holding only white space is skipped with a warning. It
// returns how many files could not be replayed, and the first error out
// returned.
func Report(paths []string, opts ReportOptions, out Reporter) (failed int, err error) {
	warn := func(msg string) {
		if opts.Warn != nil {
			opts.Warn(msg)
		}
	}
	problem := func(msg string) {
		if opts.Problem != nil {
			opts.Problem(msg)
		}
	}
	if opts.GCPercent > 0 {
		defer debug.SetGCPercent(debug.SetGCPercent(opts.GCPercent))
	}
	var total Summary
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for r := range Files(paths, opts.Options, workers) {
		path, s := r.Path, r.Session
		if r.Err != nil {
			if empty, _ := isEmptyFile(path); empty {
				warn(path + " is empty: nothing to replay; skipped")
				continue
			}
			problem(r.Err.Error())
			failed++
			continue
		}
		for i, p := range s.Problems {
			if i == MaxProblems {
				problem(fmt.Sprintf("%s: %d more malformed lines skipped", path, len(s.Problems)-i))
				break
			}
			problem(p.Error())
		}
		out.File(path, s)
		for _, e := range r.Entries {
			out.Entry(e)
		}
		total.Add(r.Summary)
	}
	return failed, out.Summary(total)
}

// isEmptyFile reports whether path holds only white space.
func isEmptyFile(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	return len(strings.TrimSpace(string(b))) == 0, nil
}

// NewJSONL returns a Reporter that writes one JSON object per Entry and
// a last line {"summary": …}. The first write error is returned by
// Summary.
func NewJSONL(w io.Writer) Reporter { return &jsonlReporter{enc: json.NewEncoder(w)} }

type jsonlReporter struct {
	enc *json.Encoder
	err error
}

func (o *jsonlReporter) File(string, *trajectory.Session) {}

func (o *jsonlReporter) Entry(e Entry) {
	if o.err == nil {
		o.err = o.enc.Encode(e)
	}
}

func (o *jsonlReporter) Summary(s Summary) error {
	if o.err != nil {
		return o.err
	}
	return o.enc.Encode(struct {
		Summary Summary `json:"summary"`
	}{s})
}

// NewTable returns a Reporter that writes a table of calls per file
// (line, index, turn, tool, decision, rule, message cut to 110 bytes)
// and a summary by decision and rule with the token account.
func NewTable(w io.Writer) Reporter { return &tableReporter{w: w} }

type tableReporter struct {
	w     io.Writer
	tw    *tabwriter.Writer
	files int
}

func (o *tableReporter) File(path string, s *trajectory.Session) {
	o.flush()
	if o.files > 0 {
		fmt.Fprintln(o.w)
	}
	o.files++
	fmt.Fprintf(o.w, "%s (%s, %s)\n", path, s.Format, plural(len(s.Calls), "call"))
	o.tw = tabwriter.NewWriter(o.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(o.tw, "  LINE\t#\tTURN\tTOOL\tDECISION\tRULE\tMESSAGE")
}

func (o *tableReporter) flush() {
	if o.tw != nil {
		o.tw.Flush()
		o.tw = nil
	}
}

func (o *tableReporter) Entry(e Entry) {
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
	fmt.Fprintf(o.tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%s\n", line, e.I, e.Turn, e.Tool, e.Decision, dash(e.Rule), msg)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (o *tableReporter) Summary(s Summary) error {
	o.flush()
	w := o.w
	if o.files > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Summary: %s, %s", plural(s.Files, "file"), plural(s.Calls, "call"))
	if s.Malformed > 0 {
		fmt.Fprintf(w, " (%s skipped)", plural(s.Malformed, "malformed line"))
	}
	fmt.Fprintln(w)
	if len(s.Formats) > 0 {
		fmt.Fprintf(w, "  formats:   %s\n", counts(s.Formats, nil))
	}
	fmt.Fprintf(w, "  decisions: %s\n", counts(s.Decisions, []string{"allow", "hint", "warn", "cached", "block", "stop", Skipped}))
	if len(s.Rules) > 0 {
		fmt.Fprintln(w, "  by rule:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range append(guard.Rules(), otherRules(s.Rules)...) {
			if m, ok := s.Rules[r]; ok {
				t := s.ByRule[r]
				fmt.Fprintf(tw, "    %s\t%s\tnet %+d\t(saved %d, added %d, round trips %d)\n", r, counts(m, []string{"allow", "hint", "warn", "cached", "block", "stop"}), t.Net, t.Saved, t.Added, t.RoundTrip)
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
	_, err := fmt.Fprintln(w)
	return err
}

// otherRules lists rule ids that guard.Rules does not know, sorted.
func otherRules(m map[string]map[string]int) []string {
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
func counts(m map[string]int, order []string) string {
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
