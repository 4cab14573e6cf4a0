package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

// replayed returns the assistant message rein builds from a recording,
// as the agent loop would store it and send it back on the next turn.
func replayed(t *testing.T, file string) llm.Message {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.SSE(replayBody(t, file), 0))
	msg, _, err := run(t, context.Background(), newClient(srv.URL, Options{}), userReq(sonnet, "x"))
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func weatherTool() llm.ToolSpec {
	return llm.ToolSpec{Name: "weather", Description: "Get weather information for a location",
		Parameters: json.RawMessage(`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`)}
}

func mathTools() []llm.ToolSpec {
	schema := json.RawMessage(`{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`)
	return []llm.ToolSpec{
		{Name: "add", Description: "Add two numbers", Parameters: schema},
		{Name: "multiply", Description: "Multiply two numbers", Parameters: schema},
	}
}

// compareOpts says which fields of a recorded request rein legitimately
// sends differently.
type compareOpts struct {
	// cache compares cache_control; otherwise it is removed on both sides,
	// because rein always places its breakpoints (system prompt and latest
	// user messages) while most recorded clients placed none.
	cache bool
	// budget compares thinking.budget_tokens; otherwise only the thinking
	// type is compared, because rein maps levels to fixed budgets and the
	// recording used one rein has no level for.
	budget bool
}

func TestRequestsMatchRecordings(t *testing.T) {
	sys := []llm.SystemPart{{Text: "You are a helpful assistant"}}
	mathSys := []llm.SystemPart{{Text: "You are a helpful assistant. Always use both add and multiply at the same time."}}
	weatherQ := "What's the weather in Florence,Italy?"
	thinkQ := "What's the weather in Florence, Italy?"
	zero := 0.0
	opus3 := llm.Model{ID: "claude-3-opus-20240229", Provider: "anthropic", API: llm.APIAnthropicMessages, MaxOutput: 4096}
	withID := func(id string) llm.Model { m := sonnet; m.ID = id; return m }

	tests := []struct {
		file string
		req  func(t *testing.T) *llm.Request
		opts compareOpts
	}{
		{"fantasy-sonnet4-text", func(*testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: sys, Messages: []llm.Message{llm.UserText("Say hi in Portuguese")}, MaxTokens: 4000}
		}, compareOpts{}},
		{"fantasy-sonnet4-cache-control", func(*testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: sys, Messages: []llm.Message{llm.UserText("Say hi in Portuguese")}, MaxTokens: 4000}
		}, compareOpts{cache: true}},
		{"fantasy-sonnet4-tool", func(*testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: sys, Messages: []llm.Message{llm.UserText(weatherQ)}, Tools: []llm.ToolSpec{weatherTool()}, MaxTokens: 4000}
		}, compareOpts{}},
		{"fantasy-sonnet4-tool-result-followup", func(t *testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: sys, Tools: []llm.ToolSpec{weatherTool()}, MaxTokens: 4000, Messages: []llm.Message{
				llm.UserText(weatherQ),
				replayed(t, "fantasy-sonnet4-tool.sse"),
				llm.ToolResult("toolu_01N2eM4V43kGCDkq2Lw7ChWQ", "weather", false, llm.Text("40 C")),
			}}
		}, compareOpts{}},
		{"fantasy-sonnet4-parallel-tools", func(*testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: mathSys, Messages: []llm.Message{llm.UserText("Add and multiply the number 2 and 3")}, Tools: mathTools(), MaxTokens: 4000}
		}, compareOpts{}},
		{"fantasy-sonnet4-parallel-tools-followup", func(t *testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: mathSys, Tools: mathTools(), MaxTokens: 4000, Messages: []llm.Message{
				llm.UserText("Add and multiply the number 2 and 3"),
				replayed(t, "fantasy-sonnet4-parallel-tools.sse"),
				llm.ToolResult("toolu_01UYxUYC2zRPY8wiutnF48eP", "add", false, llm.Text("5")),
				llm.ToolResult("toolu_01VaRx1jpWCvPhi7L4kywAcd", "multiply", false, llm.Text("6")),
			}}
		}, compareOpts{}},
		{"fantasy-sonnet4-thinking-tool", func(*testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: sys, Messages: []llm.Message{llm.UserText(thinkQ)}, Tools: []llm.ToolSpec{weatherTool()}, MaxTokens: 4096, Thinking: llm.ThinkingLow}
		}, compareOpts{}},
		{"fantasy-sonnet4-thinking-followup", func(t *testing.T) *llm.Request {
			return &llm.Request{Model: sonnet, System: sys, Tools: []llm.ToolSpec{weatherTool()}, MaxTokens: 4096, Thinking: llm.ThinkingLow, Messages: []llm.Message{
				llm.UserText(thinkQ),
				replayed(t, "fantasy-sonnet4-thinking-tool.sse"),
				llm.ToolResult("toolu_01Js4AMfx5qpTLhwTusnvT68", "weather", false, llm.Text("40 C")),
			}}
		}, compareOpts{}},
		{"fantasy-sonnet4-web-search", func(*testing.T) *llm.Request {
			// Server tools have no neutral spec; callers add them with Extra.
			return &llm.Request{Model: sonnet, System: sys, MaxTokens: 4000,
				Messages: []llm.Message{llm.UserText("What is the current population of Tokyo? Cite your source.")},
				Options:  llm.Options{Extra: map[string]json.RawMessage{"tools": json.RawMessage(`[{"name":"web_search","type":"web_search_20250305"}]`)}}}
		}, compareOpts{}},
		{"lcgo-opus3-text", func(*testing.T) *llm.Request {
			return &llm.Request{Model: opus3, Messages: []llm.Message{llm.UserText("Count from 1 to 5")}, MaxTokens: 100, Temperature: &zero}
		}, compareOpts{}},
		{"pai-sonnet4-thinking-text", func(*testing.T) *llm.Request {
			return &llm.Request{Model: withID("claude-sonnet-4-0"), Messages: []llm.Message{llm.UserText("How do I cross the street?")}, MaxTokens: 4096, Thinking: llm.ThinkingMinimal}
		}, compareOpts{budget: true}},
		{"pai-sonnet45-redacted-thinking", func(*testing.T) *llm.Request {
			return &llm.Request{Model: withID("claude-sonnet-4-5-20250929"), MaxTokens: 4096, Thinking: llm.ThinkingMinimal, Messages: []llm.Message{
				llm.UserText("ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB")}}
		}, compareOpts{budget: true}},
	}
	files, _ := filepath.Glob(filepath.Join(recorded, "*.request.json"))
	if len(files) != len(tests) {
		t.Errorf("%d recorded requests, %d tests", len(files), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE(readFile(t, tt.file+".sse"), 0))
			c := newClient(srv.URL, Options{})
			if _, _, err := run(t, context.Background(), c, tt.req(t)); err != nil {
				t.Fatal(err)
			}
			compareRequest(t, readFile(t, tt.file+".request.json"), srv.LastBody(t), tt.opts)
		})
	}
}

