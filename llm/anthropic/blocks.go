package anthropic

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/reinhq/rein/llm"
)

// block is one content block of a request message.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []block         `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`

	// raw, when set, is sent verbatim instead of the fields above.
	raw json.RawMessage
	// extra holds wire fields rein does not model (a JSON object); they
	// are merged into the block.
	extra json.RawMessage
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// blockField reports whether key is a field block encodes itself.
func blockField(key string) bool {
	switch key {
	case "type", "text", "thinking", "signature", "data", "source", "id", "name",
		"input", "tool_use_id", "content", "is_error", "cache_control":
		return true
	}
	return false
}

// userBlocks converts the content of a user message or tool result.
func userBlocks(cs []llm.Content) []block {
	out := make([]block, 0, len(cs))
	for _, c := range cs {
		switch c.Type {
		case llm.ContentImage:
			out = append(out, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: c.MIMEType, Data: c.Data}})
		case llm.ContentText, llm.ContentThinking:
			if strings.TrimSpace(c.Text) != "" {
				out = append(out, block{Type: "text", Text: c.Text})
			}
		}
	}
	return out
}

// assistantBlocks converts an assistant message. Signed thinking,
// redacted thinking, Content.Extra and the pass-through blocks of
// Message.Extra are sent only when the message came from this API; from
// elsewhere they could not be verified.
func assistantBlocks(m *llm.Message) []block {
	own := m.API == llm.APIAnthropicMessages
	out := make([]block, 0, len(m.Content))
	for _, c := range m.Content {
		var b block
		switch c.Type {
		case llm.ContentText:
			if strings.TrimSpace(c.Text) == "" {
				continue
			}
			b = block{Type: "text", Text: c.Text}
		case llm.ContentThinking:
			switch {
			case own && c.Redacted && c.Signature != "":
				b = block{Type: "redacted_thinking", Data: c.Signature}
			case own && !c.Redacted && c.Signature != "":
				t := c.Text
				b = block{Type: "thinking", Thinking: &t, Signature: c.Signature}
			case !c.Redacted && strings.TrimSpace(c.Text) != "":
				// Unsigned reasoning cannot be verified: keep it as text.
				b = block{Type: "text", Text: c.Text}
			default:
				continue
			}
		case llm.ContentToolCall:
			input := c.Arguments
			if !c.ArgumentsObject() || !json.Valid(input) {
				input = json.RawMessage("{}")
			}
			b = block{Type: "tool_use", ID: toolID(c.ID), Name: c.Name, Input: input}
		default:
			continue
		}
		if own {
			b.extra = c.Extra
		}
		out = append(out, b)
	}
	if own && len(m.Extra) > 0 {
		out = interleave(out, m.Extra)
	}
	return out
}

// interleave puts the pass-through blocks recorded in a message's Extra
// back at their positions.
func interleave(blocks []block, extra json.RawMessage) []block {
	var ex messageExtra
	if json.Unmarshal(extra, &ex) != nil || len(ex.Blocks) == 0 {
		return blocks
	}
	out := make([]block, 0, len(blocks)+len(ex.Blocks))
	pass := ex.Blocks
	for _, b := range blocks {
		for len(pass) > 0 && pass[0].At <= len(out) {
			out = appendRaw(out, pass[0].Block)
			pass = pass[1:]
		}
		out = append(out, b)
	}
	for _, p := range pass {
		out = appendRaw(out, p.Block)
	}
	return out
}

func appendRaw(out []block, raw json.RawMessage) []block {
	if r := trimSpace(raw); len(r) > 0 && r[0] == '{' && json.Valid(r) {
		out = append(out, block{raw: r})
	}
	return out
}

// toolResultBlock converts a tool-result message.
func toolResultBlock(m *llm.Message) block {
	return block{Type: "tool_result", ToolUseID: toolID(m.ToolCallID), Content: userBlocks(m.Content), IsError: m.IsError}
}

// maxToolID is the longest tool-use id rein sends.
const maxToolID = 64

// toolID makes a tool-call id acceptable to the API (^[a-zA-Z0-9_-]+$,
// at most 64 bytes). Valid ids are kept; others, typically from other
// providers, get their invalid bytes replaced and a hash of the original
// appended, so that a call and its result map to the same id and distinct
// ids stay distinct.
func toolID(id string) string {
	ok := id != "" && len(id) <= maxToolID
	for i := 0; ok && i < len(id); i++ {
		ok = idByte(id[i])
	}
	if ok {
		return id
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	b := make([]byte, 0, maxToolID)
	for i := 0; i < len(id) && len(b) < maxToolID-len(suffix); i++ {
		if c := id[i]; idByte(c) {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	return string(b) + suffix
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
