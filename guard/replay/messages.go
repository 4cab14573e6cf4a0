package replay

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/reinhq/rein/internal/jsonx"
)

// messageDecoder reads rein's session log, pi's session file and pi's
// `--mode json` event stream. All three carry messages in nearly the same
// shape; only the spelling differs (rein: role "tool_result", blocks of
// type "tool_call", tool_call_id, is_error; pi: "toolResult", "toolCall",
// toolCallId, isError). Entries of other types are skipped. A session is
// read in file order; the turn is the count of assistant messages.
type messageDecoder struct {
	events bool // pi events: messages come in message_end lines
	turn   int
	tools  []string
	pairing
}

func (d *messageDecoder) line(n int, p *probe) error {
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
	var role, id string
	var content []byte
	var notes []string
	isError := false
	if !jsonx.MembersValid(p.Message, func(k, v []byte) bool {
		switch string(k) {
		case "role":
			role = word(v)
		case "content":
			content = v
		case "tool_call_id", "toolCallId":
			id, _ = jsonx.StringValid(v)
		case "is_error", "isError":
			isError = jsonx.Bool(v)
		case "notes":
			jsonx.ElementsValid(v, func(el []byte) bool {
				if n, ok := jsonx.StringValid(el); ok {
					notes = append(notes, n)
				}
				return true
			})
		}
		return true
	}) {
		return errors.New(`"message" is not a JSON object`)
	}
	switch role {
	case "assistant":
		d.turn++
		if len(content) == 0 || content[0] != '[' {
			return nil // text only
		}
		var bad error
		jsonx.ElementsValid(content, func(b []byte) bool {
			var typ, id, name string
			var args []byte
			if !jsonx.MembersValid(b, func(k, v []byte) bool {
				switch string(k) {
				case "type":
					typ = word(v)
				case "id":
					id, _ = jsonx.StringValid(v)
				case "name":
					name, _ = jsonx.StringValid(v)
				case "arguments":
					args = v
				}
				return true
			}) {
				bad = errors.New("a content block is not a JSON object")
				return true
			}
			if typ != "tool_call" && typ != "toolCall" {
				return true
			}
			if len(args) > 0 && args[0] == '"' {
				// rein keeps arguments that did not parse as a JSON string.
				raw, _ := jsonx.StringValid(args)
				args, _ = json.Marshal(map[string]string{"_raw": raw})
			}
			d.add(Call{Line: n, Turn: d.turn, ID: id, Tool: name, Args: args})
			return true
		})
		return bad
	case "tool_result", "toolResult":
		d.resultNoted(id, contentText(content), isError, notes)
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
		s, _ := jsonx.StringValid(raw)
		return s
	}
	if raw[0] != '[' {
		return string(raw)
	}
	var b strings.Builder
	first, n := "", 0
	jsonx.ElementsValid(raw, func(el []byte) bool {
		typ, text := "", ""
		jsonx.MembersValid(el, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = word(v)
			case "text":
				text, _ = jsonx.StringValid(v)
			}
			return true
		})
		if typ != "text" && typ != "" {
			text = "[" + typ + "]"
		}
		if n == 1 {
			b.WriteString(first)
		}
		if n == 0 {
			first = text
		} else {
			b.WriteString(text)
		}
		n++
		return true
	})
	if n <= 1 {
		return first
	}
	return b.String()
}
