package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// permCall is one tool call of the permission comparison: what the model
// asks for in Claude Code's words and in rein's, and how to tell from the
// workspace and the result whether it ran.
type permCall struct {
	name   string
	claude func(ws, out, url string) (string, map[string]any)
	rein   func(ws, out, url string) (string, map[string]any)
	ran    func(ws, out, result string) bool
}

func bashCall(cmd func(ws, out, url string) string) (func(ws, out, url string) (string, map[string]any), func(ws, out, url string) (string, map[string]any)) {
	return func(ws, out, url string) (string, map[string]any) {
			return "Bash", map[string]any{"command": cmd(ws, out, url)}
		}, func(ws, out, url string) (string, map[string]any) {
			return "bash", map[string]any{"command": cmd(ws, out, url)}
		}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func fileHas(p, s string) bool { b, _ := os.ReadFile(p); return strings.Contains(string(b), s) }

// permCalls are the calls compared in every mode.
func permCalls() []permCall {
	var calls []permCall
	pathCall := func(name, tool string, file func(ws, out string) string, extra map[string]any, reinExtra map[string]any, ran func(ws, out, result string) bool) {
		calls = append(calls, permCall{name: name,
			claude: func(ws, out, url string) (string, map[string]any) {
				in := map[string]any{"file_path": file(ws, out)}
				for k, v := range extra {
					in[k] = v
				}
				return tool, in
			},
			rein: func(ws, out, url string) (string, map[string]any) {
				in := map[string]any{"path": file(ws, out)}
				for k, v := range reinExtra {
					in[k] = v
				}
				return strings.ToLower(tool), in
			},
			ran: ran})
	}
	inWS := func(f string) func(ws, out string) string {
		return func(ws, _ string) string { return filepath.Join(ws, f) }
	}
	outWS := func(f string) func(ws, out string) string {
		return func(_, out string) string { return filepath.Join(out, f) }
	}
	pathCall("Read inside", "Read", inWS("a.txt"), nil, nil, func(_, _, r string) bool { return strings.Contains(r, "CONTENT-A") })
	pathCall("Read outside", "Read", outWS("b.txt"), nil, nil, func(_, _, r string) bool { return strings.Contains(r, "CONTENT-B") })
	pathCall("Write inside", "Write", inWS("new.txt"), map[string]any{"content": "W\n"}, map[string]any{"content": "W\n"},
		func(ws, _, _ string) bool { return exists(filepath.Join(ws, "new.txt")) })
	pathCall("Write outside", "Write", outWS("new.txt"), map[string]any{"content": "W\n"}, map[string]any{"content": "W\n"},
		func(_, out, _ string) bool { return exists(filepath.Join(out, "new.txt")) })
	pathCall("Edit inside", "Edit", inWS("e.txt"), map[string]any{"old_string": "OLD", "new_string": "NEW"},
		map[string]any{"edits": []map[string]string{{"old_text": "OLD", "new_text": "NEW"}}},
		func(ws, _, _ string) bool { return fileHas(filepath.Join(ws, "e.txt"), "NEW") })
	pathCall("Edit outside", "Edit", outWS("e.txt"), map[string]any{"old_string": "OLD", "new_string": "NEW"},
		map[string]any{"edits": []map[string]string{{"old_text": "OLD", "new_text": "NEW"}}},
		func(_, out, _ string) bool { return fileHas(filepath.Join(out, "e.txt"), "NEW") })
	bash := func(name string, cmd func(ws, out, url string) string, ran func(ws, out, result string) bool) {
		c, r := bashCall(cmd)
		calls = append(calls, permCall{name: name, claude: c, rein: r, ran: ran})
	}
	lit := func(s string) func(ws, out, url string) string {
		return func(string, string, string) string { return s }
	}
	bash("Bash ls", lit("ls"), func(_, _, r string) bool { return strings.Contains(r, "a.txt") })
	bash("Bash git status", lit("git status"), func(_, _, r string) bool { return strings.Contains(r, "branch") })
	bash("Bash cat inside", lit("cat a.txt"), func(_, _, r string) bool { return strings.Contains(r, "CONTENT-A") })
	bash("Bash cat outside", func(_, out, _ string) string { return "cat " + filepath.Join(out, "b.txt") },
		func(_, _, r string) bool { return strings.Contains(r, "CONTENT-B") })
	bash("Bash touch inside", lit("touch t.txt"), func(ws, _, _ string) bool { return exists(filepath.Join(ws, "t.txt")) })
	bash("Bash touch outside", func(_, out, _ string) string { return "touch " + filepath.Join(out, "t.txt") },
		func(_, out, _ string) bool { return exists(filepath.Join(out, "t.txt")) })
	bash("Bash mkdir inside", lit("mkdir d"), func(ws, _, _ string) bool { return exists(filepath.Join(ws, "d")) })
	bash("Bash rm inside", lit("rm r.txt"), func(ws, _, _ string) bool { return !exists(filepath.Join(ws, "r.txt")) })
	bash("Bash rm outside", func(_, out, _ string) string { return "rm " + filepath.Join(out, "r.txt") },
		func(_, out, _ string) bool { return !exists(filepath.Join(out, "r.txt")) })
	bash("Bash curl", func(_, _, url string) string { return "curl -s " + url + "/ping" },
		func(_, _, r string) bool { return strings.Contains(r, "PONG") })
	return calls
}

// permLayout makes a workspace (a git repository) and a folder outside it
// with the files the calls use.
func permLayout(t *testing.T) (ws, out string) {
	ws, out = t.TempDir(), t.TempDir()
	if b, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, b)
	}
	for _, d := range []string{ws, out} {
		os.WriteFile(filepath.Join(d, "e.txt"), []byte("OLD\n"), 0o644)
		os.WriteFile(filepath.Join(d, "r.txt"), []byte("R\n"), 0o644)
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("CONTENT-A\n"), 0o644)
	os.WriteFile(filepath.Join(out, "b.txt"), []byte("CONTENT-B\n"), 0o644)
	return ws, out
}

