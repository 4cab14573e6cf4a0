package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Hand-written two-turn conversations in each wire protocol: the model
// lists the workspace with ls, then answers. They drive the whole command
// (flags, catalog, wire client, loop, tools) against a local server.
var wireTurns = map[string][2]string{
	"openai": {
		`data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":""}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`,
		`data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The workspace holds "},"finish_reason":null}]}

data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"notes.txt."},"finish_reason":"stop"}]}

data: [DONE]

`},
	"anthropic": {
		`event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"ls","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}

event: message_stop
data: {"type":"message_stop"}

`,
		`event: message_start
data: {"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":20,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The workspace holds notes.txt."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}

event: message_stop
data: {"type":"message_stop"}

`},
	"gemini": {
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"ls\",\"args\":{}}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":10,\"candidatesTokenCount\":2,\"totalTokenCount\":12}}\r\n\r\n",
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"The workspace holds notes.txt.\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":20,\"candidatesTokenCount\":7,\"totalTokenCount\":27}}\r\n\r\n",
	},
}

func TestRunAgainstLocalServers(t *testing.T) {
	tests := []struct {
		provider, model, path, base string
	}{
		{"openai", "openai/my-local-model", "/v1/chat/completions", "/v1"},
		{"anthropic", "anthropic/claude-sonnet-5-5", "/v1/messages", ""},
		{"gemini", "gemini/gemini-3.8-flash", "/models/gemini-3.8-flash:streamGenerateContent", ""},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tt.path {
					http.Error(w, "unexpected path "+r.URL.Path, http.StatusNotFound)
					return
				}
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				n := len(bodies)
				bodies = append(bodies, string(b))
				mu.Unlock()
				if n > 1 {
					http.Error(w, "too many requests", http.StatusBadRequest)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, wireTurns[tt.provider][n])
			}))
			defer srv.Close()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
			code, out, errOut := runCLI(t, "", "run", "--model", tt.model, "--base-url", srv.URL+tt.base, "-C", dir, "what is here?")
			if code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
			}
			if !strings.Contains(out, "The workspace holds notes.txt.") || !strings.Contains(errOut, "→ ls") {
				t.Fatalf("stdout %q\nstderr %q", out, errOut)
			}
			if len(bodies) != 2 || !strings.Contains(bodies[1], "notes.txt") {
				t.Fatalf("the tool result did not reach the second request: %v", bodies)
			}
		})
	}
}

func TestRunReportsProviderErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-abc…","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	code, _, errOut := runCLI(t, "", "run", "--model", "openai/x", "--base-url", srv.URL+"/v1", "-C", t.TempDir(), "hi")
	if code != 1 || !strings.Contains(errOut, "auth") || !strings.Contains(errOut, "Incorrect API key") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestModelsCommand(t *testing.T) {
	ws := t.TempDir()
	code, out, _ := runCLI(t, "", "models", "-C", ws, "anthropic")
	if code != 0 || !strings.Contains(out, "anthropic/claude-sonnet-5-5") || strings.Contains(out, "openai/") {
		t.Fatalf("models anthropic: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "", "models", "-C", ws, "ollama")
	if code != 0 || !strings.Contains(out, "--model ollama/<id>") {
		t.Fatalf("models ollama: %d %q", code, out)
	}
	code, _, errOut := runCLI(t, "", "models", "-C", ws, "nosuch")
	if code != 2 || !strings.Contains(errOut, `unknown provider "nosuch"`) || !strings.Contains(errOut, "anthropic") {
		t.Fatalf("models nosuch: %d %q", code, errOut)
	}
}
