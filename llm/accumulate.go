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
	args [][]byte           // streamed tool-call arguments by content index
	open []bool             // blocks started and not yet ended, by content index
	text []*strings.Builder // streamed text and thinking by content index
}

// Reset empties the accumulator for a new message, keeping its buffers.
// Messages returned earlier are not affected.
func (a *Accumulator) Reset() {
	for i := range a.args {
		a.args[i] = a.args[i][:0]
	}
	clear(a.open)
	clear(a.text)
	a.msg = Message{}
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
			b.Text = a.appendText(ev.Index, b.Text, ev.Delta)
		}
	case EventToolCallDelta:
		if ev.Index >= 0 && ev.Index < len(a.msg.Content) {
			for len(a.args) <= ev.Index {
				a.args = append(a.args, nil)
			}
			a.args[ev.Index] = append(a.args[ev.Index], ev.Delta...)
		}
	case EventTextEnd, EventThinkingEnd, EventToolCallEnd:
		if ev.Content != nil {
			a.ensure(ev.Index, *ev.Content)
			a.msg.Content[ev.Index] = *ev.Content
		} else if ev.Type == EventToolCallEnd {
			a.closeToolCall(ev.Index)
		}
		if ev.Index >= 0 && ev.Index < len(a.open) {
			a.open[ev.Index] = false
		}
		if ev.Index >= 0 && ev.Index < len(a.text) {
			a.text[ev.Index] = nil
		}
		if ev.Index >= 0 && ev.Index < len(a.args) {
			a.args[ev.Index] = a.args[ev.Index][:0]
		}
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
	copied := false
	for i, b := range a.args {
		if i < len(m.Content) && i < len(a.open) && a.open[i] && m.Content[i].Type == ContentToolCall {
			if !copied {
				m.Content = append([]Content(nil), a.msg.Content...)
				copied = true
			}
			m.Content[i].Arguments = FinishArguments(string(b))
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
	for i, open := range a.open {
		if open && i < len(a.msg.Content) {
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
		for len(a.open) <= i {
			a.open = append(a.open, false)
		}
		a.open[i] = true
	}
}

// appendText returns cur+delta for block i. It appends to a builder kept
// per block, so that a text streamed in many deltas costs linear rather
// than quadratic time; strings returned earlier stay valid, as a builder
// only appends. When the block's text was replaced from outside, the
// builder starts again from it.
func (a *Accumulator) appendText(i int, cur, delta string) string {
	for len(a.text) <= i {
		a.text = append(a.text, nil)
	}
	sb := a.text[i]
	if sb == nil || sb.Len() != len(cur) || sb.String() != cur {
		sb = new(strings.Builder)
		sb.Grow(2 * (len(cur) + len(delta)))
		sb.WriteString(cur)
		a.text[i] = sb
	}
	sb.WriteString(delta)
	return sb.String()
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
	if i < len(a.args) && len(a.args[i]) > 0 {
		b.Arguments = FinishArguments(string(a.args[i]))
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
