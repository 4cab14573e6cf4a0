package coding

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/reinhq/rein/compact"
)

// Report replays files in order and writes what they hold to w. As text:
// for each file a header (its format and the window with where it came
// from), its turns when turns is set, and its totals; then the totals of
// all files when there are several. As JSON (asJSON): one ContextReplay
// a line, then {"total": …, "files": N} when there are several. A file
// that cannot be read is passed to problem and counted in failed; the
// others are reported. err is an error writing to w.
func (r *ContextReplayer) Report(w io.Writer, files []string, asJSON, turns bool, problem func(error)) (failed int, err error) {
	var total compact.ReplayResult
	enc := json.NewEncoder(w)
	for _, path := range files {
		res, err := r.Replay(path)
		if err != nil {
			problem(err)
			failed++
			continue
		}
		if asJSON {
			if err := enc.Encode(res); err != nil {
				return failed, err
			}
		} else {
			b := res.Budget
			fmt.Fprintf(w, "\n%s (%s)\n  window %d tokens (%s): masking from %d, compaction from %d, keep %d\n",
				path, res.Format, b.Window, windowSource(res.WindowFrom, res.Model), b.Soft, b.Hard, b.Keep)
			if turns {
				if err := res.WriteTurns(w); err != nil {
					return failed, err
				}
			}
			res.WriteTotals(w)
		}
		total.Add(res.ReplayResult)
	}
	switch {
	case asJSON && len(files) > 1:
		err = enc.Encode(struct {
			Total compact.ReplayResult `json:"total"`
			Files int                  `json:"files"`
		}{total, len(files) - failed})
	case !asJSON && len(files) > 1:
		fmt.Fprintf(w, "\nall %d files\n", len(files)-failed)
		total.WriteTotals(w)
	}
	return failed, err
}

// windowSource says where a replay's window came from, naming the
// flags of rein context replay that set it.
func windowSource(from, ref string) string {
	switch from {
	case WindowFromModel:
		return "of " + ref
	case WindowFromFlag:
		return "--window"
	case WindowFromConfig:
		return "--config"
	}
	if ref != "" {
		return ref + " is not in the model catalog: assumed; give --window"
	}
	return "the recording names no model: assumed; give --window"
}
