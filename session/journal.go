package session

import (
	"errors"
	"fmt"
)

// Journal entry types. They are side entries: facts about the work under
// way, written before a provider request or a tool call starts and after
// it settles, and for every message queued for later delivery. Together
// with the messages they let InFlight say exactly what was in flight
// when a writer died (see docs/session-format.md, "Journal entries").
//
// Like every side entry their parent is the leaf when they were written.
// A reader from before these types treats them as tree entries of an
// unknown type; since their parent is the leaf, a journal entry that is
// last in a file only extends the active path by an entry that reader
// skips, so it builds the same context.
const (
	TypeRequestStarted EntryType = "request_started"
	TypeRequestSettled EntryType = "request_settled"
	TypeToolStarted    EntryType = "tool_started"
	TypeToolSettled    EntryType = "tool_settled"
	TypeQueued         EntryType = "queued"
	TypeDequeued       EntryType = "dequeued"
)

// Queue names, the Queue of a queued entry.
const (
	QueueSteer    = "steer"
	QueueFollowUp = "follow_up"
	QueueNextTurn = "next_turn"
)

// Statuses of settled and dequeued entries.
const (
	// StatusOK and StatusError settle a request or tool call that ended
	// with a reply or result (StatusError: an error reply or result).
	StatusOK    = "ok"
	StatusError = "error"
	// StatusDropped settles a request that was in flight when its writer
	// died: recovery drops it (its partial reply was never recorded).
	StatusDropped = "dropped"
	// StatusCleared takes a queued message off its queue without
	// delivering it (the run was aborted, which clears the queue).
	StatusCleared = "cleared"
)

// Journal reports whether entries of type t are journal entries (see
// TypeRequestStarted): side entries that make crash recovery exact.
func (t EntryType) Journal() bool {
	switch t {
	case TypeRequestStarted, TypeRequestSettled, TypeToolStarted, TypeToolSettled, TypeQueued, TypeDequeued:
		return true
	}
	return false
}

// checkJournal validates the payload of a journal entry.
func checkJournal(e *Entry) error {
	switch e.Type {
	case TypeRequestSettled, TypeDequeued:
		if e.Target == "" {
			return errors.New("no Target")
		}
		if e.Status == "" {
			return errors.New("no Status")
		}
	case TypeToolStarted, TypeToolSettled:
		if e.CallID == "" {
			return errors.New("no CallID")
		}
	case TypeQueued:
		switch e.Queue {
		case QueueSteer, QueueFollowUp, QueueNextTurn:
		default:
			return fmt.Errorf("unknown queue %q", e.Queue)
		}
		if e.Message == nil {
			return errors.New("no Message")
		}
	}
	return nil
}

// AppendUnsynced appends e like Append but never fsyncs, whatever the
// sync mode. The entry is in the file when AppendUnsynced returns, so it
// survives the process dying at any later moment (a write(2) that
// returned is in the kernel's cache); it survives a power loss once a
// later synced append, Flush or Close has fsynced the file, which covers
// every line written before.
//
// This is for journal entries that a synced entry always follows: a
// request's start and end (its reply is the synced message after it), a
// tool call's end (its result follows) and the start of an idempotent
// tool call (if it is lost, recovery runs the call again, which is
// harmless). One fsync per step is then enough; a second one would only
// add its latency. The start of a call that is not idempotent must use
// Append, so that it is on disk before the call can have an effect.
func (s *Session) AppendUnsynced(e Entry) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return Entry{}, err
	}
	if err := s.fill(&e); err != nil {
		return Entry{}, err
	}
	if err := s.appendFilled(&e); err != nil {
		return Entry{}, err
	}
	return e, nil
}