// permServer is a Messages API server that answers the first request with
// one tool call of calls, each next request with the next call, and keeps
// the text of each result.
type permServer struct {
	calls   func(claude bool, n int) (string, map[string]any, bool)
	mu      sync.Mutex
	results map[string]string
}

func (p *permServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ping" {
		io.WriteString(w, "PONG")
		return
	}
	req, ok := readMessagesRequest(w, r)
	if !ok {
		return
	}
	if !req.Stream || len(req.Tools) == 0 {
		fmt.Fprintf(w, `{"id":"msg_x","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`, req.Model)
		return
	}
	claude := false
	for _, t := range req.Tools {
		claude = claude || t.Name == "Bash"
	}
	n := 0
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				n++
				p.mu.Lock()
				p.results[b.ToolUseID] = string(b.Content)
				p.mu.Unlock()
			}
		}
	}
	w.Header().Set("content-type", "text/event-stream")
	send := func(event, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data) }
	send("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"`+req.Model+`","content":[],"stop_reason":null,"usage":{"input_tokens":100,"output_tokens":1}}}`)
	stop := "end_turn"
	if name, input, ok := p.calls(claude, n); ok {
		stop = "tool_use"
		in, _ := json.Marshal(input)
		delta, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "input_json_delta", "partial_json": string(in)}})
		send("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_%02d","name":%q,"input":{}}}`, n, name))
		send("content_block_delta", string(delta))
	} else {
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"DONE"}}`)
	}
	send("content_block_stop", `{"type":"content_block_stop","index":0}`)
	send("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`"},"usage":{"output_tokens":20}}`)
	send("message_stop", `{"type":"message_stop"}`)
}

// runPermCalls runs calls one after the other through Claude Code (claude
// true) or rein in a fresh workspace, headless, with the permission mode
// flag mode ("" for none), and reports which ran.
func runPermCalls(t *testing.T, claude bool, mode string, calls []permCall) []bool {
	ws, out := permLayout(t)
	var url string
	srv := httptest.NewServer(&permServer{results: map[string]string{}})
	defer srv.Close()
	url = srv.URL
	ps := srv.Config.Handler.(*permServer)
	ps.calls = func(c bool, n int) (string, map[string]any, bool) {
		if n >= len(calls) {
			return "", nil, false
		}
		if c {
			name, in := calls[n].claude(ws, out, url)
			return name, in, true
		}
		name, in := calls[n].rein(ws, out, url)
		return name, in, true
	}
	home := t.TempDir()
	args := []string{"-p", "go"}
	if mode != "" {
		args = append(args, "--permission-mode", mode)
	}
	if claude {
		cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{ws: map[string]any{"hasTrustDialogAccepted": true}}})
		os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claudeCodeBin(t), args...)
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=sk-ant-test",
			"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			// bypassPermissions refuses to start as root unless told it
			// runs in a sandbox (CI runs as root).
			"IS_SANDBOX=1"}
		if b, err := cmd.CombinedOutput(); err != nil {
			// Claude Code exits 1 when its plan mode refused calls it
			// could not have checked; the calls' results still count.
			t.Logf("claude %v: %v\n%s", args, err, b)
		}
	} else {
		vars := map[string]string{"HOME": home, "ANTHROPIC_API_KEY": "sk-ant-test", "XDG_CONFIG_HOME": t.TempDir(), "PATH": os.Getenv("PATH")}
		code, o, e := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
			append(args, "-C", ws, "--model", "anthropic/claude-sonnet-5-5", "--base-url", url)...)
		if code != 0 {
			t.Fatalf("rein %v: exit %d\n%s\n%s", args, code, o, e)
		}
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ran := make([]bool, len(calls))
	for i, c := range calls {
		res, ok := ps.results[fmt.Sprintf("toolu_%02d", i)]
		if !ok {
			t.Errorf("%s: no result reached the model", c.name)
		}
		ran[i] = c.ran(ws, out, res)
		t.Logf("claude=%v mode=%q %s ran=%v: %.160s", claude, mode, c.name, ran[i], res)
	}
	return ran
}

// confined are the calls rein cannot make in any mode: its read, write
// and edit tools keep to the workspace and its bash runs in a sandbox
// that does not see the folder outside it. Where Claude Code ran one of
// them, rein not running it is that confinement, not a permission
// difference.
var confined = map[string]bool{"Read outside": true, "Write outside": true, "Edit outside": true,
	"Bash cat outside": true, "Bash touch outside": true, "Bash rm outside": true}

// TestClaudeCodePermissionModes runs the same tool calls through the real
// Claude Code and rein, headless, with no permission flag and with each
// of Claude Code's modes, and compares which calls ran.
func TestClaudeCodePermissionModes(t *testing.T) {
	claudeCodeBin(t)
	calls := permCalls()
	for _, mode := range []string{"", "default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"} {
		t.Run("mode="+mode, func(t *testing.T) {
			theirs := runPermCalls(t, true, mode, calls)
			ours := runPermCalls(t, false, mode, calls)
			for i, c := range calls {
				switch {
				case theirs[i] == ours[i]:
				case theirs[i] && confined[c.name]:
					t.Logf("%s: Claude Code ran it; rein's tools cannot reach outside the workspace", c.name)
				default:
					t.Errorf("%s: Claude Code ran=%v, rein ran=%v", c.name, theirs[i], ours[i])
				}
			}
		})
	}
}
