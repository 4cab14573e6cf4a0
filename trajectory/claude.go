package trajectory

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/reinhq/rein/internal/jsonread"
)

// claudeDecoder reads Claude Code session files and `--output-format
// stream-json` logs. Both are JSONL with "assistant" lines whose
// message.content holds tool_use blocks and "user" lines whose content
// holds tool_result blocks; lines of the other known types are skipped,
// and so are lines of subagents (isSidechain) in a main session's file. A
// file whose first message is a subagent's (Claude Code writes each
// subagent's transcript to a file of its own) is read as that subagent's
// session. A line of a type this
// reader does not know is reported. Session files split one model reply
// over several lines that share message.id; a turn is one message id.
// Tool names are mapped onto rein's: Read, Write, Edit, MultiEdit, Bash,
// Grep, Glob, LS become read, write, edit, edit, bash, grep, find, ls, and
// file_path becomes path.
type claudeDecoder struct {
	// started is set at the first user or assistant line; sub when that
	// line was a subagent's.
	started, sub bool
	turn         int
	cwd          string // the first "cwd" of the session's lines
	lastID       string
	prefix       int // tokens of the request of the current turn
	tools        []string
	pairing
}

func newClaudeDecoder() *claudeDecoder { return &claudeDecoder{} }

// claudeSkipped are the line types of Claude Code recordings that hold no
// tool calls.
var claudeSkipped = []string{"system", "result", "summary", "file-history-snapshot", "queue-operation",
	"permission-mode", "progress", "custom-title", "attachment", "stream_event", "tool_progress", "auth_status",
	"last-prompt", "agent-name", "pr-link", "ai-title", "tag", "x-error"}

// claudeMessage is the message of an assistant or user line.
type claudeMessage struct {
	ID      string         `json:"id"`
	Content jsontext.Value `json:"content"`
	Usage   *struct {
		Input         int `json:"input_tokens"`
		CacheCreation int `json:"cache_creation_input_tokens"`
		CacheRead     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// claudeBlock is one content block: tool_use, tool_result, text …
type claudeBlock struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   jsontext.Value `json:"content"`
	IsError   bool           `json:"is_error"`
}

func (d *claudeDecoder) line(n int, p *probe) error {
	if (p.Type == "assistant" || p.Type == "user") && !d.started {
		d.started, d.sub = true, p.IsSidechain
	}
	if p.IsSidechain != d.sub {
		return nil
	}
	if d.cwd == "" {
		d.cwd = p.Cwd
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
		if slices.Contains(claudeSkipped, p.Type) {
			return nil
		}
		if p.Type == "" {
			return errors.New(`a line without "type" (expected a Claude Code line: user, assistant, system …)`)
		}
		return fmt.Errorf("a line of type %q, which this reader does not know in a Claude Code recording (skipped)", p.Type)
	}
	if len(p.Message) == 0 {
		return fmt.Errorf("a %s line without \"message\"", p.Type)
	}
	var m claudeMessage
	if err := unmarshal(p.Message, &m); err != nil {
		return fmt.Errorf("message: %v", err)
	}
	if p.Type == "assistant" && (m.ID == "" || m.ID != d.lastID) {
		d.turn++
		d.lastID = m.ID
		d.prefix = 0
		if u := m.Usage; u != nil {
			d.prefix = u.Input + u.CacheCreation + u.CacheRead
		}
	}
	if len(m.Content) == 0 || m.Content[0] != '[' {
		return nil // a plain prompt or text reply
	}
	var blocks []claudeBlock
	if err := unmarshal(m.Content, &blocks); err != nil {
		return fmt.Errorf("message.content: %v", err)
	}
	var errs []error
	for _, b := range blocks {
		switch {
		case p.Type == "assistant" && b.Type == "tool_use":
			name, args := claudeTool(b.Name, b.Input)
			d.add(Call{Line: n, Turn: max(d.turn, 1), ID: b.ID, Tool: name, Args: args, Prefix: d.prefix})
		case p.Type == "user" && b.Type == "tool_result":
			if !d.result(b.ToolUseID, contentText(b.Content), b.IsError) && b.ToolUseID == "" {
				errs = append(errs, errors.New("a tool_result without tool_use_id"))
			}
		}
	}
	return errors.Join(errs...)
}

func (d *claudeDecoder) finish() *Session {
	s := &Session{Calls: d.calls, Workdir: d.cwd}
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
	// Rename members in place: the values are copied as they are.
	pd := jsonread.Get(input)
	defer pd.Free()
	dec := &pd.Dec
	var out []byte
	if _, err := dec.ReadToken(); err != nil {
		return mapped, input
	}
	out = append(out, '{')
	for dec.PeekKind() == '"' {
		k, err := dec.ReadToken()
		if err != nil {
			return mapped, input
		}
		key := k.String()
		v, err := dec.ReadValue()
		if err != nil {
			return mapped, input
		}
		switch key {
		case "file_path", "notebook_path":
			key = "path"
		case "description":
			if mapped == "bash" {
				continue // a model-written label, not part of the command
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := jsonv2.Marshal(key)
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, v...)
	}
	return mapped, append(out, '}')
}
