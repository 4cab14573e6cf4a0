package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/reinhq/rein/internal/jsonx"
)

// claudeDecoder reads Claude Code session files and `--output-format
// stream-json` logs. Both are JSONL with "assistant" lines whose
// message.content holds tool_use blocks and "user" lines whose content
// holds tool_result blocks; other line types are skipped, and so are
// lines of subagents (isSidechain). Session files split one model reply
// over several lines that share message.id; a turn is one message id.
// Tool names are mapped onto rein's: Read, Write, Edit, MultiEdit, Bash,
// Grep, Glob, LS become read, write, edit, edit, bash, grep, find, ls, and
// file_path becomes path.
type claudeDecoder struct {
	turn   int
	lastID string
	tools  []string
	pairing
}

func newClaudeDecoder() *claudeDecoder { return &claudeDecoder{} }

func (d *claudeDecoder) line(n int, p *probe) error {
	if p.IsSidechain {
		return nil
	}
	switch p.Type {
	case "system":
		if p.Subtype == "init" {
			if names := p.tools(); names != nil {
				d.tools = d.tools[:0]
				for _, t := range names {
					if name, _ := claudeTool(t, nil); !slices.Contains(d.tools, name) {
						d.tools = append(d.tools, name)
					}
				}
			}
		}
		return nil
	case "assistant", "user":
	default:
		return nil
	}
	if len(p.Message) == 0 {
		return fmt.Errorf("a %s line without \"message\"", p.Type)
	}
	var id string
	var content []byte
	if !jsonx.MembersValid(p.Message, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			id, _ = jsonx.StringValid(v)
		case "content":
			content = v
		}
		return true
	}) {
		return errors.New(`"message" is not a JSON object`)
	}
	if p.Type == "assistant" && (id == "" || id != d.lastID) {
		d.turn++
		d.lastID = id
	}
	if len(content) == 0 || content[0] != '[' {
		return nil // a plain prompt or text reply
	}
	var errs []error
	jsonx.ElementsValid(content, func(b []byte) bool {
		var typ, bid, name, useID string
		var input, body []byte
		isError := false
		jsonx.MembersValid(b, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = word(v)
			case "id":
				bid, _ = jsonx.StringValid(v)
			case "name":
				name, _ = jsonx.StringValid(v)
			case "input":
				input = v
			case "tool_use_id":
				useID, _ = jsonx.StringValid(v)
			case "content":
				body = v
			case "is_error":
				isError = jsonx.Bool(v)
			}
			return true
		})
		switch {
		case p.Type == "assistant" && typ == "tool_use":
			name, args := claudeTool(name, input)
			d.add(Call{Line: n, Turn: max(d.turn, 1), ID: bid, Tool: name, Args: args})
		case p.Type == "user" && typ == "tool_result":
			if !d.result(useID, contentText(body), isError) && useID == "" {
				errs = append(errs, errors.New("a tool_result without tool_use_id"))
			}
		}
		return true
	})
	return errors.Join(errs...)
}

func (d *claudeDecoder) finish() *Session {
	s := &Session{Calls: d.calls}
	if len(d.tools) > 0 {
		s.Tools = d.tools
	}
	return s
}

// claudeNames maps Claude Code's tool names onto rein's.
var claudeNames = map[string]string{
	"Read": "read", "Write": "write", "Edit": "edit", "MultiEdit": "edit", "Bash": "bash",
	"Grep": "grep", "Glob": "find", "LS": "ls", "NotebookRead": "read", "NotebookEdit": "edit",
}

// claudeTool maps a Claude Code call onto rein's tool and argument names.
func claudeTool(name string, input []byte) (string, json.RawMessage) {
	mapped, ok := claudeNames[name]
	if !ok {
		return name, input
	}
	if mapped == "grep" || mapped == "find" || mapped == "ls" {
		return mapped, input // same argument names
	}
	if len(input) == 0 || input[0] != '{' {
		return mapped, input
	}
	// Rename in place of decoding: the values are copied as they are.
	out := make([]byte, 0, len(input)+4)
	out = append(out, '{')
	jsonx.MembersValid(input, func(k, v []byte) bool {
		switch string(k) {
		case "file_path", "notebook_path":
			k = []byte("path")
		case "description":
			if mapped == "bash" {
				return true // a model-written label, not part of the command
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, k...)
		out = append(out, '"', ':')
		out = append(out, v...)
		return true
	})
	return mapped, append(out, '}')
}
