package session

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
)

// Fork makes a new session file holding the path from the root to the
// tree entry at ("" = an empty session), with the same entry IDs,
// parents and timestamps, and the current labels of those entries. Its
// header's Parent is this session's ID (ParentPath its file). Entries
// this version cannot represent fully (unknown types, unknown fields)
// are copied byte for byte. The new session is open, locked and its leaf
// is at; like Open, Fork repairs tool calls left without a result at the
// new leaf. opts.Dir defaults to this session's directory and opts.Cwd to
// its working directory.
func (s *Session) Fork(at string, opts Options) (*Session, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if at != "" {
		if !s.log.isTree(at) {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: cannot fork at %q: not a tree entry of %s", ErrNotFound, at, s.path)
		}
	}
	path := s.log.branch(at)
	for i := range path {
		if _, ok := s.log.reparented[path[i].ID]; ok && len(path[i].Raw) > 0 {
			path[i].Raw = reparentRaw(path[i].Raw, path[i].Parent)
		}
	}
	onPath := make(map[string]bool, len(path))
	used := make(map[string]bool, len(path))
	for _, e := range path {
		onPath[e.ID], used[e.ID] = true, true
	}
	var targets []string
	for id := range s.log.labels {
		if onPath[id] {
			targets = append(targets, id)
		}
	}
	sort.Strings(targets)
	for _, id := range targets {
		le := Entry{Type: TypeLabel, Parent: at, Timestamp: s.opts.now().UTC(), Target: id, Label: s.log.labels[id]}
		le.ID = opts.uniqueID(func(id string) bool { return used[id] })
		used[le.ID] = true
		path = append(path, le)
	}
	srcID, srcPath, srcCwd := s.log.header.ID, s.path, s.log.header.Cwd
	s.mu.Unlock()

	if opts.Dir == "" {
		opts.Dir = filepath.Dir(srcPath)
	}
	if opts.Cwd == "" {
		opts.Cwd = srcCwd
	}
	h := Header{Type: HeaderType, Version: FormatVersion, ID: opts.sessionID(), Created: opts.now().UTC(),
		Cwd: opts.Cwd, Parent: srcID, ParentPath: srcPath}
	ns, err := create(opts, h, path)
	if err != nil {
		return nil, err
	}
	// ns is not shared yet, so it needs no locking here.
	if err := ns.repair(); err != nil {
		_ = ns.Close()
		return nil, err
	}
	return ns, nil
}

// reparentRaw rewrites the "parent" field of a verbatim line whose parent
// was missing when it was loaded. Other fields stay as they were; if the
// line cannot be rewritten it is kept unchanged.
func reparentRaw(raw json.RawMessage, parent string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if parent == "" {
		delete(m, "parent")
	} else {
		p, _ := json.Marshal(parent)
		m["parent"] = p
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}
