package session

import (
	"github.com/reinhq/rein/llm"
)

// InFlight is what a log says was under way when its writer stopped,
// reduced from the journal entries and the messages (see FindInFlight).
type InFlight struct {
	// Requests are the request_started entries that were never settled:
	// requests in flight when the writer died. Their partial replies
	// were never recorded; recovery drops them.
	Requests []Entry
	// Calls are the tool calls of the last assistant message at the leaf
	// that have no result yet, in the order the model made them.
	Calls []OpenCall
	// Queued are the queued entries neither delivered (a message entry
	// names them in Queued) nor dequeued, in the order they were queued.
	Queued []Entry
}

// Empty reports whether nothing was in flight.
func (f *InFlight) Empty() bool {
	return len(f.Requests) == 0 && len(f.Calls) == 0 && len(f.Queued) == 0
}

// OpenCall is a tool call without a result and what the journal says of
// it.
type OpenCall struct {
	// Call is the tool_call block of the assistant message.
	Call llm.Content
	// Assistant is the ID of the assistant message entry.
	Assistant string
	// Journaled: the turn that made the call was journaled (a
	// request_started entry precedes its message), so a call without a
	// tool_started entry is known never to have started. False for logs
	// written before journal entries existed: nothing is known.
	Journaled bool
	// Started and Settled: the call's tool_started / tool_settled
	// entries are in the log. Settled without a result means the tool
	// finished but its result was lost.
	Started, Settled bool
	// Idempotent is what the tool declared when the call started: running
	// it again has no effect beyond the first run.
	Idempotent bool
}

// Texts of the results recovery gives tool calls it does not run again.
const (
	// PartialText answers a call that started and did not record a
	// result: its effects may be partly or wholly there.
	PartialText = "interrupted: it may have partly run; the process ended after this tool call started and before its result was recorded. Check its effects before calling it again."
	// NotRunText answers a call that is known never to have started.
	NotRunText = "not run: the process ended before this tool call started; call it again if it is still needed."
)

// FindInFlight reduces entries (in file order, as ReadFile returns them)
// to what was in flight at leaf. It reads and changes nothing.
func FindInFlight(entries []Entry, leaf string) InFlight {
	l := &log{index: make(map[string]int, len(entries)), entries: listOf(entries)}
	for i := range entries {
		if _, dup := l.index[entries[i].ID]; !dup {
			l.index[entries[i].ID] = i
		}
	}
	return l.inFlight(leaf)
}

// InFlight reports what was in flight at the current leaf when the
// session was last written (after Open's repairs: the calls left are
// those Open leaves to the application, see Open).
func (s *Session) InFlight() InFlight {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.inFlight(s.log.leaf)
}

// inFlight is the reducer: one pass over the entries in file order, then
// a walk up from the leaf to its last assistant message.
func (l *log) inFlight(leaf string) InFlight {
	var f InFlight
	asst, answered := l.openTail(leaf)
	asstAt := -1
	if asst != nil {
		asstAt = l.index[asst.ID]
	}
	started := map[string]*Entry{}   // by call ID, after asstAt
	settledCall := map[string]bool{} // by call ID, after asstAt
	requests := map[string]int{}     // request_started ID -> position in f.Requests
	queued := map[string]int{}       // queued ID -> position in f.Queued
	journaledBefore := false         // a request_started entry precedes asst
	n := l.entries.len()
	for i := 0; i < n; i++ {
		e := l.entries.at(i)
		switch e.Type {
		case TypeRequestStarted:
			if i < asstAt {
				journaledBefore = true
			}
			requests[e.ID] = len(f.Requests)
			f.Requests = append(f.Requests, *e)
		case TypeRequestSettled:
			if k, ok := requests[e.Target]; ok {
				f.Requests[k].ID = "" // settled: removed below
				delete(requests, e.Target)
			}
		case TypeToolStarted:
			if i > asstAt && asstAt >= 0 {
				started[e.CallID] = e
			}
		case TypeToolSettled:
			if i > asstAt && asstAt >= 0 {
				settledCall[e.CallID] = true
			}
		case TypeQueued:
			queued[e.ID] = len(f.Queued)
			f.Queued = append(f.Queued, *e)
		case TypeDequeued:
			if k, ok := queued[e.Target]; ok {
				f.Queued[k].ID = ""
				delete(queued, e.Target)
			}
		case TypeMessage:
			if e.Queued != "" {
				if k, ok := queued[e.Queued]; ok {
					f.Queued[k].ID = ""
					delete(queued, e.Queued)
				}
			}
		}
	}
	f.Requests = compact(f.Requests)
	f.Queued = compact(f.Queued)
	if asst == nil || asst.Message.Failed() {
		return f
	}
	for _, c := range asst.Message.ToolCalls() {
		if answered[c.ID] {
			continue
		}
		answered[c.ID] = true
		oc := OpenCall{Call: c, Assistant: asst.ID, Journaled: journaledBefore, Settled: settledCall[c.ID]}
		if st := started[c.ID]; st != nil {
			oc.Started, oc.Idempotent = true, st.Idempotent
		}
		f.Calls = append(f.Calls, oc)
	}
	return f
}

// compact drops the entries whose ID was cleared, in place.
func compact(es []Entry) []Entry {
	out := es[:0]
	for _, e := range es {
		if e.ID != "" {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// openTail finds the last assistant message at the tail of the path to
// leaf, if only tool results (and entries that are not messages) follow
// it, and the call IDs those results answer.
func (l *log) openTail(leaf string) (*Entry, map[string]bool) {
	answered := map[string]bool{}
	for id := leaf; id != ""; {
		e, ok := l.get(id)
		if !ok {
			break
		}
		id = e.Parent
		if e.Type != TypeMessage {
			continue
		}
		switch e.Message.Role {
		case llm.RoleToolResult:
			answered[e.Message.ToolCallID] = true
			continue
		case llm.RoleAssistant:
			return e, answered
		}
		break
	}
	return nil, answered
}
