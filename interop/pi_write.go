package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

const piTime = "2006-01-02T15:04:05.000Z"

// writePi writes s as a pi session file (version 3): the whole tree, the
// path to the current entry last.
func writePi(w *bufio.Writer, s *Session, o Options, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	h := s.Header
	created := h.Created
	if created.IsZero() {
		created = o.now()
	}
	header := struct {
		Type      string `json:"type"`
		Version   int    `json:"version"`
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Cwd       string `json:"cwd"`
	}{"session", piVersion, uuidOf(h.ID, h.ID), created.UTC().Format(piTime), h.Cwd}
	if err := enc.Encode(header); err != nil {
		return err
	}
	dropped := map[string]int{}
	last := ""
	var pm piMessageOut
	var blocks []piBlock
	for _, e := range ordered(s, r) {
		last = e.ID
		pe := piEntry{Type: string(e.Type), ID: e.ID, Timestamp: piStamp(e.Timestamp, created)}
		if e.Parent != "" {
			pe.ParentID = &e.Parent
		}
		switch e.Type {
		case session.TypeMessage:
			var err error
			if blocks, err = piFromMessage(e.Message, r, &pm, blocks[:0]); err != nil {
				return err
			}
			// The message is written within the line, not marshalled
			// apart and copied in.
			if err := enc.Encode(piLineOut{piEntry: pe, Message: &pm}); err != nil {
				return err
			}
			r.Messages++
			r.Calls += len(e.Message.ToolCalls())
			continue
		case session.TypeModelChange:
			pe.Provider, pe.ModelID = e.Provider, e.Model
		case session.TypeThinkingChange:
			pe.Type, pe.ThinkingLevel = "thinking_level_change", string(e.Thinking)
			if e.Thinking == session.ThinkingDefault {
				pe.ThinkingLevel = "off"
			}
		case session.TypeToolsChange:
			pe.Type, pe.CustomType = "custom", "rein.tools"
			pe.Data, _ = json.Marshal(map[string][]string{"tools": e.Tools})
		case session.TypeCompaction:
			pe.Summary, pe.FirstKept, pe.TokensBefore = e.Summary, e.FirstKept, e.TokensBefore
			pe.Details, _ = json.Marshal(map[string][]string{"readFiles": nonNil(e.FilesRead), "modifiedFiles": nonNil(e.FilesModified)})
		case session.TypeBranchSummary:
			pe.Summary, pe.FromID = e.Summary, e.From
		case session.TypeCustom:
			pe.CustomType, pe.Data = e.Kind, e.Data
		default:
			dropped[string(e.Type)]++
			// Keep the tree connected through an entry pi skips.
			pe.Type, pe.CustomType = "custom", "rein."+string(e.Type)
			pe.Data = json.RawMessage(`{}`)
			if len(e.Raw) > 0 {
				pe.Data = e.Raw
			}
		}
		if err := enc.Encode(pe); err != nil {
			return err
		}
	}
	// Labels and the name are entries of pi's tree: they go after the
	// newest entry, one under the other, so the path stays the same.
	for i := range s.Entries {
		e := &s.Entries[i]
		pe := piEntry{ID: e.ID, Timestamp: piStamp(e.Timestamp, created)}
		switch e.Type {
		case session.TypeLabel:
			l := e.Label
			pe.Type, pe.TargetID, pe.Label = "label", e.Target, &l
		case session.TypeSessionInfo:
			pe.Type, pe.Name = "session_info", e.Name
		default:
			continue
		}
		if last != "" {
			p := last
			pe.ParentID = &p
		}
		last = e.ID
		if err := enc.Encode(pe); err != nil {
			return err
		}
	}
	for t, n := range dropped {
		r.drop("", fmt.Sprintf("%d %s entries", n, t), "pi has no such entry; kept as pi custom entries, which pi does not show")
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func piStamp(t, fallback time.Time) string {
	if t.IsZero() {
		t = fallback
	}
	return t.UTC().Format(piTime)
}

// piLineOut is a pi entry line as written: its message a value, not
// JSON text (the field shadows piEntry's).
type piLineOut struct {
	piEntry
	Message *piMessageOut `json:"message,omitempty"`
}

// piMessageOut is a pi message as written, its content blocks values.
type piMessageOut struct {
	piMessage
	Content []piBlock `json:"content"`
}

// piFromMessage fills pm with m in pi's terms, its content blocks
// appended to blocks (reused from the message before).
func piFromMessage(m *llm.Message, r *Report, pm *piMessageOut, blocks []piBlock) ([]piBlock, error) {
	*pm = piMessageOut{piMessage: piMessage{Timestamp: m.Timestamp.UnixMilli()}}
	if m.Timestamp.IsZero() {
		pm.Timestamp = 0
	}
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentText:
			t := c.Text
			blocks = append(blocks, piBlock{Type: "text", Text: &t, TextSignature: c.Signature})
		case llm.ContentThinking:
			t := c.Text
			blocks = append(blocks, piBlock{Type: "thinking", Thinking: &t, ThinkingSignature: c.Signature, Redacted: c.Redacted})
		case llm.ContentImage:
			blocks = append(blocks, piBlock{Type: "image", Data: c.Data, MimeType: c.MIMEType})
		case llm.ContentToolCall:
			name, args := fromRein(Pi, c.Name, c.Arguments)
			if !c.ArgumentsObject() {
				args, _ = json.Marshal(map[string]string{"_raw": c.RawArguments()})
			}
			blocks = append(blocks, piBlock{Type: "toolCall", ID: c.ID, Name: name, Arguments: args, ThoughtSignature: c.Signature})
		}
	}
	if blocks == nil {
		blocks = []piBlock{}
	}
	pm.Content = blocks
	switch m.Role {
	case llm.RoleUser:
		pm.Role = "user"
	case llm.RoleAssistant:
		pm.Role = "assistant"
		pm.API, pm.Provider, pm.Model, pm.ResponseID, pm.ErrorMessage = apiPi(m.API), m.Provider, m.Model, m.ResponseID, m.ErrorMessage
		pm.StopReason = string(m.StopReason)
		switch m.StopReason {
		case llm.StopToolUse:
			pm.StopReason = "toolUse"
		case "":
			pm.StopReason = "stop"
			if len(m.ToolCalls()) > 0 {
				pm.StopReason = "toolUse"
			}
		}
		u := piUsage{}
		if m.Usage != nil {
			u = piUsage{Input: m.Usage.Input, Output: m.Usage.Output, CacheRead: m.Usage.CacheRead, CacheWrite: m.Usage.CacheWrite, TotalTokens: m.Usage.Total}
			u.Cost.Input, u.Cost.Output, u.Cost.CacheRead, u.Cost.CacheWrite, u.Cost.Total = m.Usage.Cost.Input, m.Usage.Cost.Output, m.Usage.Cost.CacheRead, m.Usage.Cost.CacheWrite, m.Usage.Cost.Total
		}
		pm.Usage = &u
		if pm.Provider == "" {
			pm.Provider = "rein"
		}
	case llm.RoleToolResult:
		pm.Role = "toolResult"
		name, _ := fromRein(Pi, m.ToolName, nil)
		pm.ToolCallID, pm.ToolName = m.ToolCallID, name
		isErr := m.IsError
		pm.IsError = &isErr
	default:
		return blocks, fmt.Errorf("a message with the role %q", m.Role)
	}
	return blocks, nil
}
