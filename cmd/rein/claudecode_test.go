package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeCodeBin returns the Claude Code program of interop/testdata/npm, or
// skips when REIN_PEERS is not set (.ci/run sets it and installs it).
func claudeCodeBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("REIN_CLAUDE_CODE")
	if bin == "" {
		bin, _ = filepath.Abs(filepath.Join("..", "..", "interop", "testdata", "npm", "node_modules", ".bin", "claude"))
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("REIN_PEERS") == "1" {
			t.Fatalf("REIN_PEERS=1 but Claude Code is not installed at %s: run npm ci in interop/testdata/npm", bin)
		}
		t.Skip("Claude Code is not installed (interop/testdata/npm); .ci/run installs it and sets REIN_PEERS=1")
	}
	return bin
}

// toolThenText is a Messages API server for both programs: the first
// request that offers a shell tool gets a call of it (`echo hi`), every
// other request the text DONE. Usage is fixed so both can be compared.
func toolThenText(w http.ResponseWriter, r *http.Request) {
	req, ok := readMessagesRequest(w, r)
	if !ok {
		return
	}
	shell := ""
	for _, t := range req.Tools {
		if t.Name == "Bash" || t.Name == "bash" {
			shell = t.Name
		}
	}
	answered := false
	for _, m := range req.Messages {
		if strings.Contains(string(m.Content), `"tool_result"`) {
			answered = true
		}
	}
	if !req.Stream {
		fmt.Fprintf(w, `{"id":"msg_x","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`, req.Model)
		return
	}
	command := ""
	if shell != "" && !answered {
		command = "echo hi"
	}
	streamShellOrText(w, req.Model, shell, command)
}

// streamShellOrText streams a Messages API reply: a call of the shell
// tool running command, or, when command is "", the text DONE.
func streamShellOrText(w http.ResponseWriter, model, shell, command string) {
	w.Header().Set("content-type", "text/event-stream")
	send := func(event, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data) }
	send("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"`+model+`","content":[],"stop_reason":null,"usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":5,"cache_creation_input_tokens":7}}}`)
	stop := "end_turn"
	if command != "" {
		stop = "tool_use"
		input, _ := json.Marshal(map[string]string{"command": command})
		delta, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "input_json_delta", "partial_json": string(input)}})
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01","name":"`+shell+`","input":{}}}`)
		send("content_block_delta", string(delta))
	} else {
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"DONE"}}`)
	}
	send("content_block_stop", `{"type":"content_block_stop","index":0}`)
	send("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`"},"usage":{"output_tokens":20}}`)
	send("message_stop", `{"type":"message_stop"}`)
}

// runBoth runs the same prompt through the real Claude Code and rein
// against one mock server, with the same format flag, and returns what
// each printed on standard output.
func runBoth(t *testing.T, format string) (claude, rein string) {
	bin := claudeCodeBin(t)
	srv := httptest.NewServer(http.HandlerFunc(toolThenText))
	defer srv.Close()
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{ws: map[string]any{"hasTrustDialogAccepted": true}}})
	os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600)
	args := []string{"-p", "run it", "--output-format", format, "--allowedTools", "Bash(echo:*)"}
	if format == "stream-json" {
		args = append(args, "--verbose")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude %v: %v\n%s", args, err, out)
	}
	vars := map[string]string{"HOME": home, "ANTHROPIC_API_KEY": "sk-ant-test", "XDG_CONFIG_HOME": t.TempDir()}
	code, rout, rerr := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
		append(args, "-C", ws, "--model", "anthropic/claude-sonnet-5-5", "--base-url", srv.URL)...)
	if code != 0 {
		t.Fatalf("rein %v: exit %d\n%s\n%s", args, code, rout, rerr)
	}
	return string(out), rout
}

