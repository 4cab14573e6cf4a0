package trajectory

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/reinhq/rein/tool"
)

// errNoMessages says a JSON document has no top-level "messages" list, so
// it is not a mini-swe-agent trajectory and another reader may try it.
var errNoMessages = errors.New(`no "messages" list`)

// miniTraj is a mini-swe-agent trajectory (.traj.json or the .traj files
// of its SWE-bench runs): one JSON object with the conversation in
// "messages".
type miniTraj struct {
	Messages         []miniMessage `json:"messages"`
	TrajectoryFormat string        `json:"trajectory_format"`
	Info             struct {
		MiniVersion string `json:"mini_version"`
	} `json:"info"`
}

// miniMessage is one message of a trajectory. Chat-completion models give
// role/content (with tool_calls and "tool" replies when calling tools);
// the Responses API models of 2.x store each reply as the response object
// ("object": "response", the function calls in "output") and each result
// as a "function_call_output" item.
type miniMessage struct {
	Role       string         `json:"role"`
	Content    miniContent    `json:"content"`
	Object     string         `json:"object"`
	Type       string         `json:"type"`
	Output     jsontext.Value `json:"output"`
	CallID     string         `json:"call_id"`
	ToolCallID string         `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string         `json:"name"`
			Arguments jsontext.Value `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	Extra struct {
		Actions []struct {
			Command    jsontext.Value `json:"command"`
			ToolCallID string         `json:"tool_call_id"`
		} `json:"actions"`
		Returncode    jsontext.Value `json:"returncode"`
		InterruptType string         `json:"interrupt_type"`
	} `json:"extra"`
}

// miniContent is a message's content: a string, decoded in one pass (the
// common case, and most of a trajectory's bytes), or any other JSON value
// kept raw.
type miniContent struct {
	str  bool
	text string
	raw  jsontext.Value
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *miniContent) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		c.str, c.text = true, tok.String()
		return nil
	}
	v, err := dec.ReadValue()
	c.raw = v.Clone()
	return err
}

// The command blocks mini-swe-agent's text-based models parse: ```bash in
// 1.x, ```mswea_bash_command from 2.0 (its default action_regex).
var (
	miniReturnCode = regexp.MustCompile(`^\s*<returncode>(-?\d+)</returncode>`)
)

