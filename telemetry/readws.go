package telemetry

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// ReadWorkspace returns the run records of the workspace at root (the
// store in DefaultDir(root)) that began at or after since, as Store.Read
// does. Each line skipped as unreadable goes to skipped (nil drops it),
// its File relative to root when it lies inside, ready to show as
// "FILE:LINE: ERROR" (Problem.String). A missing store holds no records.
func ReadWorkspace(root string, since time.Time, skipped func(Problem)) ([]Record, error) {
	recs, probs, err := NewStore(DefaultDir(root)).Read(since)
	if err != nil {
		return nil, err
	}
	for _, p := range probs {
		if rel, err := filepath.Rel(root, p.File); err == nil && !strings.HasPrefix(rel, "..") {
			p.File = rel
		}
		if skipped != nil {
			skipped(p)
		}
	}
	return recs, nil
}

// FindRef is Find for a reference as a user gives it: "last" is the
// latest record (the last of recs, which Read returns oldest first);
// anything else, and "last" among no records, is looked up by Find.
func FindRef(recs []Record, ref string) (*Record, error) {
	if ref == "last" && len(recs) > 0 {
		return &recs[len(recs)-1], nil
	}
	return Find(recs, ref)
}

// WriteJSONL writes recs as JSON, one record a line, in the order
// given: the machine-readable form of WriteList.
func WriteJSONL(w io.Writer, recs []Record) error {
	enc := json.NewEncoder(w)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}
