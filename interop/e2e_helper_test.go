package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
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

// The end-to-end tests run the real programs whose formats this package
// reads and writes, installed by .ci/run into testdata/npm (the lock file
// pins them). They are slow, so they run when REIN_INTEROP_E2E=1, as
// .ci/run sets it; with it set, a missing program fails the test.
func program(t *testing.T, name string) string {
	t.Helper()
	if os.Getenv("REIN_INTEROP_E2E") != "1" {
		t.Skip("set REIN_INTEROP_E2E=1 to run the real programs (.ci/run installs them in interop/testdata/npm)")
	}
	p, err := filepath.Abs(filepath.Join("testdata", "npm", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed: run (cd interop/testdata/npm && npm ci): %v", name, err)
	}
	return p
}

// sandboxEnv is an environment for a program under test: its home and
// config directories in dir, no proxies, nothing of the caller's but
// PATH.
func sandboxEnv(dir string, extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, ".local", "share"), "XDG_CACHE_HOME=" + filepath.Join(dir, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(dir, ".local", "state"), "TERM=dumb", "NO_COLOR=1", "CI=1",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
	return append(env, extra...)
}

// run runs a program with a bounded time, returning its output.
func run(t *testing.T, dir string, env []string, stdin string, name string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), err, clipOut(out.String()), clipOut(errb.String()))
	}
	return out.String(), errb.String()
}

func clipOut(s string) string {
	if len(s) > 6000 {
		return s[:3000] + "\n…\n" + s[len(s)-3000:]
	}
	return s
}

// mockModel is a loopback model server (OpenAI chat completions and
// Anthropic messages, streamed) replying from a script: reply picks the
// next reply from the request. It records every request body.
type mockModel struct {
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  [][]byte
	reply func(body []byte) mockReply
}

// mockReply is one model turn: text, or one tool call.
type mockReply struct {
	Text     string
	Tool     string
	ToolArgs string
}

func newMockModel(t *testing.T, reply func(body []byte) mockReply) *mockModel {
	m := &mockModel{reply: reply}
	m.srv = httptest.NewUnstartedServer(http.HandlerFunc(m.serve))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.srv.Listener = l
	m.srv.Start()
	t.Cleanup(m.srv.Close)
	return m
}

func (m *mockModel) requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.reqs...)
}

func (m *mockModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens":100}`)
		return
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		m.record(body)
		m.openAI(w, m.reply(body))
	case strings.HasSuffix(r.URL.Path, "/responses"):
		m.record(body)
		m.responses(w, m.reply(body))
	case strings.HasSuffix(r.URL.Path, "/messages"):
		m.record(body)
		var req struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		m.anthropic(w, m.reply(body), req.Stream)
	default:
		http.NotFound(w, r)
	}
}

func (m *mockModel) record(body []byte) {
	m.mu.Lock()
	m.reqs = append(m.reqs, body)
	m.mu.Unlock()
}

func sse(w io.Writer, event string, v any) {
	b, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

func (m *mockModel) openAI(w http.ResponseWriter, rep mockReply) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "mock-1",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	finish := "stop"
	if rep.Tool != "" {
		sse(w, "", chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": rep.Tool, "arguments": rep.ToolArgs}}}}, nil))
		finish = "tool_calls"
	} else {
		sse(w, "", chunk(map[string]any{"role": "assistant", "content": rep.Text}, nil))
	}
	last := chunk(map[string]any{}, finish)
	last["usage"] = map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	sse(w, "", last)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (m *mockModel) anthropic(w http.ResponseWriter, rep mockReply, stream bool) {
	block := map[string]any{"type": "text", "text": rep.Text}
	stop := "end_turn"
	if rep.Tool != "" {
		block = map[string]any{"type": "tool_use", "id": "toolu_mock1", "name": rep.Tool, "input": json.RawMessage(rep.ToolArgs)}
		stop = "tool_use"
	}
	usage := map[string]int{"input_tokens": 100, "output_tokens": 10}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "msg_mock", "type": "message", "role": "assistant", "model": "claude-mock",
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_mock", "type": "message", "role": "assistant",
		"model": "claude-mock", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 100, "output_tokens": 1}}})
	if rep.Tool != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_mock1", "name": rep.Tool, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": rep.ToolArgs}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": rep.Text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 10}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// rpcLines sends commands to a JSON-lines program and returns the
// response lines, reading until want responses have come.
func rpcSession(t *testing.T, dir string, env []string, want int, commands []string, name string, args ...string) []string {
	return rpcSessionMatch(t, dir, env, want, `"type":"response"`, commands, name, args...)
}

// rpcSessionMatch is rpcSession counting the lines that contain match.
func rpcSessionMatch(t *testing.T, dir string, env []string, want int, match string, commands []string, name string, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		fmt.Fprintln(in, c)
	}
	var lines []string
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for len(lines) < want && sc.Scan() {
		if l := sc.Text(); strings.Contains(l, match) {
			lines = append(lines, l)
		}
	}
	in.Close()
	_ = cmd.Wait()
	if len(lines) < want {
		t.Fatalf("%s: %d of %d responses; stderr:\n%s", filepath.Base(name), len(lines), want, clipOut(errb.String()))
	}
	return lines
}

// responses answers an OpenAI Responses API request, streamed.
func (m *mockModel) responses(w http.ResponseWriter, rep mockReply) {
	w.Header().Set("Content-Type", "text/event-stream")
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_mock", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}
	if rep.Tool != "" {
		item = map[string]any{"type": "function_call", "id": "fc_mock", "status": "completed", "name": rep.Tool, "arguments": rep.ToolArgs, "call_id": "call_mock1"}
	}
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_mock"}})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_mock",
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens": 10,
			"output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 110}}})
}