// readMiniSWE reads a mini-swe-agent trajectory: a JSON object whose
// "messages" hold the conversation (1.x writes "trajectory_format":
// "mini-swe-agent-1", 2.x "mini-swe-agent-1.1"), or a bare JSON list of
// such messages. It returns an error wrapping errNoMessages when data has
// no messages list, so that the caller can try other formats.
//
// Each reply (an assistant message, or a Responses API response object)
// is one turn. Its commands are, in this order: the "bash" tool calls of a
// tool-calling model; the commands in extra.actions (where a Responses
// API reply has its function calls); the single ```mswea_bash_command
// (2.x) or ```bash (1.x) block of its text. A text reply with no block or
// several is what mini-swe-agent rejects with a format error, and gives no
// call; so does a reply whose next message is a format error (1.x keeps
// such replies, 2.x records only the error). A call's result is the
// "tool" message or "function_call_output" item with its id, or else the
// next user message; its exit status is the <returncode> that result
// starts with, or its extra.returncode, and a non-zero one, or a
// timed-out command, is an error. The submission
// (echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, MINI_SWE_AGENT_FINAL_OUTPUT
// in 1.x) is an ordinary bash call whose result is the submission.
//
// A call's prefix is the size in tokens of the messages before its
// assistant message, the request that produced it. A file with messages
// but neither a mini-swe-agent marker nor a command in any assistant
// message is not recognised; one with the marker but no command at all is
// refused: in both cases there is nothing to replay, and the error says
// why.
func readMiniSWE(data []byte) (*Session, error) {
	var t miniTraj
	trimmed := strings.TrimLeft(string(data[:min(len(data), 64)]), " \t\r\n")
	if strings.HasPrefix(trimmed, "[") {
		if err := unmarshal(data, &t.Messages); err != nil {
			return nil, fmt.Errorf("%w (a JSON list, but not of chat messages: %v)", errNoMessages, err)
		}
	} else if err := unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%w (%v)", errNoMessages, err)
	}
	if t.Messages == nil {
		return nil, errNoMessages
	}
	marked := strings.HasPrefix(t.TrajectoryFormat, "mini-swe-agent") || t.Info.MiniVersion != ""
	s := &Session{Format: FormatMiniSWE}
	seen, turn, assistants := 0, 0, 0
	texts := make([]string, len(t.Messages))
	for i := range t.Messages {
		texts[i] = t.Messages[i].text()
	}
	for i, m := range t.Messages {
		text := texts[i]
		if !m.reply() {
			seen += len(text)
			continue
		}
		assistants++
		turn++
		prefix := Tokens(seen)
		seen += len(text)
		for _, tc := range m.ToolCalls {
			seen += len(tc.Function.Name) + len(argsText(tc.Function.Arguments))
		}
		next := t.Messages[i+1:]
		if len(next) > 0 && miniFormatError(next[0], texts[i+1]) {
			continue
		}
		for _, c := range miniCommands(m, text) {
			call := Call{Turn: turn, ID: c.id, Tool: "bash", Args: bashArgs(c.command), Prefix: prefix}
			if k, ok := miniObservation(next, c.id); ok {
				call.Result = texts[i+1+k]
				call.IsError = miniFailed(next[k], call.Result)
				call.Truncated = miniCut(call.Result)
			}
			s.Calls = append(s.Calls, call)
		}
	}
	switch {
	case len(s.Calls) > 0:
		return s, nil
	case !marked:
		return nil, fmt.Errorf(`%w (chat messages, but no mini-swe-agent trajectory_format or info.mini_version, and none of the %d replies has a bash command)`, ErrUnrecognised, assistants)
	default:
		return nil, fmt.Errorf("refused: a mini-swe-agent trajectory (%s) in which none of the %d replies has a command to replay", cmpOr(t.TrajectoryFormat, "version "+t.Info.MiniVersion), assistants)
	}
}

// miniCommand is one command of an assistant message, with the id of the
// tool call that carried it, if any.
type miniCommand struct{ command, id string }

// miniCommands returns the commands mini-swe-agent ran for one assistant
// message whose text is text.
func miniCommands(m miniMessage, text string) []miniCommand {
	var out []miniCommand
	for _, tc := range m.ToolCalls {
		if tc.Function.Name != "bash" {
			continue // rejected by mini-swe-agent: unknown tool
		}
		args := argsText(tc.Function.Arguments)
		var a struct {
			Command jsontext.Value `json:"command"`
		}
		if unmarshal(args, &a) != nil {
			continue
		}
		if cmd, ok := stringValue(a.Command); ok {
			out = append(out, miniCommand{cmd, tc.ID})
		}
	}
	if len(m.ToolCalls) > 0 {
		return out
	}
	for _, a := range m.Extra.Actions {
		if cmd, ok := stringValue(a.Command); ok {
			out = append(out, miniCommand{cmd, a.ToolCallID})
		}
	}
	if len(m.Extra.Actions) > 0 {
		return out
	}
	blocks := fenced(text, "mswea_bash_command")
	if len(blocks) == 0 {
		blocks = fenced(text, "bash")
	}
	if len(blocks) != 1 {
		return nil // a format error: mini-swe-agent ran nothing
	}
	return []miniCommand{{command: strings.TrimSpace(blocks[0])}}
}

// fenced returns the bodies of the code blocks of text fenced as
// "```lang": the fence, blank space holding at least one line break, the
// body from the line after it, up to the next line starting with ```.
func fenced(text, lang string) []string {
	var out []string
	open := "```" + lang
	for {
		i := strings.Index(text, open)
		if i < 0 {
			return out
		}
		text = text[i+len(open):]
		ws := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
		nl := strings.LastIndexByte(text[:ws], '\n')
		if nl < 0 {
			continue // "```bash2", or a command on the fence line
		}
		body := text[nl+1:]
		end := strings.Index(body, "\n```")
		if end < 0 {
			return out
		}
		out = append(out, body[:end])
		text = body[end+4:]
	}
}

