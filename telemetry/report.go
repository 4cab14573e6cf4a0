package telemetry

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// ParseSince reads a --since value: a duration back from now ("7d",
// "12h", "30m", "2w") or a date ("2026-11-01", UTC). The empty string
// means no bound (the zero time).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
	if unit > 0 {
		n, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err == nil && n >= 0 {
			return now.Add(-time.Duration(n * float64(unit))), nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: give a duration back from now (7d, 12h, 30m, 2w) or a date (2026-11-01)", s)
}

// Group names a way to group records in stats.
type Group string

// Groups.
const (
	ByModel    Group = "model"
	ByAgent    Group = "agent"
	ByTool     Group = "tool"
	ByOutcome  Group = "outcome"
	ByFrontend Group = "frontend"
	ByDay      Group = "day"
)

// Groups lists the groups stats accepts.
func Groups() []Group { return []Group{ByModel, ByAgent, ByTool, ByOutcome, ByFrontend, ByDay} }

// Row is one line of stats: the runs of a group and what they did.
type Row struct {
	Key       string  `json:"key"`
	Runs      int     `json:"runs"`
	Completed int     `json:"completed"`
	Budget    int     `json:"budget_exhausted"`
	Failed    int     `json:"failed"`
	Turns     int     `json:"turns"`
	ToolCalls int     `json:"tool_calls"`
	ToolErrs  int     `json:"tool_errors"`
	Usage     Usage   `json:"usage"`
	Cost      float64 `json:"cost"`
	// P50MS and P95MS are run durations; for tools they are not kept.
	P50MS int64 `json:"p50_ms"`
	P95MS int64 `json:"p95_ms"`
	durs  []int64
}

// Stats groups records. Grouped by tool, a row counts the runs that
// called the tool and the tool's calls and errors; usage and cost are
// left out, as a run's spending is not split by tool. Rows are sorted by
// cost, then runs, most first; the last row is the total ("all").
func Stats(recs []Record, by Group) ([]Row, error) {
	if !slices.Contains(Groups(), by) {
		return nil, fmt.Errorf("--by %q: use one of %s", by, joinGroups())
	}
	rows := map[string]*Row{}
	get := func(k string) *Row {
		if k == "" {
			k = "-"
		}
		r := rows[k]
		if r == nil {
			r = &Row{Key: k}
			rows[k] = r
		}
		return r
	}
	total := &Row{Key: "all"}
	for i := range recs {
		rec := &recs[i]
		total.add(rec)
		switch by {
		case ByTool:
			for name, tc := range rec.Tools {
				r := get(name)
				r.Runs++
				r.ToolCalls += tc.Calls
				r.ToolErrs += tc.Errors
			}
			continue
		case ByModel:
			get(rec.Model).add(rec)
		case ByAgent:
			get(rec.Agent).add(rec)
		case ByOutcome:
			get(string(rec.Outcome)).add(rec)
		case ByFrontend:
			get(rec.Frontend).add(rec)
		case ByDay:
			get(rec.Start.UTC().Format("2006-01-02")).add(rec)
		}
	}
	out := make([]Row, 0, len(rows)+1)
	for _, r := range rows {
		r.percentiles()
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Row) int {
		if by == ByDay {
			return strings.Compare(a.Key, b.Key)
		}
		if c := cmp.Compare(b.Cost, a.Cost); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Runs, a.Runs); c != 0 {
			return c
		}
		if c := cmp.Compare(b.ToolCalls, a.ToolCalls); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	total.percentiles()
	return append(out, *total), nil
}

func joinGroups() string {
	var s []string
	for _, g := range Groups() {
		s = append(s, string(g))
	}
	return strings.Join(s, ", ")
}

func (r *Row) add(rec *Record) {
	r.Runs++
	switch rec.Outcome {
	case OutcomeCompleted:
		r.Completed++
	case OutcomeBudgetExhausted:
		r.Budget++
	default:
		r.Failed++
	}
	r.Turns += rec.Turns
	r.ToolCalls += rec.ToolCalls
	r.ToolErrs += rec.ToolErrors
	r.Usage.Add(rec.Usage)
	r.Cost += rec.Cost
	if c := rec.Carried; c != nil {
		// The record of the run that spent it says interrupted and holds
		// none of it: counted here, the total is what was spent.
		r.Usage.Add(c.Usage)
		r.Cost += c.Cost
	}
	r.durs = append(r.durs, rec.DurationMS)
}

func (r *Row) percentiles() {
	if len(r.durs) == 0 {
		return
	}
	slices.Sort(r.durs)
	at := func(p float64) int64 { return r.durs[min(len(r.durs)-1, int(p*float64(len(r.durs))))] }
	r.P50MS, r.P95MS = at(0.5), at(0.95)
}

// WriteStats renders rows as a table.
func WriteStats(w io.Writer, rows []Row, by Group) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if by == ByTool {
		fmt.Fprintln(tw, "TOOL\tRUNS\tCALLS\tERRORS\tERROR %\t")
		for _, r := range rows {
			key := r.Key
			if key == "all" {
				key = "all runs"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", key, r.Runs, r.ToolCalls, r.ToolErrs, percent(r.ToolErrs, r.ToolCalls))
		}
		return tw.Flush()
	}
	fmt.Fprintf(tw, "%s\tRUNS\tDONE\tBUDGET\tFAILED\tTURNS\tTOOLS\tIN\tCACHED\tOUT\tCOST\tP50\tP95\t\n", strings.ToUpper(string(by)))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Key, r.Runs, percent(r.Completed, r.Runs),
			r.Budget, r.Failed, r.Turns, r.ToolCalls, tokens(r.Usage.Input+r.Usage.CacheWrite), tokens(r.Usage.CacheRead),
			tokens(r.Usage.Output), money(r.Cost), ms(r.P50MS), ms(r.P95MS))
	}
	return tw.Flush()
}

