package trajectory

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// messageDecoder reads rein's session log, pi's session file and pi's
// `--mode json` event stream. All three carry messages in nearly the same
// shape; only the spelling differs (rein: role "tool_result", blocks of
// type "tool_call", tool_call_id, is_error; pi: "toolResult", "toolCall",
// toolCallId, isError). Entries of the other known types are skipped and
// entries of unknown types reported. A session is read in file order; the
// turn is the count of assistant messages.
type messageDecoder struct {
	events bool // pi events: messages come in message_end lines
	turn   int
	tools  []string
	pairing
}

// sessionTypes are the entry types of rein's and pi's session files;
// eventTypes those of pi's event stream.
var (
	sessionTypes = []string{"session", "message", "model_change", "thinking_level_change", "thinking_change", "tools_change",
		"leaf", "compaction", "branch_summary", "custom", "label", "session_info", "custom_message", "work_items",
		"request_started", "request_settled", "tool_started", "tool_settled", "queued", "dequeued"}
	eventTypes = []string{"session", "agent_start", "turn_start", "message_start", "message_update", "message_end",
		"tool_execution_start", "tool_execution_update", "tool_execution_end", "turn_end", "agent_end", "auto_compaction_start",
		"auto_compaction_end", "auto_retry_start", "auto_retry_end"}
)

// message is a message of any of the three spellings.
type message struct {
	Role       string         `json:"role"`
	Content    jsontext.Value `json:"content"`
	ToolCallID string         `json:"tool_call_id"`
	PiCallID   string         `json:"toolCallId"`
	IsError    bool           `json:"is_error"`
	PiIsError  bool           `json:"isError"`
	Notes      []string       `json:"notes"`
}

// block is a content block of a message.
type block struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments jsontext.Value `json:"arguments"`
	Text      string         `json:"text"`
}

func (d *messageDecoder) line(n int, p *probe) error {
	known := sessionTypes
	if d.events {
		known = eventTypes
	}
	if !slices.Contains(known, p.Type) {
		if d.events {
			return fmt.Errorf("an event of type %q, which a pi event stream does not have (skipped)", p.Type)
		}
		return fmt.Errorf("an entry of type %q, which a session file does not have (skipped)", p.Type)
	}
	if p.Type == "tools_change" {
		if t := p.tools(); t != nil {
			d.tools = t // rein records the tools offered to the model
		}
		return nil
	}
	switch {
	case d.events && p.Type == "message_end", !d.events && p.Type == "message":
	default:
		return nil
	}
	if len(p.Message) == 0 {
		return errors.New(`a message entry without "message"`)
	}
	var m message
	if err := unmarshal(p.Message, &m); err != nil {
		return fmt.Errorf("message: %v", err)
	}
	switch m.Role {
	case "assistant":
		d.turn++
		if len(m.Content) == 0 || m.Content[0] != '[' {
			return nil // text only
		}
		var blocks []block
		if err := unmarshal(m.Content, &blocks); err != nil {
			return fmt.Errorf("message.content: %v", err)
		}
		for _, b := range blocks {
			if b.Type != "tool_call" && b.Type != "toolCall" {
				continue
			}
			args := json.RawMessage(b.Arguments)
			if len(args) > 0 && args[0] == '"' {
				// rein keeps arguments that did not parse as a JSON string.
				raw, _ := stringValue(args)
				args, _ = json.Marshal(map[string]string{"_raw": raw})
			}
			d.add(Call{Line: n, Turn: d.turn, ID: b.ID, Tool: b.Name, Args: args})
		}
	case "tool_result", "toolResult":
		id := m.ToolCallID
		if id == "" {
			id = m.PiCallID
		}
		d.resultNoted(id, contentText(m.Content), m.IsError || m.PiIsError, m.Notes)
	}
	return nil
}

func (d *messageDecoder) finish() *Session { return &Session{Calls: d.calls, Tools: d.tools} }

// contentText returns the text of a content field: a string, or the text
// blocks of an array (other blocks are shown by type, e.g. "[image]").
func contentText(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		s, _ := stringValue(raw)
		return s
	}
	if raw[0] != '[' {
		return string(raw)
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	if len(blocks) == 1 && (blocks[0].Type == "text" || blocks[0].Type == "") {
		return blocks[0].Text
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type != "text" && bl.Type != "" {
			b.WriteString("[" + bl.Type + "]")
			continue
		}
		b.WriteString(bl.Text)
	}
	return b.String()
}
