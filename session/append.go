package session

import (
	"errors"
	"fmt"
	"io"
)

// Append validates e, fills what it lacks and writes it as one line:
//
//   - ID: a new ID unique in the file when empty; a given ID must be unused.
//   - Parent: the current leaf when empty (so an entry never becomes a
//     root by accident; Navigate("") first to start a new root); a given
//     Parent must be a tree entry.
//   - Timestamp: Options.Now when zero; stored in UTC.
//
// A tree entry becomes the new leaf; a leaf entry moves the leaf to its
// Target; label and session_info entries leave it alone. Only known
// entry types can be appended (use custom for application data).
//
// The entry is durable before Append returns (written and fsynced with
// SyncEvery; written with SyncBatch, see SyncMode). On failure nothing of
// it stays in the file: the error is a *WriteError wrapping the cause,
// and the session stays usable if the file could be restored
// (WriteError.Restored); otherwise later calls fail with ErrBroken.
// Append returns the entry as stored.
func (s *Session) Append(e Entry) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return Entry{}, err
	}
	if err := s.fill(&e); err != nil {
		return Entry{}, err
	}
	if err := s.appendLine(&e); err != nil {
		return Entry{}, err
	}
	return e, nil
}

func (s *Session) usable() error {
	switch {
	case s.closed:
		return ErrClosed
	case s.broken != nil:
		return fmt.Errorf("%w: %v", ErrBroken, s.broken)
	}
	return nil
}

// appendLine writes a filled entry and adds it to the log.
func (s *Session) appendLine(e *Entry) error {
	line, err := s.enc.entryLine(e)
	if err != nil {
		return fmt.Errorf("%w: encoding: %v", ErrInvalidEntry, err)
	}
	if line, err = s.outgoing(line, e); err != nil {
		return err
	}
	before := s.log.size
	if err := s.write(line); err != nil {
		return err
	}
	if err := s.syncPolicy(before); err != nil {
		return err
	}
	s.log.add(*e)
	return nil
}

// fill validates e and sets its generated fields.
func (s *Session) fill(e *Entry) error {
	l := s.log
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s entry: %s", ErrInvalidEntry, e.Type, fmt.Sprintf(format, args...))
	}
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return bad("no Message")
		}
		switch e.Message.Role {
		case "user", "assistant", "tool_result":
		default:
			return bad("unknown role %q", e.Message.Role)
		}
	case TypeModelChange:
		if e.Model == "" {
			return bad("no Model")
		}
	case TypeThinkingChange:
		if e.Thinking != ThinkingDefault && (e.Thinking == "" || !e.Thinking.Valid()) {
			return bad("invalid thinking level %q", e.Thinking)
		}
	case TypeToolsChange:
		if e.Tools == nil {
			e.Tools = []string{}
		}
	case TypeCompaction:
		if e.Summary == "" {
			return bad("no Summary")
		}
		if e.FirstKept != "" && !l.isTree(e.FirstKept) {
			return bad("FirstKept %q is not a tree entry", e.FirstKept)
		}
	case TypeBranchSummary:
		if e.Summary == "" {
			return bad("no Summary")
		}
	case TypeLeaf:
		if e.Target != "" && !l.isTree(e.Target) {
			return fmt.Errorf("%w: cannot navigate to %q: not a tree entry of %s", ErrNotFound, e.Target, s.path)
		}
	case TypeLabel:
		if _, ok := l.index[e.Target]; !ok {
			return fmt.Errorf("%w: cannot label %q: no such entry in %s", ErrNotFound, e.Target, s.path)
		}
	case TypeSessionInfo:
	case TypeCustom:
		if e.Kind == "" {
			return bad("no Kind")
		}
	case TypeWorkItems:
		if err := checkItems(e.Items); err != nil {
			return bad("%v", err)
		}
	default:
		if e.Type.Journal() {
			if err := checkJournal(e); err != nil {
				return bad("%v", err)
			}
			break
		}
		return fmt.Errorf("%w: unknown entry type %q (use a custom entry for application data)", ErrInvalidEntry, e.Type)
	}
	e.Raw = nil
	if e.ID == "" {
		e.ID = s.opts.uniqueID(func(id string) bool { _, used := l.index[id]; return used })
	} else if _, dup := l.index[e.ID]; dup {
		return bad("id %q is already used", e.ID)
	}
	if e.Parent == "" {
		e.Parent = l.leaf
	} else if !l.isTree(e.Parent) {
		return fmt.Errorf("%w: parent %q is not a tree entry of %s", ErrNotFound, e.Parent, s.path)
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = s.opts.now()
	}
	e.Timestamp = e.Timestamp.UTC()
	return nil
}

// add appends an entry this process wrote (already validated).
func (l *log) add(e Entry) {
	l.index[e.ID] = l.entries.len()
	p := l.entries.grow()
	*p = e
	l.apply(p, nil)
}

// write appends b to the file. On failure it truncates the file back to
// its last good size, so a partial line never stays reachable.
func (s *Session) write(b []byte) error {
	n, err := s.f.Write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return s.undo("write", err)
	}
	s.log.size += int64(n)
	s.dirty = true
	return nil
}

// undo restores the file to its last good size after a failed write or
// fsync and reports the failure.
func (s *Session) undo(op string, cause error) error {
	werr := &WriteError{Path: s.path, Op: op, Err: cause}
	if terr := s.f.Truncate(s.log.size); terr != nil {
		s.broken = fmt.Errorf("%s failed (%v) and truncating back failed (%v)", op, cause, terr)
		return werr
	}
	_ = s.f.Sync() // best-effort: the truncation itself
	werr.Restored = true
	return werr
}

// syncPolicy fsyncs after a line was written as the sync mode asks;
// before is the file size before the line.
func (s *Session) syncPolicy(before int64) error {
	if s.opts.Sync == SyncBatch {
		if s.opts.now().Sub(s.lastSync) < s.opts.syncInterval() {
			return nil
		}
		return s.sync()
	}
	if err := s.f.Sync(); err != nil {
		// With SyncEvery every earlier line is already durable; the new
		// one is not known to be, so take it back out.
		s.log.size = before
		return s.undo("sync", err)
	}
	s.dirty = false
	return nil
}

// sync fsyncs everything written so far. A failure leaves the session
// broken: written entries may or may not be durable.
func (s *Session) sync() error {
	if !s.dirty {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		s.broken = fmt.Errorf("fsync failed: %v", err)
		return &WriteError{Path: s.path, Op: "sync", Err: err}
	}
	s.dirty = false
	s.lastSync = s.opts.now()
	return nil
}

// Flush makes every appended entry durable (it matters with SyncBatch).
func (s *Session) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	return s.sync()
}

// Close flushes, closes the file and releases the lock. Closing a closed
// session does nothing.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.broken == nil {
		errs = append(errs, s.sync())
	}
	errs = append(errs, s.f.Close(), s.lock.release())
	return errors.Join(errs...)
}