// WriteList renders records as a table, one line each.
func WriteList(w io.Writer, recs []Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tAGENT\tMODEL\tOUTCOME\tTURNS\tTOOLS\tIN\tOUT\tCOST\tTIME")
	for i := range recs {
		r := &recs[i]
		agent := r.Agent
		if agent == "" {
			agent = "-"
		}
		if r.Depth > 0 {
			agent = strings.Repeat("  ", r.Depth) + agent
		}
		tools := strconv.Itoa(r.ToolCalls)
		if r.ToolErrors > 0 {
			tools += fmt.Sprintf(" (%d err)", r.ToolErrors)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Start.Local().Format("01-02 15:04"), agent,
			orDash(r.Model), r.Outcome, r.Turns, tools, tokens(r.Usage.Prompt()), tokens(r.Usage.Output), money(r.TotalCost()), ms(r.DurationMS))
	}
	return tw.Flush()
}

// WriteShow renders one record in full.
func WriteShow(w io.Writer, r *Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	line("run", r.ID)
	line("parent", r.Parent)
	line("session", r.Session)
	line("trigger", string(r.Trigger))
	line("front-end", r.Frontend)
	agent := orDash(r.Agent)
	if r.Depth > 0 {
		agent += fmt.Sprintf(" (depth %d)", r.Depth)
	}
	line("agent", agent)
	line("workdir", r.Workdir)
	line("model", strings.Trim(r.Provider+"/"+r.Model, "/"))
	line("key profile", r.Profile)
	line("started", r.Start.Local().Format("2006-01-02 15:04:05"))
	line("duration", ms(r.DurationMS))
	if r.QueuedMS > 0 {
		line("queued", ms(r.QueuedMS))
	}
	out := string(r.Outcome)
	if r.Stop != "" && r.Stop != out {
		out += " (" + r.Stop + ")"
	}
	line("outcome", out)
	line("detail", r.Detail)
	line("turns", fmt.Sprintf("%d, %d requests", r.Turns, r.Requests))
	line("tool calls", fmt.Sprintf("%d, %d failed", r.ToolCalls, r.ToolErrors))
	line("  by tool", counts(r.Tools, func(c ToolCount) string {
		if c.Errors > 0 {
			return fmt.Sprintf("%d (%d failed)", c.Calls, c.Errors)
		}
		return strconv.Itoa(c.Calls)
	}))
	line("guard", counts(r.Guard, strconv.Itoa))
	line("permission", counts(r.Permission, strconv.Itoa))
	for i, c := range r.Compactions {
		line(fmt.Sprintf("compaction %d", i+1), fmt.Sprintf("%s → %s tokens in %s (%s, %s)", tokens(c.Before), tokens(c.After), ms(c.DurationMS), orDash(c.Reason), orDash(c.Model)))
	}
	if r.Retries > 0 {
		line("retries", strconv.Itoa(r.Retries))
	}
	for _, f := range r.Fallbacks {
		line("fallback", fmt.Sprintf("%s → %s (%s)", f.From, f.To, f.Reason))
	}
	u := r.Usage
	line("tokens", fmt.Sprintf("%s in, %s cache read, %s cache write, %s out", tokens(u.Input), tokens(u.CacheRead), tokens(u.CacheWrite), tokens(u.Output)))
	if u.Reasoning > 0 {
		line("  reasoning", tokens(u.Reasoning))
	}
	line("cost", money(r.Cost))
	for _, c := range r.Children {
		line("child "+c.ID, fmt.Sprintf("%s, %s: %s in, %s out, %s", orDash(c.Agent), c.Outcome, tokens(c.Usage.Prompt()), tokens(c.Usage.Output), money(c.Cost)))
	}
	if c := r.Carried; c != nil {
		line("carried", fmt.Sprintf("%d replies of runs the process did not finish: %s in, %s out, %s", c.Replies, tokens(c.Usage.Prompt()), tokens(c.Usage.Output), money(c.Cost)))
	}
	switch {
	case len(r.Children) > 0 && r.Carried != nil:
		line("total cost", money(r.TotalCost())+" with children and carried")
	case len(r.Children) > 0:
		line("total cost", money(r.TotalCost())+" with children")
	case r.Carried != nil:
		line("total cost", money(r.TotalCost())+" with carried")
	}
	if b := r.Budget; b != nil {
		var parts []string
		if b.Cost > 0 {
			parts = append(parts, fmt.Sprintf("$%.2f", b.Cost))
		}
		if b.InputTokens > 0 {
			parts = append(parts, tokens(b.InputTokens)+" in")
		}
		if b.OutputTokens > 0 {
			parts = append(parts, tokens(b.OutputTokens)+" out")
		}
		line("budget", strings.Join(parts, ", "))
	}
	return tw.Flush()
}

