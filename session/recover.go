package session

import (
	"fmt"

	"github.com/reinhq/rein/llm"
)

// recoverJournal is the part of Open's repair that the journal entries
// make exact. Requests in flight are dropped: each gets a request_settled
// entry with StatusDropped (listed by Dropped), so that a later open does
// not report them again. Of the open tool calls of a journaled turn, one
// that started, is not idempotent and has no result gets PartialText; the
// others are left open for the application, which knows its tools: an
// idempotent call is run again, one that never started is answered with
// NotRunText or run (see InFlight; the harness does this before its next
// prompt). The open calls of a turn that was not journaled (a log written
// before journal entries existed) get InterruptedText, as they always
// have.
//
// The new entries are written without an fsync each, and fsynced once at
// the end.
func (s *Session) recoverJournal() error {
	f := s.log.inFlight(s.log.leaf)
	for _, r := range f.Requests {
		e := Entry{Type: TypeRequestSettled, Target: r.ID, Status: StatusDropped}
		if err := s.appendFilled(&e); err != nil {
			return err
		}
		s.dropped = append(s.dropped, r)
	}
	for _, c := range f.Calls {
		text := InterruptedText
		if c.Journaled {
			if !c.Started || c.Idempotent {
				continue
			}
			text = PartialText
		}
		m := llm.ToolResult(c.Call.ID, c.Call.Name, true, llm.Text(text))
		m.Timestamp = s.opts.now().UTC()
		e := Entry{Type: TypeMessage, Message: &m}
		if err := s.appendFilled(&e); err != nil {
			return err
		}
		s.repairs = append(s.repairs, Repair{Entry: e.ID, Assistant: c.Assistant, CallID: c.Call.ID, ToolName: c.Call.Name})
	}
	if s.dirty {
		return s.sync()
	}
	return nil
}

// appendFilled fills and writes e without an fsync.
func (s *Session) appendFilled(e *Entry) error {
	if err := s.fill(e); err != nil {
		return err
	}
	line, err := s.enc.entryLine(e)
	if err != nil {
		return fmt.Errorf("%w: encoding: %v", ErrInvalidEntry, err)
	}
	if line, err = s.outgoing(line, e); err != nil {
		return err
	}
	if err := s.write(line); err != nil {
		return err
	}
	s.log.add(*e)
	return nil
}

// Dropped lists the requests Open found in flight and settled as
// dropped (their request_started entries).
func (s *Session) Dropped() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.dropped...)
}
