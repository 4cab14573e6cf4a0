package llm

import (
	"encoding/json"
	"strings"
)

// Accumulator builds an assistant message from streaming events. Feeding
// it every event of a stream, in order, yields the same message the stream
// ends with. The zero value is ready to use; it is not safe for concurrent
// use.
type Accumulator struct {
	msg  Message
	args map[int]*strings.Builder
	open map[int]bool
}

// Add applies one event.
func (a *Accumulator) Add(ev Event) {
	switch ev.Type {
	case EventStart:
		if ev.Message != nil {
			content := a.msg.Content
			a.msg = *ev.Message
			a.msg.Content = content
		}
		a.msg.Role = RoleAssistant
	case EventTextStart:
		a.ensure(ev.Index, Content{Type: ContentText})
	case EventThinkingStart:
		c := Content{Type: ContentThinking}
		if ev.Content != nil {
			c = *ev.Content
		}
		a.ensure(ev.Index, c)
	case EventToolCallStart:
		c := Content{Type: ContentToolCall}
		if ev.Content != nil {
			c = *ev.Content
			c.Type = ContentToolCall
		}
		a.ensure(ev.Index, c)
	case EventTextDelta, EventThinkingDelta:
		if b := a.block(ev.Index); b != nil {
			b.Text += ev.Delta
		}
	case EventToolCallDelta:
		if a.args == nil {
			a.args = make(map[int]*strings.Builder)
		}
		sb := a.args[ev.Index]
		if sb == nil {
			sb = &strings.Builder{}
			a.args[ev.Index] = sb
		}
		sb.WriteString(ev.Delta)
	case EventTextEnd, EventThinkingEnd, EventToolCallEnd:
		if ev.Content != nil {
			a.ensure(ev.Index, *ev.Content)
			a.msg.Content[ev.Index] = *ev.Content
		} else if ev.Type == EventToolCallEnd {
			a.closeToolCall(ev.Index)
		}
		delete(a.open, ev.Index)
		delete(a.args, ev.Index)
	case EventDone, EventError:
		if ev.Message != nil {
			a.msg = *ev.Message
		}
	}
}

// Message returns the message built so far. Tool calls still streaming
// have their arguments finalised as by Close, on the returned copy only.
func (a *Accumulator) Message() Message {
	m := a.msg
	m.Role = RoleAssistant
	if len(a.args) > 0 {
		m.Content = append([]Content(nil), a.msg.Content...)
		for i, sb := range a.args {
			if i < len(m.Content) {
				m.Content[i].Arguments = FinishArguments(sb.String())
			}
		}
	}
	return m
}

// Partial returns a pointer to the message being built, without copying.
// It is valid until the next call to Add and must not be modified.
func (a *Accumulator) Partial() *Message { return &a.msg }

// OpenBlocks returns the content indexes that were started but not ended.
func (a *Accumulator) OpenBlocks() []int {
	var idx []int
	for i := range a.msg.Content {
		if a.open[i] {
			idx = append(idx, i)
		}
	}
	return idx
}

func (a *Accumulator) ensure(i int, c Content) {
	for len(a.msg.Content) <= i {
		a.msg.Content = append(a.msg.Content, Content{})
	}
	if a.msg.Content[i].Type == "" {
		a.msg.Content[i] = c
		if a.open == nil {
			a.open = make(map[int]bool, 4)
		}
		a.open[i] = true
	}
}

func (a *Accumulator) block(i int) *Content {
	if i < 0 || i >= len(a.msg.Content) {
		return nil
	}
	return &a.msg.Content[i]
}

func (a *Accumulator) closeToolCall(i int) {
	b := a.block(i)
	if b == nil {
		return
	}
	if sb := a.args[i]; sb != nil {
		b.Arguments = FinishArguments(sb.String())
	} else if len(b.Arguments) == 0 {
		b.Arguments = json.RawMessage("{}")
	}
}

// FinishArguments turns streamed tool-call argument text into the value
// stored in Content.Arguments: the text itself when it is valid JSON, an
// empty object when it is empty, and otherwise the text as a JSON string,
// so that invalid output is kept and can be reported to the model.
func FinishArguments(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	q, _ := json.Marshal(s)
	return q
}
