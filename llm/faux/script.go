package faux

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/reinhq/rein/llm"
)

// scriptLine is one model reply in a JSONL script. Every field is
// optional; a reply with tool calls stops with tool_use, otherwise stop.
type scriptLine struct {
	Thinking  string `json:"thinking"`
	Text      string `json:"text"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
	// Error makes the reply fail, to rehearse error handling.
	Error *struct {
		Code    llm.ErrorCode `json:"code"`
		Message string        `json:"message"`
	} `json:"error"`
}

// LoadScriptFile reads the replies of the JSONL script file at path (see
// LoadScript); errors name the file, and the line when one is malformed.
func LoadScriptFile(path string) ([]Reply, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadScript(f, path)
}

// LoadScript reads replies from JSONL, one reply per line:
//
//	{"thinking": "…", "text": "…", "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}
//
// Blank lines and lines starting with # or // are skipped. A line may also
// be {"error": {"code": "rate_limit", "message": "…"}} to make that reply
// fail. name is used in error messages, which give the line number.
func LoadScript(r io.Reader, name string) ([]Reply, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var replies []Reply
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		var sl scriptLine
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sl); err != nil {
			return nil, fmt.Errorf("%s:%d: %v (line: %s); expected {\"thinking\": \"…\", \"text\": \"…\", \"tool_calls\": [{\"name\": \"…\", \"arguments\": {…}}]}", name, lineNo, err, trimmed(string(line)))
		}
		if sl.Error != nil {
			code := sl.Error.Code
			if code == "" {
				code = llm.CodeUnknown
			}
			replies = append(replies, Fail(&llm.Error{Code: code, Message: sl.Error.Message, Provider: "faux"}))
			continue
		}
		m := &llm.Message{Role: llm.RoleAssistant}
		if sl.Thinking != "" {
			m.Content = append(m.Content, llm.Thinking(sl.Thinking, ""))
		}
		if sl.Text != "" {
			m.Content = append(m.Content, llm.Text(sl.Text))
		}
		for i, tc := range sl.ToolCalls {
			if tc.Name == "" {
				return nil, fmt.Errorf("%s:%d: tool call %d has no name", name, lineNo, i+1)
			}
			args := tc.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			var compact bytes.Buffer
			if json.Compact(&compact, args) == nil {
				args = compact.Bytes()
			}
			m.Content = append(m.Content, llm.ToolCall(tc.ID, tc.Name, args))
		}
		replies = append(replies, Reply{Message: m})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return replies, nil
}
