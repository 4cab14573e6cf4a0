package compact

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTurns writes r's turns as a table: the input tokens of each
// request with no management, with masking, and with masking and
// compaction (⟳ marks a compaction before it).
func (r ReplayResult) WriteTurns(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "turn\tnone\tmasking\tmasking+compaction\t")
	for _, t := range r.Turns {
		mark := ""
		if t.Compaction {
			mark = " ⟳"
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d%s\t\n", t.Turn, t.None, t.Masked, t.Compacted, mark)
	}
	return tw.Flush()
}

// WriteTotals writes r's totals for people, indented by two spaces: the
// input tokens of each way with their ratio to none, the compactions and
// the tool pairs kept whole, and, when compactions ran, what their
// summaries kept.
func (r ReplayResult) WriteTotals(w io.Writer) {
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
