package interop

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// claudeLine is a line of a Claude Code session file.
type claudeLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype,omitempty"`
	UUID             string          `json:"uuid,omitempty"`
	ParentUUID       *string         `json:"parentUuid"`
	LogicalParent    string          `json:"logicalParentUuid,omitempty"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta,omitempty"`
	IsCompactSummary bool            `json:"isCompactSummary,omitempty"`
	IsAPIError       bool            `json:"isApiErrorMessage,omitempty"`
	UserType         string          `json:"userType,omitempty"`
	Cwd              string          `json:"cwd,omitempty"`
	SessionID        string          `json:"sessionId,omitempty"`
	Version          string          `json:"version,omitempty"`
	GitBranch        *string         `json:"gitBranch,omitempty"`
	Message          json.RawMessage `json:"message,omitempty"`
	RequestID        string          `json:"requestId,omitempty"`
	Timestamp        string          `json:"timestamp,omitempty"`
	Summary          string          `json:"summary,omitempty"`
	LeafUUID         string          `json:"leafUuid,omitempty"`
	Content          json.RawMessage `json:"content,omitempty"`
	ToolUseResult    json.RawMessage `json:"toolUseResult,omitempty"`
}

type claudeMessage struct {
	ID         string          `json:"id,omitempty"`
	Type       string          `json:"type,omitempty"`
	Role       string          `json:"role"`
	Model      string          `json:"model,omitempty"`
	Content    json.RawMessage `json:"content"`
	StopReason *string         `json:"stop_reason,omitempty"`
	Usage      *claudeUsage    `json:"usage,omitempty"`
}

type claudeUsage struct {
	Input         int `json:"input_tokens"`
	CacheCreation int `json:"cache_creation_input_tokens"`
	CacheRead     int `json:"cache_read_input_tokens"`
	Output        int `json:"output_tokens"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source,omitempty"`
}

// claudeIgnored are line types of a Claude Code session that hold no
// conversation: the program's own bookkeeping.
var claudeIgnored = map[string]bool{"file-history-snapshot": true, "queue-operation": true, "permission-mode": true,
	"last-prompt": true, "agent-name": true, "pr-link": true, "ai-title": true, "tag": true, "custom-title": true, "progress": true}

var claudeStops = map[string]llm.StopReason{"end_turn": llm.StopEnd, "tool_use": llm.StopToolUse, "max_tokens": llm.StopLength,
	"stop_sequence": llm.StopEnd, "pause_turn": llm.StopEnd, "refusal": llm.StopEnd}

// scanClaude reads a Claude Code session file (~/.claude/projects/…).
// Lines of sub-agents (isSidechain) are passed as side entries: the
// import leaves them out, and reports them, unless the file has nothing
// else (a sub-agent's own transcript).
func scanClaude(s *scan) error {
	c, name := s.c, s.name
	c.Source = session.Source{Format: string(Claude), Path: name}
	boundary := map[string]string{} // compact boundary uuid -> the entry before it
	sidechain, attachments := 0, 0
	seen := false
	err := eachLine(s.r, func(n int, line []byte, last bool) error {
		var l claudeLine
		if err := unmarshal(line, &l); err != nil {
			return err
		}
		where := lineRef{name, n}
		seen = true
		if l.SessionID != "" && c.Source.ID == "" {
			c.Source.ID = l.SessionID
		}
		if l.Version != "" {
			c.Source.Version = l.Version
		}
		if l.Cwd != "" && c.Cwd == "" {
			c.Cwd = l.Cwd
		}
		if c.Created.IsZero() && l.Timestamp != "" {
			c.Created = parseTime(l.Timestamp)
		}
		if l.IsSidechain {
			// A sub-agent's lines: its conversation, kept apart; a file
			// of nothing else (its own transcript) imports them.
			sidechain++
		}
		parent := ""
		if l.ParentUUID != nil {
			parent = *l.ParentUUID
		}
		if p, ok := boundary[parent]; ok {
			parent = p
		}
		switch l.Type {
		case "user", "assistant":
		case "summary":
			if c.Name == "" {
				c.Name = l.Summary
			}
			return nil
		case "attachment":
			// Context Claude Code adds for the model (environment, skill
			// and tool listings): not part of the conversation. Lines
			// that follow it name it as their parent.
			boundary[l.UUID] = parent
			attachments++
			return nil
		case "system":
			if l.Subtype == "compact_boundary" {
				lp := parent
				if l.LogicalParent != "" {
					lp = l.LogicalParent
				}
				boundary[l.UUID] = lp
				return nil
			}
			c.Report.drop(where.String(), "a system line ("+l.Subtype+")", "a notice of Claude Code's, not part of the conversation")
			return nil
		case "":
			return fmt.Errorf(`a line without "type"`)
		default:
			if claudeIgnored[l.Type] {
				return nil
			}
			return fmt.Errorf("a line of type %q, which this reader does not know (newer Claude Code?)", l.Type)
		}
		if l.UUID == "" {
			return fmt.Errorf("a %s line without uuid", l.Type)
		}
		var cm claudeMessage
		if err := unmarshal(l.Message, &cm); err != nil {
			return fmt.Errorf("message: %v", err)
		}
		ts := parseTime(l.Timestamp)
		if l.IsCompactSummary {
			return s.add(session.Entry{Type: session.TypeCompaction, ID: l.UUID, Parent: parent, Timestamp: ts, Summary: contentText(cm.Content)}, l.IsSidechain)
		}
		msgs, err := claudeToMessages(&l, &cm, &c.Report, where)
		if err != nil {
			return err
		}
		for i := range msgs {
			id := l.UUID
			if i > 0 {
				id = l.UUID + "." + strconv.Itoa(i)
			}
			msgs[i].Timestamp = ts
			if err := s.add(session.Entry{Type: session.TypeMessage, ID: id, Parent: parent, Timestamp: ts, Message: &msgs[i]}, l.IsSidechain); err != nil {
				return err
			}
			parent = id
		}
		return nil
	}, func(n int, why string) { c.Report.drop(lineRef{name, n}.String(), "line", why) })
	if err != nil {
		return err
	}
	if !seen {
		return headerError(name, Claude, &c.Report)
	}
	if attachments > 0 {
		c.Report.drop(name, fmt.Sprintf("%d attachment lines", attachments), "context Claude Code adds for its model (environment, skill and tool listings), not part of the conversation")
	}
	if sidechain > 0 && (s.main > 0 || s.first != nil && s.first.main > 0) {
		c.Report.drop(name, fmt.Sprintf("%d sidechain lines", sidechain), "they are a sub-agent's own conversation, not the session's")
	}
	return nil
}

