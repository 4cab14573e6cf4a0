// Package claudecode writes a run of a coding agent in Claude Code's
// output formats — `claude -p --output-format json` (one result object)
// and `stream-json` (one object a line: system init, assistant and user
// messages, the result) — so that scripts written for Claude Code read
// rein's output unchanged. Field names and values follow what Claude
// Code itself prints; rein's own facts that it lacks go under "rein".
//
// It also holds Claude Code's command-line conventions a front-end
// follows to accept its scripts (flags.go): its tool names, the flags
// rein maps or refuses with a reason, and --resume without an id.
package claudecode

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/hook/command"
	"github.com/reinhq/rein/llm"
)

// Meta are the facts of a run that its events do not carry.
type Meta struct {
	SessionID string
	// SessionFile is the session log's path ("" without one).
	SessionFile string
	Cwd         string
	Model       string
	// Tools are the names of the tools on offer, in Claude Code's form
	// where rein's tool has a Claude Code counterpart.
	Tools []string
	// PermissionMode is Claude Code's name of the mode (default,
	// acceptEdits, plan, bypassPermissions, dontAsk).
	PermissionMode string
	// Commands are the slash commands (templates, commands, skills).
	Commands []string
	Version  string
	// Start is when the run started, for duration_ms.
	Start time.Time
}

// Writer writes one run. Event and Result may be called from any
// goroutine; lines never interleave. The first error writing sticks and
// is returned by every later call.
type Writer struct {
	mu     sync.Mutex
	enc    *json.Encoder
	meta   Meta
	stream bool
	api    time.Duration // time spent in model calls (message_start → message_end)
	since  time.Time
	err    error
}

// NewStream returns a Writer of the stream-json format and writes its
// system init line.
func NewStream(w io.Writer, meta Meta) *Writer {
	cw := &Writer{enc: json.NewEncoder(w), meta: meta, stream: true}
	cw.enc.SetEscapeHTML(false)
	cw.write(map[string]any{
		"type": "system", "subtype": "init", "cwd": meta.Cwd, "session_id": meta.SessionID,
		"tools": nonNil(meta.Tools), "mcp_servers": []any{}, "model": meta.Model, "permissionMode": meta.PermissionMode,
		"slash_commands": nonNil(meta.Commands), "apiKeySource": "none", "output_style": "default",
		"claude_code_version": meta.Version, "uuid": newUUID(),
	})
	return cw
}

