package long

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// runFile is where the record of the latest run of worker sessions is
// kept, under the workspace.
const runFile = ".rein/long/run.json"

// runRecord is the record of a run of worker sessions (one Work call, or
// several when processes died): the session logs it opened, written
// before each session's first request, and whether it ended. A run whose
// process died (kill -9, a crash, a power cut) has not ended; the next
// Work continues it, and what its sessions spent — read from their logs,
// not from a counter that died with the process — counts against
// MaxCost.
type runRecord struct {
	Started  time.Time `json:"started"`
	Sessions []string  `json:"sessions"`
	Ended    bool      `json:"ended"`
}

// Carried is the spend of a run's earlier processes that died before
// the run ended.
type Carried struct {
	// Sessions counts the worker sessions whose logs were read; Usage
	// and Cost sum their replies.
	Sessions int
	Usage    llm.Usage
	Cost     float64
}

// spendLog keeps the run record of a workspace.
type spendLog struct {
	path string
	rec  runRecord
}

// openRun reads the run record: a run that did not end is continued,
// and its sessions' logged spend returned; otherwise a new run starts.
// A record that cannot be parsed is an error naming the file.
func openRun(root string, now time.Time) (*spendLog, Carried, error) {
	l := &spendLog{path: filepath.Join(root, filepath.FromSlash(runFile))}
	b, err := os.ReadFile(l.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, Carried{}, err
	default:
		if err := json.Unmarshal(b, &l.rec); err != nil {
			return nil, Carried{}, &InputError{fmt.Errorf("%s: %v; it records the spend of the last run of worker sessions: remove it to start afresh", l.path, err)}
		}
	}
	var c Carried
	if err == nil && !l.rec.Ended {
		c, err = loggedSpend(l.rec.Sessions)
		if err != nil {
			return nil, Carried{}, err
		}
	} else {
		l.rec = runRecord{Started: now.UTC()}
	}
	return l, c, l.save()
}

// add notes a session's log before the session spends anything.
func (l *spendLog) add(path string) error {
	l.rec.Sessions = append(l.rec.Sessions, path)
	return l.save()
}

// end marks the run ended: the next Work starts a new one.
func (l *spendLog) end() error {
	l.rec.Ended = true
	return l.save()
}

func (l *spendLog) save() error {
	b, err := json.MarshalIndent(l.rec, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(l.path, append(b, '\n'))
}

// loggedSpend sums the usage of the replies in the session logs at
// paths. A log that is gone counts nothing; one that cannot be read is
// an error.
func loggedSpend(paths []string) (Carried, error) {
	var c Carried
	for _, p := range paths {
		_, es, _, err := session.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Carried{}, fmt.Errorf("reading the spend of an earlier worker session: %w", err)
		}
		c.Sessions++
		for i := range es {
			if m := es[i].Message; es[i].Type == session.TypeMessage && m != nil && m.Role == llm.RoleAssistant && m.Usage != nil {
				c.Usage.Add(*m.Usage)
			}
		}
	}
	c.Cost = c.Usage.Cost.Total
	return c, nil
}