// claudeToMessages turns one user or assistant line into rein messages:
// a user line holding tool results gives one message per result.
func claudeToMessages(l *claudeLine, cm *claudeMessage, r *Report, where lineRef) ([]llm.Message, error) {
	var blocks []claudeBlock
	if len(cm.Content) > 0 && cm.Content[0] == '"' {
		var s string
		_ = unmarshal(cm.Content, &s)
		blocks = []claudeBlock{{Type: "text", Text: &s}}
	} else if err := unmarshal(cm.Content, &blocks); err != nil {
		return nil, fmt.Errorf("message.content: %v", err)
	}
	if l.Type == "assistant" {
		m := llm.Message{Role: llm.RoleAssistant, Provider: "anthropic", Model: cm.Model, API: llm.APIAnthropicMessages, ResponseID: cm.ID}
		if cm.StopReason != nil {
			m.StopReason = claudeStops[*cm.StopReason]
		}
		if l.IsAPIError {
			m.StopReason, m.ErrorMessage = llm.StopError, contentText(cm.Content)
		}
		if u := cm.Usage; u != nil {
			m.Usage = &llm.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheCreation}
			m.Usage.Total = u.Input + u.Output + u.CacheRead + u.CacheCreation
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				m.Content = append(m.Content, llm.Text(deref(b.Text)))
			case "thinking":
				m.Content = append(m.Content, llm.Thinking(deref(b.Thinking), b.Signature))
			case "redacted_thinking":
				m.Content = append(m.Content, llm.Content{Type: llm.ContentThinking, Redacted: true, Signature: b.Data})
			case "tool_use":
				name, args, _ := toRein(Claude, b.Name, b.Input)
				m.Content = append(m.Content, llm.ToolCall(b.ID, name, args))
			default:
				m.Content = append(m.Content, llm.Text(fmt.Sprintf("[%s block]\n%s", b.Type, compact(b))))
				r.drop(where.String(), "a "+b.Type+" block", "kept as text: rein has no such block")
			}
		}
		return []llm.Message{m}, nil
	}
	var out []llm.Message
	user := llm.Message{Role: llm.RoleUser}
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			res := llm.Message{Role: llm.RoleToolResult, ToolCallID: b.ToolUseID, IsError: b.IsError}
			res.Content = claudeResultContent(b.Content)
			out = append(out, res)
		case "text":
			user.Content = append(user.Content, llm.Text(deref(b.Text)))
		case "image":
			if b.Source != nil && b.Source.Type == "base64" {
				user.Content = append(user.Content, llm.Image(b.Source.Data, b.Source.MediaType))
			} else {
				r.drop(where.String(), "an image", "not stored in the file (only a reference)")
			}
		default:
			user.Content = append(user.Content, llm.Text(fmt.Sprintf("[%s block]\n%s", b.Type, compact(b))))
		}
	}
	if len(user.Content) > 0 {
		out = append(out, user)
	}
	return out, nil
}

func claudeResultContent(raw json.RawMessage) []llm.Content {
	if len(raw) == 0 {
		return []llm.Content{llm.Text("")}
	}
	var blocks []claudeBlock
	if raw[0] != '[' || unmarshal(raw, &blocks) != nil {
		return []llm.Content{llm.Text(contentText(raw))}
	}
	var out []llm.Content
	for _, b := range blocks {
		switch {
		case b.Type == "image" && b.Source != nil:
			out = append(out, llm.Image(b.Source.Data, b.Source.MediaType))
		case b.Type == "text":
			out = append(out, llm.Text(deref(b.Text)))
		default:
			out = append(out, llm.Text(fmt.Sprintf("[%s]", b.Type)))
		}
	}
	if len(out) == 0 {
		out = []llm.Content{llm.Text("")}
	}
	return out
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// claudeDir is the directory name Claude Code keeps a workspace's
// sessions under: the absolute path with every character that is not a
// letter or digit turned into '-'.
func claudeDir(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}
