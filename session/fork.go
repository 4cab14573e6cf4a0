package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Fork makes a new session file holding the path from the root to the
// tree entry at ("" = an empty session), with the same entry IDs,
// parents and timestamps, and the current labels of those entries. Its
// header's Parent is this session's ID (ParentPath its file). Entries
// this version cannot represent fully (unknown types, unknown fields)
// are copied byte for byte. The new session is open, locked and its leaf
// is at. When at is an assistant message whose tool calls have no result
// on the path, the fork answers each with an error result saying so
// (ForkedText), so that it can be resumed; see Session.Repairs. opts.Dir
// defaults to this session's directory, opts.Cwd to its working
// directory and opts.Redact to its redaction, so that what is appended
// to the fork is masked as it would have been here.
func (s *Session) Fork(at string, opts Options) (*Session, error) {
	if opts.Redact == nil {
		opts.Redact = s.opts.Redact
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	path, err := forkPath(s.log, s.path, at, opts)
	h := s.log.header
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return forkInto(h, s.path, path, opts)
}

// ForkFile forks the session file at path as Session.Fork does, without
// opening it: it takes no lock and writes nothing to the file, so a
// session that another process has open can be forked. The file is read
// as Open reads it (a torn last line is left out, corrupt lines are
// skipped) but nothing is repaired or set aside in it. at == "" forks at
// the file's current leaf.
func ForkFile(path, at string, opts Options) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	l, err := readLog(f, path, size)
	f.Close()
	if err != nil {
		return nil, err
	}
	if at == "" {
		at = l.leaf
	}
	entries, err := forkPath(l, path, at, opts)
	if err != nil {
		return nil, err
	}
	return forkInto(l.header, path, entries, opts)
}

// forkPath returns the entries a fork of l at at holds: the branch, with
// the lines of re-attached entries rewritten, then labels of its entries.
func forkPath(l *log, srcPath, at string, opts Options) ([]Entry, error) {
	if at != "" && !l.isTree(at) {
		return nil, fmt.Errorf("%w: cannot fork at %q: not a tree entry of %s", ErrNotFound, at, srcPath)
	}
	path := l.branch(at)
	for i := range path {
		if _, ok := l.reparented[path[i].ID]; ok && len(path[i].Raw) > 0 {
			path[i].Raw = reparentRaw(path[i].Raw, path[i].Parent)
		}
	}
	onPath := make(map[string]bool, len(path))
	used := make(map[string]bool, len(path))
	for _, e := range path {
		onPath[e.ID], used[e.ID] = true, true
	}
	var targets []string
	for id := range l.labels {
		if onPath[id] {
			targets = append(targets, id)
		}
	}
	sort.Strings(targets)
	for _, id := range targets {
		le := Entry{Type: TypeLabel, Parent: at, Timestamp: opts.now().UTC(), Target: id, Label: l.labels[id]}
		le.ID = opts.uniqueID(func(id string) bool { return used[id] })
		used[le.ID] = true
		path = append(path, le)
	}
	if items := l.itemsOn(at); items != nil {
		// The work items are session state kept per branch: the fork
		// carries the list as it stood at the fork point.
		we := Entry{Type: TypeWorkItems, Parent: at, Timestamp: opts.now().UTC(), Items: items}
		we.ID = opts.uniqueID(func(id string) bool { return used[id] })
		path = append(path, we)
	}
	return path, nil
}

// forkInto creates the fork of the session src (read from srcPath)
// holding entries, and answers the calls left open at its leaf.
func forkInto(src Header, srcPath string, entries []Entry, opts Options) (*Session, error) {
	if opts.Dir == "" {
		opts.Dir = filepath.Dir(srcPath)
	}
	if opts.Cwd == "" {
		opts.Cwd = src.Cwd
	}
	h := Header{Type: HeaderType, Version: FormatVersion, ID: opts.sessionID(), Created: opts.now().UTC(),
		Cwd: opts.Cwd, Parent: src.ID, ParentPath: srcPath}
	ns, err := create(opts, h, entries)
	if err != nil {
		return nil, err
	}
	// ns is not shared yet, so it needs no locking here.
	if err := ns.answerOpenCalls(ForkedText); err != nil {
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