// reply reports whether m is a model reply: an assistant message, or a
// Responses API response object.
func (m *miniMessage) reply() bool { return m.Role == "assistant" || m.Object == "response" }

// text is the text of a message as the model sees it: its content; for a
// response object the text of its output messages and its function calls;
// for a function_call_output item its output.
func (m *miniMessage) text() string {
	switch {
	case m.Object == "response":
		var items []struct {
			Type      string         `json:"type"`
			Content   jsontext.Value `json:"content"`
			Name      string         `json:"name"`
			Arguments jsontext.Value `json:"arguments"`
		}
		if unmarshal(m.Output, &items) != nil {
			return ""
		}
		var b strings.Builder
		for _, it := range items {
			switch it.Type {
			case "message":
				b.WriteString(miniText(it.Content))
			case "function_call":
				b.WriteString(it.Name)
				b.Write(argsText(it.Arguments))
			}
		}
		return b.String()
	case m.Type == "function_call_output":
		return miniText(m.Output)
	}
	if m.Content.str {
		return m.Content.text
	}
	return miniText(m.Content.raw)
}

// miniText is the text of a content value: a string, or the text of the
// parts of a list (text, input_text and output_text parts alike); null (a
// reply that is only tool calls) is no text.
func miniText(raw jsontext.Value) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] != '[' {
		return contentText(raw)
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if unmarshal(raw, &parts) != nil {
		return contentText(raw)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		} else {
			b.WriteString("[" + p.Type + "]")
		}
	}
	return b.String()
}

// argsText is the text of a tool call's arguments: OpenAI gives them as a
// JSON string holding the object, some providers as the object itself.
func argsText(raw jsontext.Value) []byte {
	if s, ok := stringValue(raw); ok {
		return []byte(s)
	}
	return raw
}

// miniObservation finds, as an index into next, the message that reports
// the result of a command:
// the "tool" message or "function_call_output" item with the call's id, or
// else the first message after the reply when it is not another reply.
func miniObservation(next []miniMessage, id string) (int, bool) {
	if id != "" {
		for k, m := range next {
			if m.reply() {
				break
			}
			if m.Role == "tool" && m.ToolCallID == id || m.Type == "function_call_output" && m.CallID == id {
				return k, true
			}
		}
	}
	if len(next) > 0 && (next[0].Role == "user" || id == "" && (next[0].Role == "tool" || next[0].Type == "function_call_output")) {
		return 0, true
	}
	return 0, false
}

// miniFormatError reports whether m is mini-swe-agent's answer to a reply
// it could not parse.
func miniFormatError(m miniMessage, text string) bool {
	if m.Extra.InterruptType == "FormatError" {
		return true
	}
	if m.Role != "user" {
		return false
	}
	head := text
	if len(head) > 300 {
		head = head[:300]
	}
	return strings.Contains(head, "provide EXACTLY ONE action") || strings.Contains(head, "Please always provide EXACTLY ONE")
}

// miniFailed reports whether an observation says its command failed: a
// non-zero return code (in the text or in extra), or a timeout.
func miniFailed(m miniMessage, text string) bool {
	if sub := miniReturnCode.FindStringSubmatch(text); sub != nil {
		return sub[1] != "0"
	}
	if rc := strings.TrimSpace(string(m.Extra.Returncode)); rc != "" && rc != "null" {
		n, err := strconv.Atoi(rc)
		return err != nil || n != 0
	}
	head := text
	if len(head) > 400 {
		head = head[:400]
	}
	return strings.Contains(head, "timed out and has been killed")
}

// bashArgs is the arguments object of a bash call.
func bashArgs(command string) []byte {
	b, _ := jsontext.AppendQuote([]byte(`{"command":`), command)
	return append(b, '}')
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// miniCut reports whether mini-swe-agent cut an output that rein's output
// limit would have cut too: an "N characters elided" note with more than
// tool.DefaultMaxChars characters in all.
func miniCut(text string) bool {
	i := strings.Index(text, "<elided_chars>")
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(text[i+len("<elided_chars>"):], " \t\r\n")
	n, err := strconv.Atoi(rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))])
	return err == nil && len(text)+n > tool.DefaultMaxChars
}
