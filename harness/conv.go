package harness

import (
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// conv caches the conversation at the store's leaf as the harness last
// left it, so that a prompt does not rebuild it from the log. The log
// stays the source of truth: the cache is used only while the store's
// leaf is the one the harness recorded (any other writer of a tree entry
// moves the leaf), and it is dropped by every write that changes the
// conversation in a way it does not follow (compaction, navigation, a
// branch, a message an application appended) and by every failed
// operation.
//
// It is touched only under h.mu or by the goroutine of the running
// operation (phase changes happen under h.mu, which orders the two).
type conv struct {
	valid bool
	leaf  string
	msgs  []llm.Message
}

// append writes e to the store and keeps the cache in step; run marks
// the messages of a run, which the run itself adds to the conversation.
func (h *Harness) append(e session.Entry, run bool) (session.Entry, error) {
	return h.appendSync(e, run, true)
}

// appendSync is append, with an fsync only when sync is set (stores that
// cannot skip it always sync). Unsynced writes are for entries that a
// synced one always follows before anything depends on them.
func (h *Harness) appendSync(e session.Entry, run, sync bool) (session.Entry, error) {
	e, err := h.appendJournal(e, sync)
	if err != nil {
		return e, err
	}
	c := &h.conv
	switch {
	case !c.valid || e.Type.Side():
	case e.Type == session.TypeLeaf || e.Type == session.TypeCompaction || e.Type == session.TypeBranchSummary:
		c.valid = false
	case e.Parent != c.leaf || e.Type == session.TypeMessage && !run:
		c.valid = false
	default:
		c.leaf = e.ID
	}
	return e, nil
}

// conversation returns the messages at the store's leaf, from the cache
// when it is valid, and owned by the caller (who may append to it).
func (h *Harness) conversation() []llm.Message {
	if h.conv.valid && h.st().Leaf() == h.conv.leaf {
		return h.conv.msgs
	}
	sc := h.st().Context()
	h.mu.Lock()
	h.recorded = recordedFrom(sc)
	h.mu.Unlock()
	h.conv = conv{valid: true, leaf: h.st().Leaf(), msgs: nil}
	return sc.Messages
}

// settle stores the conversation a successful run ended with (msgs
// holds every message it persisted after the conversation it started
// from), or drops the cache after a failure.
func (h *Harness) settle(msgs []llm.Message, ok bool) {
	if !ok {
		h.conv.valid = false
		return
	}
	h.conv.msgs = msgs
}
