package coding

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/work"
)

// ErrNothingToFork is ForkFile's error for a session that holds no
// conversation.
var ErrNothingToFork = errors.New("the session holds no conversation to fork")

// EntryRefError is ForkFile's error for an entry reference that names no
// entry of the session, or more than one.
type EntryRefError struct {
	Path string // the session file
	Err  error  // FindEntry's error
}

func (e *EntryRefError) Error() string {
	return fmt.Sprintf("%v in %s; rein sessions show lists the entry ids", e.Err, filepath.Base(e.Path))
}

func (e *EntryRefError) Unwrap() error { return e.Err }

// ForkFile copies the path from the start of the session file path to
// entry at (an id or a unique prefix, see FindEntry; "" is the current
// leaf) into a new session beside it, masked by r, recording where it
// came from. The original is only read, so it may be in use by another
// process; the new session is returned open, with the original's header.
// A reference that names no entry is an *EntryRefError, a session with
// no conversation ErrNothingToFork.
func ForkFile(path, at string, r *redact.Redactor) (*session.Session, session.Header, error) {
	h, entries, _, err := session.ReadFile(path)
	if err != nil {
		return nil, h, err
	}
	if at != "" {
		if at, err = FindEntry(entries, at); err != nil {
			return nil, h, &EntryRefError{Path: path, Err: err}
		}
	} else if at = session.LastLeaf(entries); at == "" {
		return nil, h, ErrNothingToFork
	}
	forked, err := session.ForkFile(path, at, session.Options{Redact: r.Bytes})
	return forked, h, err
}

// WorkItemsOf is the work-item list the session file path last
// recorded (nil when it recorded none).
func WorkItemsOf(path string) (work.List, error) {
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		return nil, err
	}
	list, err := work.FromEntries(entries)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}

// Handed is what Handoff made: the new session's file and id.
type Handed struct{ Path, ID string }

// Handoff hands the conversation off to a fresh session: a briefing of
// it for whoever continues (goal, decisions, progress, next step,
// files) becomes the first message of a new session linked to this one
// as its parent, and the handoff is recorded here. The agent stays in
// its session; resume the new one to continue. It needs the agent idle.
func (a *Agent) Handoff(ctx context.Context, focus string) (Handed, error) {
	if !a.enter() {
		return Handed{}, ErrClosed
	}
	defer a.runs.Done()
	s, err := a.session()
	if err != nil {
		return Handed{}, err
	}
	child, err := s.Fork("", session.Options{Redact: a.s.o.Redactor.Bytes})
	if err != nil {
		return Handed{}, err
	}
	defer child.Close()
	if _, err := a.h.Handoff(ctx, harness.HandoffOptions{To: child, Focus: focus}); err != nil {
		return Handed{}, err
	}
	return Handed{Path: child.Path(), ID: child.ID()}, nil
}
