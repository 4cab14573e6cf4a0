package telemetry

import (
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// Carried is what earlier runs of a session spent without leaving a
// record of their end: the process died during them (kill -9, a crash).
// Their replies are in the session log with their usage; the next
// top-level run begun on the session carries that spend: it counts
// against the run's budget, and the run's record says so, so neither a
// budget nor the records' total cost loses it.
type Carried struct {
	// Replies counts the model replies carried; Usage and Cost sum them.
	Replies int     `json:"replies"`
	Usage   Usage   `json:"usage"`
	Cost    float64 `json:"cost"`
}

// entryLister is implemented by stores that list their entries
// (*session.Session, harness.MemoryStore).
type entryLister interface {
	Entries() []session.Entry
}

// unaccounted sums the replies of h's log that no run record covers:
// those after the last "run" entry and after what this Telemetry
// already counted for the session, from the first journaled request on
// (a log without request journal entries — an import, an older file —
// says nothing of runs, and nothing is carried from it). It marks the
// log as counted up to its end.
func (t *Telemetry) unaccounted(h *harness.Harness, sid string) (llm.Usage, int) {
	l, ok := h.Store().(entryLister)
	if !ok || sid == "" {
		return llm.Usage{}, 0
	}
	es := l.Entries()
	start := 0
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Type == session.TypeCustom && es[i].Kind == SessionEntryKind {
			start = i + 1
			break
		}
	}
	t.mu.Lock()
	if t.counted == nil {
		t.counted = map[string]string{}
	}
	if last, ok := t.counted[sid]; ok {
		for i := len(es) - 1; i >= start; i-- {
			if es[i].ID == last {
				start = i + 1
				break
			}
		}
	}
	if len(es) > 0 {
		t.counted[sid] = es[len(es)-1].ID
	}
	t.mu.Unlock()
	var u llm.Usage
	n := 0
	journaled := false
	for i := start; i < len(es); i++ {
		e := &es[i]
		switch {
		case e.Type == session.TypeRequestStarted:
			journaled = true
		case journaled && e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == llm.RoleAssistant && e.Message.Usage != nil:
			u.Add(*e.Message.Usage)
			n++
		}
	}
	return u, n
}

// markCounted notes that h's log, as it is now, is covered: a run ended
// on it, with or without its run entry.
func (t *Telemetry) markCounted(h *harness.Harness, sid string) {
	l, ok := h.Store().(entryLister)
	if !ok || sid == "" {
		return
	}
	es := l.Entries()
	if len(es) == 0 {
		return
	}
	t.mu.Lock()
	if t.counted == nil {
		t.counted = map[string]string{}
	}
	t.counted[sid] = es[len(es)-1].ID
	t.mu.Unlock()
}

// carry adds spend made before the meter's run began to its total (not
// to its own usage): its limits count it.
func (m *Meter) carry(u llm.Usage) {
	m.mu.Lock()
	m.total.Add(u)
	m.mu.Unlock()
}