func compareRequest(t *testing.T, recordedBody, sent []byte, o compareOpts) {
	t.Helper()
	var want, got map[string]any
	if err := json.Unmarshal(recordedBody, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sent, &got); err != nil {
		t.Fatalf("rein sent invalid JSON: %v\n%s", err, sent)
	}
	normalise(want, got, o)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("request (-recorded +rein):\n%s\nrein sent: %s", d, sent)
	}
}

// normalise removes the differences that do not matter.
func normalise(want, got map[string]any, o compareOpts) {
	// tool_choice auto (parallel use allowed) is the API's default when
	// tools are given; rein does not send it.
	if tc, ok := want["tool_choice"].(map[string]any); ok && tc["type"] == "auto" && tc["disable_parallel_tool_use"] != true {
		delete(want, "tool_choice")
	}
	if !o.budget {
		for _, m := range []map[string]any{want, got} {
			if th, ok := m["thinking"].(map[string]any); ok {
				delete(th, "budget_tokens")
			}
		}
	}
	// A string content is shorthand for one text block.
	if msgs, ok := want["messages"].([]any); ok {
		for _, m := range msgs {
			mm := m.(map[string]any)
			if s, ok := mm["content"].(string); ok {
				mm["content"] = []any{map[string]any{"type": "text", "text": s}}
			}
		}
	}
	walk(got, func(obj map[string]any) {
		// rein sends back the fields the API put on a block it returned
		// (caller on tool_use); the recorded clients dropped them.
		if obj["type"] == "tool_use" {
			delete(obj, "caller")
		}
	})
	if !o.cache {
		walk(want, func(obj map[string]any) { delete(obj, "cache_control") })
		walk(got, func(obj map[string]any) { delete(obj, "cache_control") })
	}
}

