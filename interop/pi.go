package interop

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// piVersion is the pi session format version this package reads and
// writes.
const piVersion = 3

// piEntry is a line of a pi session file: the header or an entry.
type piEntry struct {
	Type          string          `json:"type"`
	ID            string          `json:"id"`
	ParentID      *string         `json:"parentId"`
	Timestamp     string          `json:"timestamp"`
	Version       int             `json:"version,omitempty"`
	Cwd           string          `json:"cwd,omitempty"`
	Message       json.RawMessage `json:"message,omitempty"`
	Provider      string          `json:"provider,omitempty"`
	ModelID       string          `json:"modelId,omitempty"`
	ThinkingLevel string          `json:"thinkingLevel,omitempty"`
	Summary       string          `json:"summary,omitempty"`
	FirstKept     string          `json:"firstKeptEntryId,omitempty"`
	TokensBefore  int             `json:"tokensBefore,omitempty"`
	Details       json.RawMessage `json:"details,omitempty"`
	FromID        string          `json:"fromId,omitempty"`
	TargetID      string          `json:"targetId,omitempty"`
	Label         *string         `json:"label,omitempty"`
	Name          string          `json:"name,omitempty"`
	CustomType    string          `json:"customType,omitempty"`
	Data          json.RawMessage `json:"data,omitempty"`
	Content       json.RawMessage `json:"content,omitempty"`
	Display       *bool           `json:"display,omitempty"`
}

type piMessage struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	ToolCallID   string          `json:"toolCallId,omitempty"`
	ToolName     string          `json:"toolName,omitempty"`
	Details      json.RawMessage `json:"details,omitempty"`
	IsError      *bool           `json:"isError,omitempty"`
	API          string          `json:"api,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	Model        string          `json:"model,omitempty"`
	ResponseID   string          `json:"responseId,omitempty"`
	Usage        *piUsage        `json:"usage,omitempty"`
	StopReason   string          `json:"stopReason,omitempty"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	Timestamp    int64           `json:"timestamp"`
}

type piUsage struct {
	Input       int `json:"input"`
	Output      int `json:"output"`
	CacheRead   int `json:"cacheRead"`
	CacheWrite  int `json:"cacheWrite"`
	TotalTokens int `json:"totalTokens"`
	Cost        struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cacheRead"`
		CacheWrite float64 `json:"cacheWrite"`
		Total      float64 `json:"total"`
	} `json:"cost"`
}

type piBlock struct {
	Type              string          `json:"type"`
	Text              *string         `json:"text,omitempty"`
	TextSignature     string          `json:"textSignature,omitempty"`
	Thinking          *string         `json:"thinking,omitempty"`
	ThinkingSignature string          `json:"thinkingSignature,omitempty"`
	Redacted          bool            `json:"redacted,omitempty"`
	Data              string          `json:"data,omitempty"`
	MimeType          string          `json:"mimeType,omitempty"`
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name,omitempty"`
	Arguments         json.RawMessage `json:"arguments,omitempty"`
	ThoughtSignature  string          `json:"thoughtSignature,omitempty"`
}

// piAPIs maps pi's API names onto rein's where they differ.
var piAPIs = map[string]llm.API{"openai-completions": llm.APIOpenAIChat, "google-generative-ai": llm.APIGemini}

func piAPI(s string) llm.API {
	if a, ok := piAPIs[s]; ok {
		return a
	}
	return llm.API(s)
}

func apiPi(a llm.API) string {
	for k, v := range piAPIs {
		if v == a {
			return k
		}
	}
	return string(a)
}

// scanPi reads a pi session file (version 3; older versions need pi to
// migrate them first, newer ones are refused).
func scanPi(s *scan) error {
	c, name := s.c, s.name
	c.Source = session.Source{Format: string(Pi), Path: name}
	side := alias{}
	header := false
	err := eachLine(s.r, func(n int, line []byte, last bool) error {
		var e piEntry
		if err := unmarshal(line, &e); err != nil {
			return err
		}
		if !header {
			if e.Type != "session" {
				return fmt.Errorf("%w: the first line is not a pi session header", errNotFormat)
			}
			if e.Version > piVersion {
				return fmt.Errorf("%w: pi session format version %d is newer than the %d this program reads; open it in that pi and export, or upgrade rein", errTooNew, e.Version, piVersion)
			}
			if e.Version < piVersion {
				return fmt.Errorf("%w: pi session format version %d predates %d; open it once in pi, which migrates it, then import", errTooOld, e.Version, piVersion)
			}
			header = true
			c.Source.Version, c.Source.ID, c.Cwd, c.Created = strconv.Itoa(e.Version), e.ID, e.Cwd, parseTime(e.Timestamp)
			return nil
		}
		en, err := piToEntry(&e, &c.Report, lineRef{name, n})
		if err != nil {
			return err
		}
		en.Parent = side.resolve(en.Parent)
		if !en.IsTree() {
			// pi's labels and names sit in its tree; rein's beside it.
			side[en.ID] = en.Parent
		}
		if en.Type == session.TypeSessionInfo {
			c.Name = en.Name
		}
		return s.add(en, false)
	}, func(n int, why string) { c.Report.drop(lineRef{name, n}.String(), "line", why) })
	if err != nil {
		return err
	}
	if !header {
		return headerError(name, Pi, &c.Report)
	}
	return nil
}

