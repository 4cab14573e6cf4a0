package otelpipe

import (
	"encoding/json"

	"github.com/reinhq/rein/llm"
)

// Message content leaves rein only when capture is on, and only after
// the redactor: the companion cannot call it. The companion caps sizes.

func (p *pipe) text(s string) string {
	if p.redact == nil || s == "" {
		return s
	}
	return p.redact(s)
}

// args redacts tool arguments; arguments the redactor leaves invalid
// JSON go as a JSON string.
func (p *pipe) args(a json.RawMessage) json.RawMessage {
	if p.redact == nil || len(a) == 0 {
		return a
	}
	r := p.redact(string(a))
	if json.Valid([]byte(r)) {
		return json.RawMessage(r)
	}
	b, _ := json.Marshal(r)
	return b
}

// contents keeps what a span records of message parts (text, thinking,
// tool calls), redacted; images and signatures stay in rein.
func (p *pipe) contents(cs []llm.Content) []llm.Content {
	out := make([]llm.Content, 0, len(cs))
	for _, c := range cs {
		switch c.Type {
		case llm.ContentText, llm.ContentThinking:
			out = append(out, llm.Content{Type: c.Type, Text: p.text(c.Text)})
		case llm.ContentToolCall:
			out = append(out, llm.Content{Type: c.Type, ID: c.ID, Name: c.Name, Arguments: p.args(c.Arguments)})
		default:
			out = append(out, llm.Content{Type: c.Type})
		}
	}
	return out
}

func (p *pipe) messages(ms []llm.Message) []llm.Message {
	out := make([]llm.Message, len(ms))
	for i, m := range ms {
		m.Content = p.contents(m.Content)
		out[i] = m
	}
	return out
}
