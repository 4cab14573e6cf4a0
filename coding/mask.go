package coding

import (
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/redact"
)

// DeltaMasker masks secrets that a reply streams across several deltas,
// for stream-json output: each block's deltas pass through a
// redact.Stream, which holds back a possible secret's start until it is
// complete, and what is held is emitted as one more delta just before the
// block's end event.
type DeltaMasker struct {
	r       *redact.Redactor
	streams map[int]*redact.Stream
}

// NewDeltaMasker masks with r.
func NewDeltaMasker(r *redact.Redactor) *DeltaMasker {
	return &DeltaMasker{r: r, streams: map[int]*redact.Stream{}}
}

// Apply returns the events to write in place of ev.
func (m *DeltaMasker) Apply(ev harness.Event) []harness.Event {
	d := ev.Delta
	if ev.Type != agent.EventMessageUpdate || d == nil {
		return []harness.Event{ev}
	}
	switch d.Type {
	case llm.EventTextStart, llm.EventThinkingStart, llm.EventToolCallStart:
		m.streams[d.Index] = redact.NewStream(m.r)
	case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta:
		s := m.streams[d.Index]
		if s == nil {
			s = redact.NewStream(m.r)
			m.streams[d.Index] = s
		}
		safe := s.Next(d.Delta)
		if safe == "" {
			return nil
		}
		return []harness.Event{withDelta(ev, d.Type, d.Index, safe)}
	case llm.EventTextEnd, llm.EventThinkingEnd, llm.EventToolCallEnd:
		s := m.streams[d.Index]
		delete(m.streams, d.Index)
		if s == nil {
			break
		}
		if rest := s.Flush(); rest != "" {
			var t llm.EventType
			switch d.Type {
			case llm.EventTextEnd:
				t = llm.EventTextDelta
			case llm.EventThinkingEnd:
				t = llm.EventThinkingDelta
			default:
				t = llm.EventToolCallDelta
			}
			return []harness.Event{withDelta(ev, t, d.Index, rest), ev}
		}
	}
	return []harness.Event{ev}
}

// withDelta returns a copy of ev carrying a delta event of type t.
func withDelta(ev harness.Event, t llm.EventType, index int, text string) harness.Event {
	out := ev
	out.Delta = &llm.Event{Type: t, Index: index, Delta: text}
	return out
}
