package interop

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Run records travel in bundles as the lines package telemetry writes:
// one JSON object a line in runs-YYYY-MM.jsonl (the month of the run's
// start) under a workspace's .rein/runs, two lines a run (its start,
// then its end), the last line of an id being the record. interop reads
// and appends those lines as they are, so that a bundle carries fields
// this version does not know, and so that it needs none of the packages
// that run agents.

// runLine is what interop reads of a run record line.
type runLine struct {
	ID      string    `json:"id"`
	Session string    `json:"session"`
	Start   time.Time `json:"start"`
	Line    json.RawMessage
}

// readRuns returns the last line of each run in the store dir, oldest
// file first; lines it cannot read are reported as file:line.
func readRuns(dir string, r *Report) ([]runLine, error) {
	files, err := filepath.Glob(filepath.Join(dir, "runs-*.jsonl"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out []runLine
	at := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		for n, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var run runLine
			if err := json.Unmarshal(line, &run); err != nil || run.ID == "" {
				r.drop(f+":"+strconv.Itoa(n+1), "a run record", "not a run record")
				continue
			}
			run.Line = json.RawMessage(bytes.Clone(line))
			if i, ok := at[run.ID]; ok {
				out[i] = run
				continue
			}
			at[run.ID] = len(out)
			out = append(out, run)
		}
	}
	return out, nil
}

// appendRun appends line to the store dir's file for start's month.
func appendRun(dir string, start time.Time, line []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "runs-"+start.UTC().Format("2006-01")+".jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(bytes.Clone(line), '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}