// TestClaudeCodeJSONOutput: a script reading `claude -p --output-format
// json` finds the same fields with the same values in rein's output.
func TestClaudeCodeJSONOutput(t *testing.T) {
	theirs, ours := runBoth(t, "json")
	var c, r map[string]any
	if err := json.Unmarshal([]byte(theirs), &c); err != nil {
		t.Fatalf("claude: %v\n%s", err, theirs)
	}
	if err := json.Unmarshal([]byte(ours), &r); err != nil {
		t.Fatalf("rein: %v\n%s", err, ours)
	}
	for _, k := range []string{"type", "subtype", "is_error", "result", "num_turns", "stop_reason"} {
		if fmt.Sprint(c[k]) != fmt.Sprint(r[k]) {
			t.Errorf("%s: claude %v, rein %v", k, c[k], r[k])
		}
	}
	cu, ru := c["usage"].(map[string]any), r["usage"].(map[string]any)
	for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"} {
		if fmt.Sprint(cu[k]) != fmt.Sprint(ru[k]) {
			t.Errorf("usage.%s: claude %v, rein %v", k, cu[k], ru[k])
		}
	}
	for _, k := range []string{"session_id", "duration_ms", "duration_api_ms", "total_cost_usd", "permission_denials", "uuid"} {
		if _, ok := r[k]; !ok {
			t.Errorf("rein's result lacks %s", k)
		} else if fmt.Sprintf("%T", c[k]) != fmt.Sprintf("%T", r[k]) {
			t.Errorf("%s: claude's is %T, rein's %T", k, c[k], r[k])
		}
	}
}

// streamLine is what the comparison keeps of a stream-json line.
func streamSummary(t *testing.T, who, out string) []string {
	t.Helper()
	var got []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			Result  string `json:"result"`
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Type      string          `json:"type"`
					Text      string          `json:"text"`
					Name      string          `json:"name"`
					Input     json.RawMessage `json:"input"`
					Content   any             `json:"content"`
					IsError   bool            `json:"is_error"`
					ToolUseID string          `json:"tool_use_id"`
				} `json:"content"`
			} `json:"message"`
			SessionID     string `json:"session_id"`
			ToolUseResult *struct {
				Stdout      string `json:"stdout"`
				Interrupted bool   `json:"interrupted"`
			} `json:"tool_use_result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: a line is not JSON: %v\n%s", who, err, sc.Text())
		}
		if l.SessionID == "" {
			t.Errorf("%s: a %s line has no session_id", who, l.Type)
		}
		s := l.Type + "/" + l.Subtype
		for _, c := range l.Message.Content {
			switch c.Type {
			case "text":
				s += " text:" + c.Text
			case "tool_use":
				var in struct {
					Command string `json:"command"`
				}
				json.Unmarshal(c.Input, &in)
				s += " tool_use:" + c.Name + ":" + in.Command
			case "tool_result":
				// The content is what the model saw: rein adds its
				// status line ("exit code: 0") after the output.
				s += fmt.Sprintf(" tool_result:%v", c.IsError)
				if first, _, _ := strings.Cut(fmt.Sprint(c.Content), "\n"); first != "hi" {
					s += " content:" + fmt.Sprint(c.Content)
				}
			}
		}
		if r := l.ToolUseResult; r != nil {
			s += fmt.Sprintf(" stdout:%q interrupted:%v", r.Stdout, r.Interrupted)
		}
		if l.Type == "result" {
			s += " result:" + l.Result
		}
		got = append(got, s)
	}
	return got
}

// TestClaudeCodeStreamJSON: the stream-json lines have Claude Code's
// types, in its order, with the same tool call, tool result and answer.
func TestClaudeCodeStreamJSON(t *testing.T) {
	theirs, ours := runBoth(t, "stream-json")
	c, r := streamSummary(t, "claude", theirs), streamSummary(t, "rein", ours)
	if strings.Join(c, "\n") != strings.Join(r, "\n") {
		t.Fatalf("stream-json differs:\nclaude:\n%s\nrein:\n%s", strings.Join(c, "\n"), strings.Join(r, "\n"))
	}
}
