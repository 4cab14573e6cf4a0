package interop

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// CodexVersion is the codex version a rollout names by default.
const CodexVersion = "0.171.0"

// codexLine is one record of a codex rollout: a typed payload with a time.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Ordinal   *int            `json:"ordinal,omitempty"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexLineOut is a record as written: its payload a value, not JSON
// text.
type codexLineOut struct {
	Timestamp string `json:"timestamp"`
	Ordinal   *int   `json:"ordinal,omitempty"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type codexMeta struct {
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	Originator    string `json:"originator"`
	CLIVersion    string `json:"cli_version"`
	Source        string `json:"source"`
	ModelProvider string `json:"model_provider,omitempty"`
}

// codexItem is a response item: what the model saw or said.
type codexItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Role      string          `json:"role,omitempty"`
	Content   []codexContent  `json:"content,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	Input     string          `json:"input,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Summary   []codexContent  `json:"summary,omitempty"`
	Encrypted string          `json:"encrypted_content,omitempty"`
	Action    *struct {
		Command []string `json:"command"`
	} `json:"action,omitempty"`
	Status string `json:"status,omitempty"`
}

type codexContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

// codexContext marks the user messages codex writes itself (its
// environment, instructions and skills), which are not the user's.
var codexContext = []string{"<environment_context>", "<user_instructions>", "<skills_instructions>", "# AGENTS.md", "<permissions instructions>", "<turn_aborted>"}