func counts[V any](m map[string]V, f func(V) string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + " " + f(m[k]))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

func tokens(n int) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return strconv.Itoa(n)
}

func money(c float64) string {
	if c >= 100 {
		return fmt.Sprintf("$%.0f", c)
	}
	if c >= 1 {
		return fmt.Sprintf("$%.2f", c)
	}
	return fmt.Sprintf("$%.3f", c)
}

func ms(d int64) string {
	t := time.Duration(d) * time.Millisecond
	switch {
	case t >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(t.Hours()), int(t.Minutes())%60)
	case t >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(t.Minutes()), int(t.Seconds())%60)
	case t >= 10*time.Second:
		return fmt.Sprintf("%.0fs", t.Seconds())
	}
	return fmt.Sprintf("%.1fs", t.Seconds())
}

// Find returns the record whose id is id or starts with it; an ambiguous
// or unknown prefix is an error naming the candidates.
func Find(recs []Record, id string) (*Record, error) {
	var hits []int
	for i := range recs {
		if recs[i].ID == id {
			return &recs[i], nil
		}
		if strings.HasPrefix(recs[i].ID, id) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("no run %q in the records; rein runs list shows them", id)
	case 1:
		return &recs[hits[0]], nil
	}
	var ids []string
	for _, i := range hits[:min(len(hits), 5)] {
		ids = append(ids, recs[i].ID)
	}
	return nil, fmt.Errorf("%q matches %d runs (%s…): give more of the id", id, len(hits), strings.Join(ids, ", "))
}
