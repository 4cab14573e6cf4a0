package harness

import (
	"errors"
	"fmt"
	"slices"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// AppendEntry writes an application entry to the log: a custom entry, a
// label, a session_info entry, a work_items entry or a message. While idle it is written at
// once and the error is the store's. While an operation runs it is
// queued as a pending write (generated fields are filled when it is
// written) and flushed in order at the next save point, after the
// messages of the current turn, or when the operation ends; AppendEntry
// then returns nil. Safe to call from listeners and hooks.
//
// Structural entries are refused: use SetModel, SetThinking, SetTools,
// Compact and Navigate.
func (h *Harness) AppendEntry(e session.Entry) error {
	const op = "append_entry"
	switch e.Type {
	case session.TypeCustom:
		if e.Kind == "" {
			return errorf(CodeConfig, op, "a custom entry needs a Kind")
		}
	case session.TypeLabel, session.TypeSessionInfo, session.TypeWorkItems:
	case session.TypeMessage:
		if e.Message == nil {
			return errorf(CodeConfig, op, "a message entry needs a Message")
		}
		m := e.Message.Clone()
		e.Message = &m
	default:
		return errorf(CodeConfig, op, "%q entries are written by the harness itself; append custom, label, session_info, work_items or message entries", e.Type)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.Type == session.TypeLabel && !h.knownLocked(e.Target) {
		return &Error{Code: CodeConfig, Op: op, Err: fmt.Errorf("%w: there is no entry %q to label", session.ErrNotFound, e.Target)}
	}
	h.pending = append(h.pending, e)
	if h.phase != PhaseIdle {
		return nil
	}
	return h.flushLocked()
}

// entryLookup is implemented by stores that can tell whether they hold
// an entry (*session.Session and MemoryStore do).
type entryLookup interface {
	Entry(id string) (session.Entry, bool)
}

// knownLocked reports whether id names an entry of the store or one
// waiting in the pending writes; a store that cannot tell is trusted to
// check when the write is flushed. h.mu must be held.
func (h *Harness) knownLocked(id string) bool {
	if id == "" {
		return false
	}
	for _, p := range h.pending {
		if p.ID == id {
			return true
		}
	}
	lookup, ok := h.st().(entryLookup)
	if !ok {
		return true
	}
	_, found := lookup.Entry(id)
	return found
}

// Label sets the label of entry id ("" clears it); see AppendEntry. An
// id that names no entry of the log nor of the pending writes is refused
// at once, in every phase, with a CodeConfig error wrapping
// session.ErrNotFound.
func (h *Harness) Label(id, label string) error {
	return h.AppendEntry(session.Entry{Type: session.TypeLabel, Target: id, Label: label})
}

// Pending returns a copy of the writes waiting to be flushed.
func (h *Harness) Pending() []session.Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.pending)
}

// flush writes the pending entries in order.
func (h *Harness) flush() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.flushLocked()
}

// flushLocked writes the pending entries in order, holding h.mu so that
// writes queued meanwhile wait behind them. An entry that fails to be
// written stays queued for the next flush, except one the store rejects
// as invalid, which could never be written: it is dropped and reported.
func (h *Harness) flushLocked() error {
	if err := h.writeDecisionsLocked(); err != nil {
		return err
	}
	for len(h.pending) > 0 {
		e := h.pending[0]
		_, err := h.append(e, false)
		if err != nil && !errors.Is(err, session.ErrInvalidEntry) && !errors.Is(err, session.ErrNotFound) {
			return &Error{Code: CodeStore, Op: "flush", Err: fmt.Errorf("writing a pending %s entry: %w", e.Type, err)}
		}
		h.pending[0] = session.Entry{}
		h.pending = h.pending[1:]
		if err != nil {
			return &Error{Code: CodeStore, Op: "flush", Err: fmt.Errorf("a pending %s entry was rejected and dropped: %w", e.Type, err)}
		}
	}
	h.pending = nil
	return nil
}

// persist writes one message of the run.
// A queued message names its queued entry, so that one line both
// delivers it and takes it off the queue (see recover.go).
func (h *Harness) persist(m llm.Message) error {
	e := session.Entry{Type: session.TypeMessage, Message: &m, Queued: h.takeQueued(&m)}
	if _, err := h.append(e, true); err != nil {
		return &Error{Code: CodeStore, Op: "persist", Err: fmt.Errorf("writing a %s message: %w", m.Role, err)}
	}
	h.mu.Lock()
	h.rec.totals.count(&m)
	h.mu.Unlock()
	return nil
}

// record writes the model, thinking and tools changes of c that the log's
// path does not show yet, so that they precede the turn that uses them.
// They are written without an fsync: the prompt (at a run's start) or
// the reply (between turns) follows them, synced, before the turn they
// describe is on disk.
func (h *Harness) record(c *config) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := &h.recorded
	if r.provider != c.model.Provider || r.model != c.model.ID {
		if _, err := h.appendSync(session.Entry{Type: session.TypeModelChange, Provider: c.model.Provider, Model: c.model.ID, ContextWindow: c.model.ContextWindow}, false, false); err != nil {
			return &Error{Code: CodeStore, Op: "record", Err: fmt.Errorf("writing the model change: %w", err)}
		}
		r.provider, r.model = c.model.Provider, c.model.ID
	}
	if thinking := c.thinking; r.thinking != thinking {
		logged := thinking
		if logged == "" {
			logged = session.ThinkingDefault
		}
		if _, err := h.appendSync(session.Entry{Type: session.TypeThinkingChange, Thinking: logged}, false, false); err != nil {
			return &Error{Code: CodeStore, Op: "record", Err: fmt.Errorf("writing the thinking change: %w", err)}
		}
		r.thinking = thinking
	}
	if !r.toolsKnown || !slices.Equal(r.tools, c.names) {
		if _, err := h.appendSync(session.Entry{Type: session.TypeToolsChange, Tools: slices.Clone(c.names)}, false, false); err != nil {
			return &Error{Code: CodeStore, Op: "record", Err: fmt.Errorf("writing the tools change: %w", err)}
		}
		r.tools, r.toolsKnown = c.names, true
	}
	if err := h.recordGoneLocked(); err != nil {
		return &Error{Code: CodeStore, Op: "record", Err: fmt.Errorf("writing the tools that are gone: %w", err)}
	}
	return nil
}
