package session

import (
	"errors"
	"fmt"
)

// CreateImported makes a new session file holding entries, converted from
// another harness's recording, with src recorded in its header. Entries
// keep their IDs, parents and timestamps; each must have a non-empty ID
// unique among them, a parent that appears earlier (or none), and a type
// this version knows (or, for entries copied from a rein session, its
// original line in Raw). The leaf is the last tree entry, unless a leaf
// entry says otherwise. The new session is open and locked, like one from
// Create; it answers the calls left open at its leaf as a fork does.
func CreateImported(opts Options, src Source, entries []Entry) (*Session, error) {
	if src.Format == "" {
		return nil, errors.New("session: an imported session needs its source format")
	}
	seen := make(map[string]bool, len(entries))
	for i := range entries {
		e := &entries[i]
		switch {
		case e.ID == "":
			return nil, fmt.Errorf("session: imported entry %d has no id", i)
		case seen[e.ID]:
			return nil, fmt.Errorf("session: imported entry %d repeats the id %q", i, e.ID)
		case e.Parent != "" && !seen[e.Parent]:
			return nil, fmt.Errorf("session: imported entry %q names the parent %q, which does not come before it", e.ID, e.Parent)
		case !e.Type.Known() && len(e.Raw) == 0:
			return nil, fmt.Errorf("session: imported entry %q has the unknown type %q", e.ID, e.Type)
		case e.Type == TypeMessage && e.Message == nil:
			return nil, fmt.Errorf("session: imported message entry %q has no message", e.ID)
		}
		seen[e.ID] = true
	}
	h := Header{Type: HeaderType, Version: FormatVersion, ID: opts.sessionID(), Created: opts.now().UTC(), Cwd: opts.Cwd, Source: &src}
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

// ImportedText is the result CreateImported gives a tool call left
// without one at the imported session's leaf.
const ImportedText = "not recorded: the imported session has no result for this tool call"
