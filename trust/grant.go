package trust

import (
	"fmt"
	"os"
)

// Describe is the entry's line in a listing of trusted workspaces: its
// path and how it is trusted — by an earlier rein's folder entry, by the
// user's own approvals only, or with the number of files trusted and
// when (in local time).
func (e Entry) Describe() string {
	switch {
	case e.Legacy:
		return e.Path + " (trusted by folder with an earlier rein; recorded at its next run)"
	case e.Time.IsZero():
		return e.Path + " (only your own approvals)"
	}
	return fmt.Sprintf("%s (%d file(s), %s)", e.Path, len(e.Files), e.Time.Local().Format("2006-01-02 15:04"))
}

// Grant scans the workspace root and trusts its current content (see
// Accept). The returned Status is how the content compared with the
// store before: its Changes are what the workspace may do from now on
// that it could not before. A store that cannot be read counts every
// file as new; one that cannot be written is the error, and nothing is
// trusted then. A root that is not a directory is an error.
func (s Store) Grant(root string) (*Status, error) {
	if fi, err := os.Stat(root); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	snap, err := Scan(root)
	if err != nil {
		return nil, err
	}
	st, _ := s.Check(snap)
	if err := s.Accept(snap); err != nil {
		return nil, err
	}
	return st, nil
}

// Granted is the report shown after Grant returned st, ending in a
// newline: the workspace trusted, then what it may now do, or that
// nothing in it needs trust yet.
func (st *Status) Granted() string {
	out := "trusted: " + st.Snapshot.Root + "\n"
	if len(st.Changes) > 0 {
		return out + "what it may now do, from the next run:\n" + st.Describe()
	} else if len(st.Snapshot.Files) == 0 {
		return out + "(its files do nothing that needs trust now; a file added later will ask)\n"
	}
	return out
}