func piToEntry(e *piEntry, r *Report, where lineRef) (session.Entry, error) {
	en := session.Entry{ID: e.ID, Timestamp: parseTime(e.Timestamp)}
	if e.ParentID != nil {
		en.Parent = *e.ParentID
	}
	if e.ID == "" {
		return en, fmt.Errorf("a %q entry without an id", e.Type)
	}
	switch e.Type {
	case "message":
		m, err := piToMessage(e.Message, r, where)
		if err != nil {
			return en, err
		}
		en.Type, en.Message = session.TypeMessage, m
	case "custom_message":
		text := contentText(e.Content)
		m := llm.UserText(text)
		m.Timestamp = en.Timestamp
		en.Type, en.Message = session.TypeMessage, &m
	case "model_change":
		en.Type, en.Provider, en.Model = session.TypeModelChange, e.Provider, e.ModelID
	case "thinking_level_change":
		en.Type, en.Thinking = session.TypeThinkingChange, llm.ThinkingLevel(e.ThinkingLevel)
	case "compaction":
		en.Type, en.Summary, en.FirstKept, en.TokensBefore = session.TypeCompaction, e.Summary, e.FirstKept, e.TokensBefore
		var d struct {
			Read     []string `json:"readFiles"`
			Modified []string `json:"modifiedFiles"`
		}
		if unmarshal(e.Details, &d) == nil {
			en.FilesRead, en.FilesModified = d.Read, d.Modified
		}
	case "branch_summary":
		en.Type, en.Summary, en.From = session.TypeBranchSummary, e.Summary, e.FromID
	case "label":
		en.Type, en.Target = session.TypeLabel, e.TargetID
		if e.Label != nil {
			en.Label = *e.Label
		}
	case "session_info":
		en.Type, en.Name = session.TypeSessionInfo, e.Name
	case "custom":
		en.Type, en.Kind, en.Data = session.TypeCustom, e.CustomType, e.Data
		if e.CustomType == "rein.tools" {
			var t struct {
				Tools []string `json:"tools"`
			}
			if unmarshal(e.Data, &t) == nil {
				en.Type, en.Kind, en.Data, en.Tools = session.TypeToolsChange, "", nil, t.Tools
				if en.Tools == nil {
					en.Tools = []string{}
				}
			}
		}
	default:
		return en, fmt.Errorf("an entry of type %q, which pi format %d does not have", e.Type, piVersion)
	}
	return en, nil
}

func piToMessage(raw json.RawMessage, r *Report, where lineRef) (*llm.Message, error) {
	var pm piMessage
	if err := unmarshal(raw, &pm); err != nil {
		return nil, fmt.Errorf("message: %v", err)
	}
	m := &llm.Message{Timestamp: millis(pm.Timestamp)}
	var blocks []piBlock
	if len(pm.Content) > 0 && pm.Content[0] == '"' {
		var s string
		_ = unmarshal(pm.Content, &s)
		blocks = []piBlock{{Type: "text", Text: &s}}
	} else if len(pm.Content) > 0 && string(pm.Content) != "null" {
		if err := unmarshal(pm.Content, &blocks); err != nil {
			return nil, fmt.Errorf("message.content: %v", err)
		}
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			c := llm.Text(deref(b.Text))
			c.Signature = b.TextSignature
			m.Content = append(m.Content, c)
		case "thinking":
			c := llm.Thinking(deref(b.Thinking), b.ThinkingSignature)
			c.Redacted = b.Redacted
			m.Content = append(m.Content, c)
		case "image":
			m.Content = append(m.Content, llm.Image(b.Data, b.MimeType))
		case "toolCall":
			name, args, _ := toRein(Pi, b.Name, b.Arguments)
			c := llm.ToolCall(b.ID, name, args)
			c.Signature = b.ThoughtSignature
			m.Content = append(m.Content, c)
		default:
			r.drop(where.String(), "a content block of type "+b.Type, "rein has no such block")
		}
	}
	switch pm.Role {
	case "user":
		m.Role = llm.RoleUser
	case "assistant":
		m.Role = llm.RoleAssistant
		m.API, m.Provider, m.Model, m.ResponseID, m.ErrorMessage = piAPI(pm.API), pm.Provider, pm.Model, pm.ResponseID, pm.ErrorMessage
		m.StopReason = llm.StopReason(pm.StopReason)
		if pm.StopReason == "toolUse" {
			m.StopReason = llm.StopToolUse
		}
		if u := pm.Usage; u != nil {
			m.Usage = &llm.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Total: u.TotalTokens,
				Cost: llm.Cost{Input: u.Cost.Input, Output: u.Cost.Output, CacheRead: u.Cost.CacheRead, CacheWrite: u.Cost.CacheWrite, Total: u.Cost.Total}}
		}
	case "toolResult":
		m.Role = llm.RoleToolResult
		m.ToolCallID, m.IsError = pm.ToolCallID, pm.IsError != nil && *pm.IsError
		m.ToolName, _, _ = toRein(Pi, pm.ToolName, nil)
	case "bashExecution", "custom", "branchSummary", "compactionSummary":
		// pi's own message kinds: shown as what the user saw.
		m.Role = llm.RoleUser
		if len(m.Content) == 0 {
			m.Content = []llm.Content{llm.Text(string(raw))}
		}
	default:
		return nil, fmt.Errorf("a message with the role %q, which pi does not have", pm.Role)
	}
	return m, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// contentText is the text of a content field: a string, or the text of
// its text blocks.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if raw[0] == '"' && unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	out := ""
	for _, b := range blocks {
		if b.Type == "text" || b.Type == "" {
			out += b.Text
		} else {
			out += "[" + b.Type + "]"
		}
	}
	return out
}
