package session

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// CreateImported makes a new session file holding entries, converted from
// another harness's recording, with src recorded in its header. Entries
// keep their IDs, parents and timestamps; each must have a non-empty ID
// unique among them, a parent that appears earlier (or none), and a type
// this version knows (or, for entries copied from a rein session, its
// original line in Raw). The leaf is the last tree entry, unless a leaf
// entry says otherwise. The new session is open and locked, like one from
// Create; it answers the calls left open at its leaf as a fork does.
// opts.Agent, when set, links it to a parent as a sub-agent's session.
func CreateImported(opts Options, src Source, entries []Entry) (*Session, error) {
	if src.Format == "" {
		return nil, errors.New("session: an imported session needs its source format")
	}
	if err := checkImported(entries); err != nil {
		return nil, err
	}
	h := Header{Type: HeaderType, Version: FormatVersion, ID: opts.sessionID(), Created: opts.now().UTC(), Cwd: opts.Cwd, Source: &src, Agent: opts.Agent}
	return createImported(opts, h, entries)
}

// Restore makes a new session file holding a session moved from another
// machine: h's id, creation time, working directory and links are kept
// (callers rewrite the links' paths), and entries are checked as
// CreateImported checks them. A session with h's id already in the
// directory is an *ExistsError, and nothing is written.
func Restore(opts Options, h Header, entries []Entry) (*Session, error) {
	if h.ID == "" || strings.ContainsAny(h.ID, `/\`) {
		return nil, fmt.Errorf("session: a restored session needs a plain id, not %q", h.ID)
	}
	if err := checkImported(entries); err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		dir = DefaultDir(opts.Cwd)
	}
	if found, _ := filepath.Glob(filepath.Join(dir, "*_"+h.ID+".jsonl")); len(found) > 0 {
		return nil, &ExistsError{ID: h.ID, Path: found[0]}
	}
	h.Type, h.Version = HeaderType, FormatVersion
	if h.Created.IsZero() {
		h.Created = opts.now().UTC()
	}
	return createImported(opts, h, entries)
}

// ExistsError is Restore's error for a session that is already there.
type ExistsError struct{ ID, Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("session: a session with id %s is already here (%s)", e.ID, e.Path)
}

func createImported(opts Options, h Header, entries []Entry) (*Session, error) {
	s, err := create(opts, h, entries)
	if err != nil {
		return nil, err
	}
	if err := s.answerOpenCalls(ImportedText); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// checkImported checks entries as CreateImported documents.
func checkImported(entries []Entry) error {
	seen := make(map[string]bool, len(entries))
	for i := range entries {
		if err := checkImportedEntry(i, &entries[i], seen); err != nil {
			return err
		}
	}
	return nil
}

// checkImportedEntry checks the i-th imported entry e, given the ids seen
// before it, and adds its id.
func checkImportedEntry(i int, e *Entry, seen map[string]bool) error {
	switch {
	case e.ID == "":
		return fmt.Errorf("session: imported entry %d has no id", i)
	case seen[e.ID]:
		return fmt.Errorf("session: imported entry %d repeats the id %q", i, e.ID)
	case e.Parent != "" && !seen[e.Parent]:
		return fmt.Errorf("session: imported entry %q names the parent %q, which does not come before it", e.ID, e.Parent)
	case !e.Type.Known() && len(e.Raw) == 0:
		return fmt.Errorf("session: imported entry %q has the unknown type %q", e.ID, e.Type)
	case e.Type == TypeMessage && e.Message == nil:
		return fmt.Errorf("session: imported message entry %q has no message", e.ID)
	}
	seen[e.ID] = true
	return nil
}

// ImportedText is the result CreateImported gives a tool call left
// without one at the imported session's leaf.
const ImportedText = "not recorded: the imported session has no result for this tool call"
