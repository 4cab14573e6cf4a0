package interop

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// ClaudeVersion is the Claude Code version an export names by default.
const ClaudeVersion = "2.1.328"

// writeClaude writes s as a Claude Code session file: one line per
// message, linked by uuid and parentUuid, the path to the current entry
// last. Entries Claude Code has no line for are left out (their children
// hang under their parent), except compactions, written as Claude Code's
// compact boundary and summary.
func writeClaude(w *bufio.Writer, s *Session, o Options, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	sid := ClaudeSessionID(s.Header.ID)
	version := o.Version
	if version == "" {
		version = ClaudeVersion
	}
	branch := ""
	uid := func(id string) string { return uuidOf(sid, id) }
	gone := alias{}
	skipped := map[string]int{}
	var cm claudeMessageOut
	var blocks []claudeBlock
	for _, e := range ordered(s, r) {
		parent := gone.resolve(e.Parent)
		var pp *string
		if parent != "" {
			p := uid(parent)
			pp = &p
		}
		l := claudeLine{ParentUUID: pp, UserType: "external", Cwd: s.Header.Cwd, SessionID: sid, Version: version, GitBranch: &branch,
			UUID: uid(e.ID), Timestamp: piStamp(e.Timestamp, s.Header.Created)}
		switch e.Type {
		case session.TypeMessage:
			m := e.Message
			cm = claudeMessageOut{claudeMessage: claudeMessage{Role: "user"}}
			out := claudeLineOut{Message: &cm}
			switch m.Role {
			case llm.RoleUser:
				l.Type = "user"
				cm.Content = claudeUserContent(m)
			case llm.RoleToolResult:
				l.Type = "user"
				cm.Content = []claudeResultOut{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: claudeResultBlocks(m), IsError: m.IsError}}
				out.ToolUseResult = m.Text()
			case llm.RoleAssistant:
				l.Type = "assistant"
				blocks = claudeAssistant(m, e.ID, r, &cm, blocks[:0])
				if m.ResponseID != "" {
					l.RequestID = "req_" + m.ResponseID
				}
			}
			out.claudeLine = l
			if err := enc.Encode(&out); err != nil {
				return err
			}
			r.Messages++
			r.Calls += len(m.ToolCalls())
			continue
		case session.TypeCompaction:
			b := claudeLine{Type: "system", Subtype: "compact_boundary", UUID: uid(e.ID + ".boundary"), LogicalParent: derefOr(pp), UserType: "external",
				Cwd: s.Header.Cwd, SessionID: sid, Version: version, GitBranch: &branch, Timestamp: l.Timestamp}
			b.Content, _ = json.Marshal("Conversation compacted")
			if err := enc.Encode(b); err != nil {
				return err
			}
			p := b.UUID
			l.ParentUUID, l.Type, l.IsCompactSummary = &p, "user", true
			text := "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n" + e.Summary
			l.Message, _ = json.Marshal(claudeMessage{Role: "user", Content: mustJSON(text)})
			if e.FirstKept != "" {
				r.drop("", "the entries a compaction kept verbatim", "Claude Code's compaction keeps none: they are before its boundary")
			}
		default:
			skipped[string(e.Type)]++
			gone[e.ID] = parent
			continue
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	for t, n := range skipped {
		r.drop("", fmt.Sprintf("%d %s entries", n, t), "Claude Code has no such line")
	}
	for i := range s.Entries {
		if e := &s.Entries[i]; e.Type == session.TypeSessionInfo && e.Name != "" {
			if err := enc.Encode(map[string]string{"type": "summary", "summary": e.Name, "leafUuid": uid(session.LastLeaf(s.Entries))}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ClaudeSessionID is the Claude Code session id of an exported rein
// session: its id as a UUID.
func ClaudeSessionID(id string) string { return uuidOf(id, id) }

func derefOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// claudeLineOut is a Claude Code line as written: its message and tool
// result values, not JSON text (the fields shadow claudeLine's).
type claudeLineOut struct {
	claudeLine
	Message       *claudeMessageOut `json:"message,omitempty"`
	ToolUseResult any               `json:"toolUseResult,omitempty"`
}

// claudeMessageOut is a message as written: Content is a string or a
// slice of blocks.
type claudeMessageOut struct {
	claudeMessage
	Content any `json:"content"`
}

// claudeResultOut is a tool_result block as written: Content is a string
// or a slice of blocks.
type claudeResultOut struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   any    `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

func claudeImage(c *llm.Content) claudeBlock {
	b := claudeBlock{Type: "image"}
	b.Source = &struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}{"base64", c.MIMEType, c.Data}
	return b
}

func claudeUserContent(m *llm.Message) any {
	if len(m.Content) == 1 && m.Content[0].Type == llm.ContentText {
		return m.Content[0].Text
	}
	var blocks []claudeBlock
	for i := range m.Content {
		c := &m.Content[i]
		switch c.Type {
		case llm.ContentImage:
			blocks = append(blocks, claudeImage(c))
		default:
			blocks = append(blocks, claudeBlock{Type: "text", Text: &c.Text})
		}
	}
	return blocks
}

func claudeResultBlocks(m *llm.Message) any {
	if len(m.Content) == 1 && m.Content[0].Type == llm.ContentText {
		return m.Content[0].Text
	}
	var blocks []claudeBlock
	for i := range m.Content {
		if c := &m.Content[i]; c.Type == llm.ContentImage {
			blocks = append(blocks, claudeImage(c))
		} else {
			blocks = append(blocks, claudeBlock{Type: "text", Text: &c.Text})
		}
	}
	if blocks == nil {
		return ""
	}
	return blocks
}

var claudeStopOut = map[llm.StopReason]string{llm.StopEnd: "end_turn", llm.StopToolUse: "tool_use", llm.StopLength: "max_tokens"}

// claudeAssistant fills cm with the assistant message m, its blocks
// appended to blocks (reused from the message before).
func claudeAssistant(m *llm.Message, entryID string, r *Report, out *claudeMessageOut, blocks []claudeBlock) []claudeBlock {
	cm := claudeMessage{ID: m.ResponseID, Type: "message", Role: "assistant", Model: m.Model}
	if cm.ID == "" {
		cm.ID = "msg_rein_" + entryID
	}
	if cm.Model == "" {
		cm.Model = "unknown"
	}
	if s, ok := claudeStopOut[m.StopReason]; ok {
		cm.StopReason = &s
	} else if len(m.ToolCalls()) > 0 {
		s := "tool_use"
		cm.StopReason = &s
	} else {
		s := "end_turn"
		cm.StopReason = &s
	}
	u := claudeUsage{}
	if m.Usage != nil {
		u = claudeUsage{Input: m.Usage.Input, Output: m.Usage.Output, CacheRead: m.Usage.CacheRead, CacheCreation: m.Usage.CacheWrite}
	}
	cm.Usage = &u
	same := m.API == llm.APIAnthropicMessages
	for i := range m.Content {
		c := &m.Content[i]
		switch c.Type {
		case llm.ContentText:
			blocks = append(blocks, claudeBlock{Type: "text", Text: &c.Text})
		case llm.ContentThinking:
			switch {
			case same && c.Redacted:
				blocks = append(blocks, claudeBlock{Type: "redacted_thinking", Data: c.Signature})
			case same && c.Signature != "":
				blocks = append(blocks, claudeBlock{Type: "thinking", Thinking: &c.Text, Signature: c.Signature})
			case c.Text != "":
				// Unsigned or another provider's: Anthropic would refuse it as thinking.
				blocks = append(blocks, claudeBlock{Type: "text", Text: &c.Text})
				r.drop("", "the signature of thinking from "+string(m.API), "only Anthropic's own thinking can go back as thinking; kept as text")
			default:
				r.drop("", "encrypted reasoning from "+string(m.API), "only the provider that made it can read it")
			}
		case llm.ContentToolCall:
			name, args := fromRein(Claude, c.Name, c.Arguments)
			if !c.ArgumentsObject() {
				args = mustJSON(map[string]string{"_raw": c.RawArguments()})
			}
			blocks = append(blocks, claudeBlock{Type: "tool_use", ID: c.ID, Name: name, Input: args})
		case llm.ContentImage:
			r.drop("", "an image in an assistant message", "Claude Code's assistant lines hold no images")
		}
	}
	if blocks == nil {
		blocks = []claudeBlock{}
	}
	*out = claudeMessageOut{claudeMessage: cm, Content: blocks}
	return blocks
}