// scanCodex reads a codex rollout (sessions/YYYY/MM/DD/rollout-….jsonl):
// its response items are the conversation; event records only repeat
// them for the program's display and are skipped.
//
// Whether a command failed is told by an event that may come after its
// output: the second pass marks the output with what the first learned.
func scanCodex(s *scan) error {
	c, name := s.c, s.name
	c.Source = session.Source{Format: string(Codex), Path: name}
	parent, provider, model := "", "", ""
	seen, meta := false, false
	contextMsgs, devMsgs := 0, 0
	failed := s.failed
	add := func(e session.Entry) error {
		e.Parent = parent
		parent = e.ID
		if m := e.Message; m != nil && m.Role == llm.RoleToolResult && s.first != nil && s.first.failed[m.ToolCallID] {
			m.IsError = true
		}
		return s.add(e, false)
	}
	err := eachLine(s.r, func(n int, line []byte, last bool) error {
		var l codexLine
		if err := unmarshal(line, &l); err != nil {
			return err
		}
		if l.Type == "" || len(l.Payload) == 0 {
			return fmt.Errorf(`not a rollout record (it needs "type" and "payload")`)
		}
		seen = true
		ts := parseTime(l.Timestamp)
		id := "l" + strconv.Itoa(n)
		where := lineRef{name, n}
		switch l.Type {
		case "session_meta":
			var m codexMeta
			if err := unmarshal(l.Payload, &m); err != nil {
				return fmt.Errorf("session_meta: %v", err)
			}
			if !meta {
				meta = true
				c.Source.ID, c.Source.Version, c.Cwd, c.Created, provider = m.ID, m.CLIVersion, m.Cwd, parseTime(m.Timestamp), m.ModelProvider
			}
		case "turn_context":
			var tc struct {
				Model string `json:"model"`
			}
			if unmarshal(l.Payload, &tc) == nil && tc.Model != "" && tc.Model != model {
				model = tc.Model
				p := provider
				if p == "" {
					p = "openai"
				}
				return add(session.Entry{Type: session.TypeModelChange, ID: id, Timestamp: ts, Provider: p, Model: model})
			}
		case "compacted":
			var cp struct {
				Message string `json:"message"`
			}
			_ = unmarshal(l.Payload, &cp)
			return add(session.Entry{Type: session.TypeCompaction, ID: id, Timestamp: ts, Summary: cp.Message})
		case "response_item":
			var it codexItem
			if err := unmarshal(l.Payload, &it); err != nil {
				return fmt.Errorf("response_item: %v", err)
			}
			m, skip := codexMessage(&it, &c.Report, where)
			switch skip {
			case "context":
				contextMsgs++
				return nil
			case "developer":
				devMsgs++
				return nil
			}
			if m == nil {
				return nil
			}
			m.Timestamp = ts
			if m.Role == llm.RoleAssistant {
				m.Model, m.Provider = model, provider
			}
			return add(session.Entry{Type: session.TypeMessage, ID: id, Timestamp: ts, Message: m})
		case "event_msg":
			// Display events repeat the items; a command's tells whether it failed.
			var ev struct {
				Type string `json:"type"`
				Item struct {
					Type   string `json:"type"`
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"item"`
				CallID   string `json:"call_id"`
				ExitCode *int   `json:"exit_code"`
			}
			if unmarshal(l.Payload, &ev) == nil && failed != nil {
				if ev.Item.Type == "CommandExecution" && ev.Item.Status == "failed" {
					failed[ev.Item.ID] = true
				}
				if ev.Type == "exec_command_end" && ev.ExitCode != nil && *ev.ExitCode != 0 {
					failed[ev.CallID] = true
				}
			}
		case "world_state", "token_usage_record":
			// The program's own records: state, token counts.
		default:
			return fmt.Errorf("a record of type %q, which this reader does not know (newer codex?)", l.Type)
		}
		return nil
	}, func(n int, why string) { c.Report.drop(lineRef{name, n}.String(), "line", why) })
	if err != nil {
		return err
	}
	if !seen {
		return headerError(name, Codex, &c.Report)
	}
	if !meta {
		c.Report.drop(name, "the session_meta record", "missing: the session id, workspace and codex version are unknown")
	}
	if contextMsgs > 0 {
		c.Report.drop(name, fmt.Sprintf("%d context messages codex wrote itself", contextMsgs), "environment and instructions of codex's, not the user's")
	}
	if devMsgs > 0 {
		c.Report.drop(name, fmt.Sprintf("%d developer messages", devMsgs), "codex's own instructions; rein sends its own")
	}
	return nil
}

// codexMessage turns one response item into a message; skip names a
// kind of item that is left out on purpose.
func codexMessage(it *codexItem, r *Report, where lineRef) (*llm.Message, string) {
	switch it.Type {
	case "message":
		m := &llm.Message{}
		for _, ct := range it.Content {
			switch ct.Type {
			case "input_text", "output_text", "text":
				m.Content = append(m.Content, llm.Text(ct.Text))
			case "input_image":
				if data, ok := strings.CutPrefix(ct.ImageURL, "data:"); ok {
					mime, b64, _ := strings.Cut(data, ";base64,")
					m.Content = append(m.Content, llm.Image(b64, mime))
				} else {
					m.Content = append(m.Content, llm.Text("[image "+ct.ImageURL+"]"))
				}
			default:
				r.drop(where.String(), "a "+ct.Type+" content item", "rein has no such content")
			}
		}
		switch it.Role {
		case "user":
			m.Role = llm.RoleUser
			if t := m.Text(); len(m.Content) == 1 {
				for _, p := range codexContext {
					if strings.HasPrefix(strings.TrimSpace(t), p) {
						return nil, "context"
					}
				}
			}
		case "assistant":
			m.Role, m.API = llm.RoleAssistant, llm.APIOpenAIResponses
			m.ResponseID = it.ID
		case "developer", "system":
			return nil, "developer"
		default:
			r.drop(where.String(), "a message with the role "+it.Role, "rein has no such role")
			return nil, ""
		}
		return m, ""
	case "reasoning":
		var text []string
		for _, s := range it.Summary {
			text = append(text, s.Text)
		}
		c := llm.Thinking(strings.Join(text, "\n\n"), it.Encrypted)
		c.Redacted = len(text) == 0 && it.Encrypted != ""
		return &llm.Message{Role: llm.RoleAssistant, API: llm.APIOpenAIResponses, Content: []llm.Content{c}}, ""
	case "function_call", "custom_tool_call", "local_shell_call":
		args := json.RawMessage(it.Arguments)
		switch {
		case it.Type == "custom_tool_call":
			args = mustJSON(map[string]string{"input": it.Input})
		case it.Type == "local_shell_call" && it.Action != nil:
			it.Name = "local_shell"
			args = mustJSON(map[string][]string{"command": it.Action.Command})
		case !json.Valid(args):
			args = mustJSON(it.Arguments)
		}
		name, mapped, _ := toRein(Codex, it.Name, args)
		return &llm.Message{Role: llm.RoleAssistant, API: llm.APIOpenAIResponses, StopReason: llm.StopToolUse,
			Content: []llm.Content{llm.ToolCall(it.CallID, name, mapped)}}, ""
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		text, isErr := codexOutput(it.Output)
		return &llm.Message{Role: llm.RoleToolResult, ToolCallID: it.CallID, IsError: isErr, Content: []llm.Content{llm.Text(text)}}, ""
	}
	r.drop(where.String(), "a "+it.Type+" item", "rein has no such item")
	return nil, ""
}

// codexOutput reads a call's output: a string, or {content, success}.
func codexOutput(raw json.RawMessage) (string, bool) {
	var s string
	if unmarshal(raw, &s) == nil {
		return s, false
	}
	var o struct {
		Content string `json:"content"`
		Success *bool  `json:"success"`
	}
	if unmarshal(raw, &o) == nil && o.Content != "" {
		return o.Content, o.Success != nil && !*o.Success
	}
	return string(raw), false
}

// CodexThreadID is the codex thread id of an exported rein session.
func CodexThreadID(id string) string { return uuidOf(id, id) }

// writeCodex writes the active branch of s as a codex rollout: the
// response items codex sends back to the model, and the event records
// its app server rebuilds a thread's items from (user and agent
// messages, command executions), one turn per user message.
func writeCodex(w *bufio.Writer, s *Session, o Options, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	h := s.Header
	created := h.Created
	if created.IsZero() {
		created = o.now()
	}
	version := o.Version
	if version == "" {
		version = CodexVersion
	}
	tid := CodexThreadID(h.ID)
	ordinal := 0
	emit := func(ts time.Time, typ string, payload any) error {
		if ts.IsZero() {
			ts = created
		}
		p := ordinal
		ordinal++
		return enc.Encode(codexLineOut{Timestamp: ts.UTC().Format(piTime), Ordinal: &p, Type: typ, Payload: payload})
	}
	if err := emit(created, "session_meta", codexMeta{ID: tid, Timestamp: created.UTC().Format(piTime), Cwd: h.Cwd, Originator: "rein",
		CLIVersion: version, Source: "cli", ModelProvider: cmp.Or(o.Provider, "openai")}); err != nil {
		return err
	}
	ctx := session.BuildContext(s.Entries, session.LastLeaf(s.Entries))
	results := map[string]*llm.Message{}
	for i := range ctx.Messages {
		if m := &ctx.Messages[i]; m.Role == llm.RoleToolResult {
			results[m.ToolCallID] = m
		}
	}
	turn, lastAgent, turnN := "", "", 0
	item := func(ts time.Time, ev map[string]any) error { return emit(ts, "event_msg", ev) }
	endTurn := func(ts time.Time) error {
		if turn == "" {
			return nil
		}
		t := turn
		turn = ""
		return emit(ts, "event_msg", map[string]any{"type": "task_complete", "turn_id": t, "last_agent_message": lastAgent})
	}
	var lastTS time.Time
	for i := range ctx.Messages {
		m := &ctx.Messages[i]
		ts := m.Timestamp
		lastTS = ts
		switch m.Role {
		case llm.RoleUser:
			if err := endTurn(ts); err != nil {
				return err
			}
			turnN++
			turn = uuidOf(tid, fmt.Sprintf("turn-%d", turnN))
			if err := emit(ts, "event_msg", map[string]any{"type": "task_started", "turn_id": turn}); err != nil {
				return err
			}
			var content, inputs []any
			for _, c := range m.Content {
				if c.Type == llm.ContentImage {
					content = append(content, map[string]string{"type": "input_image", "image_url": "data:" + c.MIMEType + ";base64," + c.Data})
					continue
				}
				content = append(content, map[string]string{"type": "input_text", "text": c.Text})
				inputs = append(inputs, map[string]any{"type": "text", "text": c.Text, "text_elements": []any{}})
			}
			if err := emit(ts, "response_item", map[string]any{"type": "message", "role": "user", "content": content}); err != nil {
				return err
			}
			if err := item(ts, map[string]any{"type": "user_message", "message": m.Text(), "images": []any{}, "kind": "plain"}); err != nil {
				return err
			}
			r.Messages++
		case llm.RoleAssistant:
			if turn == "" {
				turnN++
				turn = uuidOf(tid, fmt.Sprintf("turn-%d", turnN))
				if err := emit(ts, "event_msg", map[string]any{"type": "task_started", "turn_id": turn}); err != nil {
					return err
				}
			}
			r.Messages++
			var calls []llm.Content
			for j, c := range m.Content {
				var err error
				switch c.Type {
				case llm.ContentThinking:
					if m.API == llm.APIOpenAIResponses && c.Signature != "" {
						it := map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": c.Signature}
						if c.Text != "" {
							it["summary"] = []any{map[string]string{"type": "summary_text", "text": c.Text}}
						}
						err = emit(ts, "response_item", it)
					} else if c.Text != "" {
						it := map[string]any{"type": "reasoning", "summary": []any{map[string]string{"type": "summary_text", "text": c.Text}}}
						err = emit(ts, "response_item", it)
						if c.Signature != "" {
							r.drop("", "the signature of thinking from "+string(m.API), "only that provider can read it")
						}
					}
				case llm.ContentText:
					lastAgent = c.Text
					mid := fmt.Sprintf("msg_%s_%d", shortHash(tid, fmt.Sprint(i)), j)
					if err = emit(ts, "response_item", map[string]any{"type": "message", "role": "assistant", "id": mid,
						"content": []any{map[string]any{"type": "output_text", "text": c.Text, "annotations": []any{}}}}); err == nil {
						err = item(ts, map[string]any{"type": "agent_message", "message": c.Text})
					}
				case llm.ContentToolCall:
					calls = append(calls, c)
					err = codexCall(emit, ts, &c)
					r.Calls++
				}
				if err != nil {
					return err
				}
			}
			// The outputs follow all the calls of the message, as codex
			// writes parallel calls.
			for _, c := range calls {
				if err := codexOutputItems(emit, item, ts, h.Cwd, turn, &c, results[c.ID]); err != nil {
					return err
				}
			}
		}
	}
	return endTurn(lastTS)
}

// codexArgs maps one of rein's calls onto codex: bash as codex's
// exec_command, other tools under rein's names.
func codexArgs(c *llm.Content) (string, json.RawMessage) {
	name, args := fromRein(Codex, c.Name, c.Arguments)
	if !c.ArgumentsObject() {
		args = mustJSON(map[string]string{"_raw": c.RawArguments()})
	}
	if name == "exec_command" {
		var a struct {
			Cmd string `json:"cmd"`
		}
		_ = unmarshal(args, &a)
		if a.Cmd == "" {
			name, args = c.Name, c.Arguments
		}
	}
	return name, args
}

// codexCall writes a call's function_call item.
func codexCall(emit func(time.Time, string, any) error, ts time.Time, c *llm.Content) error {
	name, args := codexArgs(c)
	return emit(ts, "response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(args), "call_id": c.ID})
}

// codexOutputItems writes a call's output, and for a command the item
// codex's app server shows.
func codexOutputItems(emit func(time.Time, string, any) error, item func(time.Time, map[string]any) error, ts time.Time, cwd, turn string, c *llm.Content, res *llm.Message) error {
	name, args := codexArgs(c)
	out, isErr := NotRecorded, true
	if res != nil {
		out, isErr = res.Text(), res.IsError
	}
	if err := emit(ts, "response_item", map[string]any{"type": "function_call_output", "call_id": c.ID, "output": out}); err != nil {
		return err
	}
	if name != "exec_command" {
		return nil
	}
	var a struct {
		Cmd string `json:"cmd"`
	}
	_ = unmarshal(args, &a)
	code := 0
	if isErr {
		code = 1
	}
	argv := []string{"/bin/bash", "-lc", a.Cmd}
	status := "completed"
	if isErr {
		status = "failed"
	}
	if err := item(ts, map[string]any{"type": "exec_command_begin", "call_id": c.ID, "turn_id": turn, "command": argv, "cwd": cwd, "parsed_cmd": []any{}, "source": "agent"}); err != nil {
		return err
	}
	return item(ts, map[string]any{"type": "exec_command_end", "call_id": c.ID, "turn_id": turn, "command": argv, "cwd": cwd, "parsed_cmd": []any{}, "source": "agent",
		"stdout": out, "stderr": "", "aggregated_output": out, "exit_code": code, "duration": map[string]int{"secs": 0, "nanos": 0}, "formatted_output": out, "status": status})
}

func shortHash(seed, s string) string { return strings.ReplaceAll(uuidOf(seed, s), "-", "")[:16] }
