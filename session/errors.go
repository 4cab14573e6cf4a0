package session

import (
	"errors"
	"fmt"
)

// Sentinel errors. Use errors.Is; the concrete errors carry details.
var (
	// ErrInUse: another writer holds the session's lock. The concrete
	// error is a *LockedError naming the holder.
	ErrInUse = errors.New("session: in use by another writer")
	// ErrClosed: the session was closed.
	ErrClosed = errors.New("session: closed")
	// ErrBroken: an earlier write failed and the file could not be
	// restored to its last good state, so the session refuses further
	// writes. Reopening it sets the damaged tail aside.
	ErrBroken = errors.New("session: unusable after a failed write; reopen it")
	// ErrNotFound: no entry has the given ID.
	ErrNotFound = errors.New("session: no such entry")
	// ErrInvalidEntry: an entry given to Append is not well-formed.
	ErrInvalidEntry = errors.New("session: invalid entry")
	// ErrNotSession: the file has no valid session header.
	ErrNotSession = errors.New("session: not a session file")
	// ErrVersion: the file was written by a newer, incompatible version.
	ErrVersion = errors.New("session: unsupported format version")
)

// LockedError reports that a session is held by another writer.
type LockedError struct {
	// Path is the session file.
	Path string
	// PID and Host identify the holder as its lock file records them;
	// PID is zero when the record could not be read (the holder may be
	// writing it at this very moment).
	PID  int
	Host string
}

func (e *LockedError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("session %s is in use by another process (its lock is held); close that process or open another session", e.Path)
	}
	where := ""
	if e.Host != "" {
		where = " on " + e.Host
	}
	return fmt.Sprintf("session %s is in use by pid %d%s; close that process or open another session", e.Path, e.PID, where)
}

// Is makes errors.Is(err, ErrInUse) true.
func (e *LockedError) Is(target error) bool { return target == ErrInUse }

// WriteError reports a failed write to a session file: a full disk, a
// failed fsync, an I/O error. Err is the cause (errors.Is(err,
// syscall.ENOSPC) works through it).
type WriteError struct {
	Path string
	// Op is what failed: "write", "sync" or "truncate".
	Op  string
	Err error
	// Restored reports that the file was truncated back to its last good
	// state, so the failed entry is not in the file and the session can
	// still be written. When false the session refuses further writes
	// (ErrBroken) and must be reopened.
	Restored bool
}

func (e *WriteError) Error() string {
	state := "the entry was not saved and the file is unchanged"
	if !e.Restored {
		state = "the file could not be restored; reopen the session"
	}
	return fmt.Sprintf("session %s: %s failed: %v (%s)", e.Path, e.Op, e.Err, state)
}

func (e *WriteError) Unwrap() error { return e.Err }

// FormatError reports a file that is not a usable session file.
type FormatError struct {
	Path   string
	Line   int
	Detail string
	// Err is ErrNotSession or ErrVersion.
	Err error
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Detail)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Detail)
}

func (e *FormatError) Unwrap() error { return e.Err }
