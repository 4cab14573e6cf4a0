package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// DefaultDir is the run store of a workspace.
func DefaultDir(workspace string) string { return filepath.Join(workspace, ".rein", "runs") }

// Store keeps run records as JSON lines in one file per month
// (runs-2006-01.jsonl) under a directory. A run has two lines: the one
// written when it begins (outcome interrupted) and the final one; a
// reader keeps the last line of each id. Appends from several processes
// are safe: each record is one write to a file opened for appending.
type Store struct {
	dir string
	// Redact, when set, masks secrets in each line before it is written
	// (an error message in Detail may quote one).
	Redact func([]byte) []byte
}

// NewStore returns a store in dir; the directory is made on first write.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) file(t time.Time) string {
	return filepath.Join(s.dir, "runs-"+t.UTC().Format("2006-01")+".jsonl")
}

// Append writes rec as one line of the file of its start month.
func (s *Store) Append(rec *Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if s.Redact != nil {
		b = s.Redact(b)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(s.file(rec.Start), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// lineID returns the run id of a record line as Append writes it (the
// id is its second field, after the version), or "" when the line does
// not start that way; such a line is decoded in full.
func lineID(line []byte) string {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(`{"v":`))
	if !ok {
		return ""
	}
	i := bytes.IndexByte(rest, ',')
	if i < 0 {
		return ""
	}
	rest, ok = bytes.CutPrefix(rest[i+1:], []byte(`"id":"`))
	if !ok {
		return ""
	}
	j := bytes.IndexAny(rest, `"\`)
	if j <= 0 || rest[j] != '"' {
		return ""
	}
	return string(rest[:j])
}

// Problem is a line a reader skipped.
type Problem struct {
	File string
	Line int
	Err  error
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %v", p.File, p.Line, p.Err) }

// Read returns the records of runs that began at or after since (zero:
// all), oldest first, one per run id (its last line), and the lines it
// skipped as unreadable. A missing directory holds no records.
func (s *Store) Read(since time.Time) ([]Record, []Problem, error) {
	files, err := filepath.Glob(filepath.Join(s.dir, "runs-*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(files)
	var recs []Record
	var probs []Problem
	index := map[string]int{}
	for _, name := range files {
		if !since.IsZero() {
			month := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "runs-"), ".jsonl")
			if end, err := time.Parse("2006-01", month); err == nil && end.AddDate(0, 1, 0).Before(since) {
				continue
			}
		}
		recs, probs, err = readFile(name, since, recs, probs, index)
		if err != nil {
			return nil, nil, err
		}
	}
	recs = slices.DeleteFunc(recs, func(r Record) bool { return r.ID == "" })
	slices.SortStableFunc(recs, func(a, b Record) int { return a.Start.Compare(b.Start) })
	return recs, probs, nil
}

// readFile adds the records of one file to recs. A run has two lines,
// the later replacing the earlier; only the last line of each run id is
// decoded (the id is read first, cheaply: see lineID), unless it cannot
// be, and then the one before it is. Lines are decoded in parallel, one
// share per processor, and applied in file order.
func readFile(name string, since time.Time, recs []Record, probs []Problem, index map[string]int) ([]Record, []Problem, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return recs, probs, nil
	}
	if err != nil {
		return nil, nil, err
	}
	lines := bytes.Split(data, []byte("\n"))
	last := make(map[string]int, len(lines)/2)
	ids := make([]string, len(lines))
	for i, line := range lines {
		if id := lineID(line); id != "" {
			ids[i] = id
			last[id] = i
		}
	}
	decoded := make([]Record, len(lines))
	errs := make([]error, len(lines))
	done := make([]bool, len(lines))
	decode := func(i int) {
		if line := bytes.TrimSpace(lines[i]); len(line) > 0 {
			errs[i] = jsonv2.Unmarshal(line, &decoded[i])
		}
		done[i] = true
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(lines)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(lines); i += workers {
				if ids[i] == "" || last[ids[i]] == i {
					decode(i)
				}
			}
		})
	}
	wg.Wait()
	// A run whose last line cannot be read keeps its line before: decode
	// the earlier lines of such runs too.
	for i := range lines {
		if !done[i] && (errs[last[ids[i]]] != nil || decoded[last[ids[i]]].ID != ids[i]) {
			decode(i)
		}
	}
	for i, line := range lines {
		n := i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !done[i] {
			// A run's record keeps the place of its first line: hold it
			// (Read drops a place no line came to fill).
			if _, ok := index[ids[i]]; !ok {
				index[ids[i]] = len(recs)
				recs = append(recs, Record{})
			}
			continue
		}
		rec := decoded[i]
		switch {
		case errs[i] != nil:
			probs = append(probs, Problem{File: name, Line: n, Err: errs[i]})
			continue
		case rec.ID == "":
			probs = append(probs, Problem{File: name, Line: n, Err: errors.New("a record without an id")})
			continue
		case rec.Version > RecordVersion:
			probs = append(probs, Problem{File: name, Line: n, Err: fmt.Errorf("record version %d is newer than this rein reads (%d)", rec.Version, RecordVersion)})
			continue
		case !since.IsZero() && rec.Start.Before(since):
			continue
		}
		if i, ok := index[rec.ID]; ok {
			recs[i] = rec
			continue
		}
		index[rec.ID] = len(recs)
		recs = append(recs, rec)
	}
	return recs, probs, nil
}
