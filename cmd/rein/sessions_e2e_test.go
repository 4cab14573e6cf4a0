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

// A session Claude Code wrote against a loopback mock model imports into
// rein (sessions import --latest finds it) and continues with rein -c
// against the same mock: the request rein sends carries Claude Code's
// conversation, its Read call as rein's read. Runs with
// REIN_INTEROP_E2E=1 (set by .ci/run, which installs Claude Code).
func TestClaudeCodeSessionContinuesInRein(t *testing.T) {
	if os.Getenv("REIN_INTEROP_E2E") != "1" {
		t.Skip("set REIN_INTEROP_E2E=1 to run Claude Code (.ci/run installs it in interop/testdata/npm)")
	}
	claude, _ := filepath.Abs("../../interop/testdata/npm/node_modules/.bin/claude")
	if _, err := os.Stat(claude); err != nil {
		t.Fatalf("Claude Code is not installed: %v", err)
	}
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			io.WriteString(w, `{"input_tokens":100}`)
			return
		}
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		body := string(b)
		var reply string
		switch {
		case strings.Contains(body, `"tool_result"`) && !strings.Contains(body, "one more thing"):
			reply = `{"type":"text","text":"DONE: the file says hello."}`
		case strings.Contains(body, "read hello.txt") && !strings.Contains(body, "one more thing"):
			reply = `{"type":"tool_use","id":"toolu_cc1","name":"Read","input":{"file_path":"` + filepath.Join(r.Header.Get("X-Ws"), "hello.txt") + `"}}`
		default:
			reply = `{"type":"text","text":"Continued in rein."}`
		}
		anthropicReply(w, reply, strings.Contains(body, `"stream":true`))
	}))
	defer srv.Close()
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hello from the workspace\n"), 0o600)
	// The mock needs the file's absolute path for the Read call.
	srvURL := srv.URL
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, srvURL+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		req.Header.Set("X-Ws", ws)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	cfg := filepath.Join(home, ".claude")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "--model", "claude-mock", "read hello.txt")
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CLAUDE_CONFIG_DIR=" + cfg, "ANTHROPIC_BASE_URL=" + proxy.URL,
		"ANTHROPIC_API_KEY=sk-ant-test-dummy", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "TERM=dumb", "CI=1", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "DONE: the file says hello.") {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "CLAUDE_CONFIG_DIR":
			return cfg
		}
		return ""
	}
	var o, errOut strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &o, stderr: &errOut, getenv: getenv}
	if code := execute(context.Background(), e, []string{"sessions", "import", "--latest", "--from", "claude", "-C", ws}); code != 0 {
		t.Fatalf("import --latest: %d %s %s", code, o.String(), errOut.String())
	}
	if !strings.Contains(o.String(), "(claude 2.1.328") {
		t.Fatalf("import: %s", o.String())
	}
	mu.Lock()
	before := len(bodies)
	mu.Unlock()
	code, got, errs := runCLI(t, "", "-c", "-C", ws, "--model", "anthropic/claude-mock", "--base-url", srv.URL, "-p", "one more thing")
	if code != 0 || !strings.Contains(got, "Continued in rein.") {
		t.Fatalf("rein -c: %d %q %q", code, got, errs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != before+1 {
		t.Fatalf("%d requests from rein", len(bodies)-before)
	}
	var req struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(bodies[before]), &req); err != nil {
		t.Fatal(err)
	}
	sent := bodies[before]
	for _, want := range []string{"read hello.txt", `"name":"read"`, `"id":"toolu_cc1"`, "hello from the workspace", "DONE: the file says hello.", "one more thing"} {
		if !strings.Contains(sent, want) {
			t.Fatalf("rein's request lacks %s:\n%s", want, sent)
		}
	}
	roles := []string{}
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	if fmt.Sprint(roles) != "[user assistant user assistant user]" {
		t.Fatalf("roles %v", roles)
	}
}

// anthropicReply answers an Anthropic messages request with one content
// block, streamed or not.
func anthropicReply(w http.ResponseWriter, block string, stream bool) {
	stop := "end_turn"
	if strings.Contains(block, `"tool_use"`) {
		stop = "tool_use"
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_m","type":"message","role":"assistant","model":"claude-mock","content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`, block, stop)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	var start, delta string
	var b map[string]any
	_ = json.Unmarshal([]byte(block), &b)
	if b["type"] == "tool_use" {
		input, _ := json.Marshal(b["input"])
		start = fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":{}}`, b["id"], b["name"])
		pj, _ := json.Marshal(string(input))
		delta = fmt.Sprintf(`{"type":"input_json_delta","partial_json":%s}`, pj)
	} else {
		start = `{"type":"text","text":""}`
		tj, _ := json.Marshal(b["text"])
		delta = fmt.Sprintf(`{"type":"text_delta","text":%s}`, tj)
	}
	fmt.Fprintf(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-mock\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n")
	fmt.Fprintf(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":%s}\n\n", start)
	fmt.Fprintf(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":%s}\n\n", delta)
	fmt.Fprintf(w, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	fmt.Fprintf(w, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":%q},\"usage\":{\"output_tokens\":5}}\n\n", stop)
	fmt.Fprintf(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
}