// NewResult returns a Writer of the json format: it writes nothing but
// the result object.
func NewResult(w io.Writer, meta Meta) *Writer {
	cw := &Writer{enc: json.NewEncoder(w), meta: meta}
	cw.enc.SetEscapeHTML(false)
	return cw
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (w *Writer) write(v any) {
	if w.err == nil {
		w.err = w.enc.Encode(v)
	}
}

// Event takes one event of the run. In stream-json every finished
// assistant message becomes an "assistant" line and every tool result a
// "user" line; both formats time the model calls for duration_api_ms.
func (w *Writer) Event(ev harness.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := ev.Message
	switch {
	case ev.Type == agent.EventMessageStart && m != nil && m.Role == llm.RoleAssistant:
		w.since = time.Now()
	case ev.Type == agent.EventMessageEnd && m != nil && m.Role == llm.RoleAssistant:
		if !w.since.IsZero() {
			w.api += time.Since(w.since)
			w.since = time.Time{}
		}
		if w.stream {
			w.write(w.assistant(m))
		}
	case ev.Type == agent.EventMessageEnd && m != nil && m.Role == llm.RoleToolResult && w.stream:
		w.write(w.toolResult(m))
	}
	return w.err
}

// message is an Anthropic Messages API message as Claude Code prints it.
type message struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	Role       string    `json:"role"`
	Model      string    `json:"model"`
	Content    []block   `json:"content"`
	StopReason *string   `json:"stop_reason"`
	Usage      usageJSON `json:"usage"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

// usageJSON is Claude Code's usage object.
type usageJSON struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func usageOf(u *llm.Usage) usageJSON {
	if u == nil {
		return usageJSON{}
	}
	return usageJSON{InputTokens: u.Input, CacheCreationInputTokens: u.CacheWrite, CacheReadInputTokens: u.CacheRead, OutputTokens: u.Output}
}

func (w *Writer) assistant(m *llm.Message) map[string]any {
	msg := message{ID: m.ResponseID, Type: "message", Role: "assistant", Model: m.Model, Content: []block{}, Usage: usageOf(m.Usage)}
	if msg.ID == "" {
		msg.ID = "msg_" + strings.ReplaceAll(newUUID(), "-", "")
	}
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentText:
			msg.Content = append(msg.Content, block{Type: "text", Text: c.Text})
		case llm.ContentThinking:
			msg.Content = append(msg.Content, block{Type: "thinking", Thinking: c.Text, Signature: c.Signature})
		case llm.ContentToolCall:
			name, input := command.ClaudeTool(c.Name, c.Arguments, w.meta.Cwd)
			msg.Content = append(msg.Content, block{Type: "tool_use", ID: c.ID, Name: name, Input: input})
		}
	}
	return map[string]any{"type": "assistant", "message": msg, "parent_tool_use_id": nil, "session_id": w.meta.SessionID, "uuid": newUUID()}
}

func (w *Writer) toolResult(m *llm.Message) map[string]any {
	text := m.Text()
	content := []map[string]any{{"tool_use_id": m.ToolCallID, "type": "tool_result", "content": text, "is_error": m.IsError}}
	out := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content},
		"parent_tool_use_id": nil, "session_id": w.meta.SessionID, "uuid": newUUID()}
	if m.ToolName == "bash" {
		stdout, interrupted := command.BashOutput(text)
		out["tool_use_result"] = map[string]any{"stdout": stdout, "stderr": "", "interrupted": interrupted, "isImage": false}
	}
	return out
}

// Result is Claude Code's result object, with rein's own facts beside.
type Result struct {
	Type              string    `json:"type"`
	Subtype           string    `json:"subtype"`
	IsError           bool      `json:"is_error"`
	DurationMS        int64     `json:"duration_ms"`
	DurationAPIMS     int64     `json:"duration_api_ms"`
	NumTurns          int       `json:"num_turns"`
	Result            string    `json:"result"`
	StopReason        *string   `json:"stop_reason"`
	SessionID         string    `json:"session_id"`
	TotalCostUSD      float64   `json:"total_cost_usd"`
	Usage             usageJSON `json:"usage"`
	PermissionDenials []any     `json:"permission_denials"`
	TerminalReason    string    `json:"terminal_reason"`
	UUID              string    `json:"uuid"`
	Rein              ReinFacts `json:"rein"`
}

// ReinFacts are what rein knows of a run beyond Claude Code's fields.
type ReinFacts struct {
	Stop        string `json:"stop"`
	Detail      string `json:"detail,omitempty"`
	Error       string `json:"error,omitempty"`
	SessionFile string `json:"session_file,omitempty"`
}

// subtypes maps rein's stop reasons onto Claude Code's result subtypes.
func subtype(stop agent.StopReason, err error) (string, bool) {
	switch {
	case err != nil:
		return "error_during_execution", true
	case stop == agent.StopCompleted:
		return "success", false
	case stop == agent.StopMaxTurns:
		return "error_max_turns", true
	}
	return "error_during_execution", true
}

// terminal maps rein's stop reasons onto Claude Code's terminal_reason.
func terminal(stop agent.StopReason) string {
	switch stop {
	case agent.StopCompleted:
		return "completed"
	case agent.StopMaxTurns:
		return "max_turns"
	case agent.StopAborted:
		return "aborted"
	}
	return string(stop)
}

// anthropicStop maps a message's stop reason onto the Messages API's.
func anthropicStop(s llm.StopReason) *string {
	var v string
	switch s {
	case llm.StopEnd:
		v = "end_turn"
	case llm.StopLength:
		v = "max_tokens"
	case llm.StopToolUse:
		v = "tool_use"
	case "":
		return nil
	default:
		v = string(s)
	}
	return &v
}

// Result writes the result object of a run: its answer (final), how it
// ended (res, err) and its cost. In the json format it is the only
// output. extra, when not nil, is an object whose fields are written
// beside Claude Code's (theirs win a clash; two "usage" objects are
// merged), so one document serves scripts written for either.
func (w *Writer) Result(res harness.Result, final string, err error, extra any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	sub, isErr := subtype(res.Stop, err)
	r := Result{Type: "result", Subtype: sub, IsError: isErr, NumTurns: res.Turns, Result: final,
		SessionID: w.meta.SessionID, TotalCostUSD: res.Usage.Cost.Total, Usage: usageOf(&res.Usage),
		PermissionDenials: []any{}, TerminalReason: terminal(res.Stop), UUID: newUUID(), DurationAPIMS: w.api.Milliseconds(),
		Rein: ReinFacts{Stop: string(res.Stop), Detail: res.Detail, SessionFile: w.meta.SessionFile}}
	if !w.meta.Start.IsZero() {
		r.DurationMS = time.Since(w.meta.Start).Milliseconds()
	}
	for i := len(res.Messages) - 1; i >= 0; i-- {
		if res.Messages[i].Role == llm.RoleAssistant {
			r.StopReason = anthropicStop(res.Messages[i].StopReason)
			break
		}
	}
	if err != nil {
		r.Rein.Error = err.Error()
		if r.Result == "" {
			r.Result = err.Error()
		}
	}
	if extra == nil {
		w.write(r)
		return w.err
	}
	merged, merr := merge(extra, r)
	if merr != nil {
		return merr
	}
	w.write(merged)
	return w.err
}

// merge writes b's fields over a's, merging objects both have under
// "usage".
func merge(a, b any) (map[string]json.RawMessage, error) {
	var ma, mb map[string]json.RawMessage
	for _, p := range []struct {
		v   any
		dst *map[string]json.RawMessage
	}{{a, &ma}, {b, &mb}} {
		raw, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, p.dst); err != nil {
			return nil, fmt.Errorf("claudecode: %T is not an object: %w", p.v, err)
		}
	}
	for k, v := range mb {
		if old, ok := ma[k]; ok && k == "usage" {
			var uo, un map[string]json.RawMessage
			if json.Unmarshal(old, &uo) == nil && json.Unmarshal(v, &un) == nil {
				for uk, uv := range un {
					uo[uk] = uv
				}
				v, _ = json.Marshal(uo)
			}
		}
		ma[k] = v
	}
	return ma, nil
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// ModeName returns Claude Code's name of a rein permission mode.
func ModeName(mode string) string {
	switch mode {
	case "ask", "auto_read", "":
		return "default"
	case "auto_edit":
		return "acceptEdits"
	case "auto_all":
		return "bypassPermissions"
	case "dont_ask":
		return "dontAsk"
	}
	return mode
}