func walk(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, x := range v {
			walk(x, f)
		}
	case []any:
		for _, x := range v {
			walk(x, f)
		}
	}
}

func TestHeadersAndEndpoint(t *testing.T) {
	for _, base := range []string{"", "/", "/v1", "/v1/", "/v1/messages"} {
		t.Run(base, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE(replayBody(t, "lcgo-opus3-text.sse"), 0))
			c := newClient(srv.URL+base, Options{
				APIKey:  func(context.Context) (string, error) { return "sk-from-options", nil },
				Headers: map[string]string{"X-Client": "opts", "X-Shared": "opts"},
			})
			model := sonnet
			model.Headers = map[string]string{"X-Model": "model", "X-Shared": "model"}
			req := userReq(model, "hi")
			req.Options.Headers = map[string]string{"X-Req": "req", "anthropic-beta": "b1"}
			if _, _, err := run(t, context.Background(), c, req); err != nil {
				t.Fatal(err)
			}
			if p := srv.Paths(); len(p) != 1 || p[0] != "/v1/messages" {
				t.Errorf("paths %q", p)
			}
			h := srv.LastHeader()
			want := map[string]string{
				"X-Api-Key": "sk-from-options", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json",
				"Accept": "text/event-stream", "X-Client": "opts", "X-Model": "model", "X-Shared": "model", "X-Req": "req", "Anthropic-Beta": "b1",
			}
			for k, v := range want {
				if got := h.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestRequestKeyAndBaseURLPrecedence(t *testing.T) {
	wrong := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	right := llmtest.NewServer(t, llmtest.SSE(replayBody(t, "lcgo-opus3-text.sse"), 0))
	calls := 0
	c := newClient(wrong.URL, Options{APIKey: func(context.Context) (string, error) { calls++; return "sk-from-options", nil }})
	model := sonnet
	model.BaseURL = right.URL + "/v1/"
	req := userReq(model, "hi")
	req.Options.APIKey = "sk-per-request"
	if _, _, err := run(t, context.Background(), c, req); err != nil {
		t.Fatal(err)
	}
	if got := right.LastHeader().Get("x-api-key"); got != "sk-per-request" {
		t.Errorf("x-api-key %q", got)
	}
	if calls != 0 {
		t.Errorf("the options' key source was called %d times although the request had a key", calls)
	}
	if len(wrong.Paths()) != 0 {
		t.Error("the options' base URL was used although the model had one")
	}
	// Without a per-request key, the source is asked on every request.
	req.Options.APIKey = ""
	for range 2 {
		if _, _, err := run(t, context.Background(), c, req); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 || right.LastHeader().Get("x-api-key") != "sk-from-options" {
		t.Errorf("key source called %d times, header %q", calls, right.LastHeader().Get("x-api-key"))
	}
}

func TestBaseURLNormalisation(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "https://api.anthropic.com/v1/messages",
		"http://h:1":                      "http://h:1/v1/messages",
		"http://h:1/":                     "http://h:1/v1/messages",
		"http://h:1/v1":                   "http://h:1/v1/messages",
		"http://h:1/v1/":                  "http://h:1/v1/messages",
		"http://h:1/proxy/anthropic/v1":   "http://h:1/proxy/anthropic/v1/messages",
		"http://h:1/proxy/v1/messages":    "http://h:1/proxy/v1/messages",
		"https://api.anthropic.com/v1///": "https://api.anthropic.com/v1/messages",
	} {
		if got := Endpoint(in); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRequestDoesNotModifyInput(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(replayBody(t, "lcgo-opus3-text.sse"), 0))
	msgs := []llm.Message{
		llm.UserText("a"),
		{Role: llm.RoleAssistant, API: llm.APIOpenAIChat, Content: []llm.Content{llm.Thinking("plan", ""), llm.ToolCall("call|1", "read", nil)}},
		llm.ToolResult("call|1", "read", false, llm.Text("ok")),
	}
	before, _ := json.Marshal(msgs)
	req := &llm.Request{Model: sonnet, Messages: msgs, Thinking: llm.ThinkingHigh}
	if _, _, err := run(t, context.Background(), newClient(srv.URL, Options{}), req); err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(msgs)
	if string(before) != string(after) {
		t.Errorf("request modified:\n%s\n%s", before, after)
	}
	if !strings.Contains(string(srv.LastBody(t)), `"tool_use_id":"call_1_`) {
		t.Errorf("tool id not sanitised: %s", srv.LastBody(t))
	}
}
