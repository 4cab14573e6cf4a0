package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

func TestCompatFor(t *testing.T) {
	tests := []struct {
		url  string
		want Compat
	}{
		{"https://api.openai.com/v1", Compat{}},
		{"https://API.OpenAI.com/v1/", Compat{}},
		{"https://myres.openai.azure.com/openai/v1", Compat{NoPromptCacheKey: true}},
		{"https://api.deepseek.com", Compat{NoDeveloperRole: true, MaxTokensField: "max_tokens", NoPromptCacheKey: true, NoReasoningEffort: true, ReasoningField: "reasoning_content"}},
		{"https://openrouter.ai/api/v1", Compat{NoDeveloperRole: true, NoPromptCacheKey: true, ReasoningObject: true}},
		{"https://api.groq.com/openai/v1", Compat{NoDeveloperRole: true, MaxTokensField: "max_tokens", NoPromptCacheKey: true, ReasoningField: "reasoning"}},
		{"https://api.mistral.ai/v1", Compat{NoDeveloperRole: true, MaxTokensField: "max_tokens", NoPromptCacheKey: true, NoStreamOptions: true, NoReasoningEffort: true}},
		{"http://localhost:11434/v1", generic},
		{"http://127.0.0.1:8080/v1", generic},
		{"https://evil-api.openai.com.example.org/v1", generic},
		{"not a url", generic},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, CompatFor(tt.url)); diff != "" {
			t.Errorf("CompatFor(%q) (-want +got):\n%s", tt.url, diff)
		}
	}
}

func TestEffortMapping(t *testing.T) {
	tests := []struct {
		model string
		level llm.ThinkingLevel
		want  string
	}{
		{"gpt-5", "", ""},
		{"gpt-5", llm.ThinkingOff, ""},
		{"gpt-5", llm.ThinkingMinimal, "minimal"},
		{"gpt-5-mini-2025-08-07", llm.ThinkingMinimal, "minimal"},
		{"o4-mini", llm.ThinkingMinimal, "low"},
		{"gpt-5.1", llm.ThinkingMinimal, "low"},
		{"o3", llm.ThinkingLow, "low"},
		{"o3", llm.ThinkingMedium, "medium"},
		{"o3", llm.ThinkingHigh, "high"},
		{"gpt-5", llm.ThinkingXHigh, "high"},
		{"gpt-5.1", llm.ThinkingXHigh, "high"},
		{"gpt-5.2", llm.ThinkingXHigh, "xhigh"},
		{"openai/gpt-5.2-codex", llm.ThinkingXHigh, "xhigh"},
		{"gpt-5.1-codex-max", llm.ThinkingXHigh, "xhigh"},
		{"gpt-5.10", llm.ThinkingXHigh, "xhigh"},
	}
	for _, tt := range tests {
		got, err := effort(tt.model, tt.level)
		if err != nil || got != tt.want {
			t.Errorf("effort(%q, %q) = %q, %v; want %q", tt.model, tt.level, got, err, tt.want)
		}
	}
	if _, err := effort("gpt-5", "extreme"); err == nil || !strings.Contains(err.Error(), "unknown thinking level") {
		t.Errorf("unknown level: err = %v", err)
	}
}

func TestToolCallIDs(t *testing.T) {
	long := strings.Repeat("x", 64)
	tests := []struct {
		id    string
		limit int
		keep  bool
	}{
		{"call_abc-DEF_123", 0, true},
		{"toolu_01A09q90qw90lq917835lq9", 0, true},
		{long, 0, false},
		{long, 64, true},
		{"call|with|pipes", 0, false},
		{"", 0, false},
		{"abcdefghij", 9, false},
	}
	for _, tt := range tests {
		got := toolCallID(tt.id, tt.limit)
		limit := tt.limit
		if limit == 0 {
			limit = 40
		}
		if (got == tt.id) != tt.keep || len(got) > limit || !plainID(got) || got == "" {
			t.Errorf("toolCallID(%q, %d) = %q", tt.id, tt.limit, got)
		}
		if again := toolCallID(tt.id, tt.limit); again != got {
			t.Errorf("toolCallID is not stable: %q then %q", got, again)
		}
	}
	if toolCallID(long+"a", 0) == toolCallID(long+"b", 0) {
		t.Error("different ids map to the same id")
	}
}

// sentBody streams req through p against a server answering [DONE] and
// returns the request body as parsed JSON.
func sentBody(t *testing.T, api llm.API, cp Compat, req *llm.Request, opts ...func(*Options)) (map[string]any, result) {
	t.Helper()
	reply := "data: [DONE]\n\n"
	if api == llm.APIOpenAIResponses {
		reply = "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n"
	}
	s := llmtest.NewServer(t, replay([]byte(reply)))
	o := Options{BaseURL: s.URL, HTTPClient: s.Client(), Compat: cp}
	for _, f := range opts {
		f(&o)
	}
	var p llm.Provider = NewChat(o)
	if api == llm.APIOpenAIResponses {
		p = NewResponses(o)
	}
	req.Model.API = api
	r := drainStream(t, p, context.Background(), req)
	if s.Count() == 0 {
		return nil, r
	}
	var v map[string]any
	if err := json.Unmarshal(s.LastBody(t), &v); err != nil {
		t.Fatal(err)
	}
	return v, r
}

func TestChatCompatSwitches(t *testing.T) {
	reasoning := llm.Model{ID: "r1", Provider: "x", Reasoning: true}
	base := func() *llm.Request {
		return &llm.Request{Model: reasoning, System: sys("be brief"), Messages: []llm.Message{llm.UserText("hi")},
			Thinking: llm.ThinkingMedium, MaxTokens: 100, Options: llm.Options{SessionID: "s1"}}
	}
	t.Run("zero compat detects the loopback server as generic", func(t *testing.T) {
		v, _ := sentBody(t, llm.APIOpenAIChat, Compat{}, base())
		msgs := v["messages"].([]any)
		if role := msgs[0].(map[string]any)["role"]; role != "system" {
			t.Errorf("system role = %v", role)
		}
		if v["max_tokens"] != 100.0 || v["max_completion_tokens"] != nil || v["prompt_cache_key"] != nil {
			t.Errorf("body = %v", v)
		}
		if v["reasoning_effort"] != "medium" || v["stream_options"] == nil {
			t.Errorf("body = %v", v)
		}
	})
	t.Run("openai", func(t *testing.T) {
		v, _ := sentBody(t, llm.APIOpenAIChat, openaiCompat, base())
		msgs := v["messages"].([]any)
		if role := msgs[0].(map[string]any)["role"]; role != "developer" {
			t.Errorf("system role for a reasoning model = %v", role)
		}
		if v["max_completion_tokens"] != 100.0 || v["prompt_cache_key"] != "s1" || v["reasoning_effort"] != "medium" {
			t.Errorf("body = %v", v)
		}
	})
	t.Run("switches", func(t *testing.T) {
		cp := Compat{NoStreamOptions: true, ReasoningObject: true, NoPromptCacheKey: true, MaxTokensField: "max_tokens"}
		v, _ := sentBody(t, llm.APIOpenAIChat, cp, base())
		if v["stream_options"] != nil || v["reasoning_effort"] != nil || v["prompt_cache_key"] != nil {
			t.Errorf("body = %v", v)
		}
		if diff := cmp.Diff(map[string]any{"effort": "medium"}, v["reasoning"]); diff != "" {
			t.Errorf("reasoning object (-want +got):\n%s", diff)
		}
		v, _ = sentBody(t, llm.APIOpenAIChat, Compat{NoReasoningEffort: true, MaxTokensField: "max_tokens"}, base())
		if v["reasoning_effort"] != nil || v["reasoning"] != nil {
			t.Errorf("effort sent despite NoReasoningEffort: %v", v)
		}
	})
	t.Run("no effort for models without reasoning", func(t *testing.T) {
		req := base()
		req.Model.Reasoning = false
		v, _ := sentBody(t, llm.APIOpenAIChat, openaiCompat, req)
		if v["reasoning_effort"] != nil || v["messages"].([]any)[0].(map[string]any)["role"] != "system" {
			t.Errorf("body = %v", v)
		}
	})
	t.Run("invalid thinking level", func(t *testing.T) {
		req := base()
		req.Thinking = "extreme"
		v, r := sentBody(t, llm.APIOpenAIChat, openaiCompat, req)
		if v != nil || llm.CodeOf(r.err) != llm.CodeFormat || !strings.Contains(r.final.ErrorMessage, "unknown thinking level") {
			t.Errorf("sent %v; error %v", v, r.err)
		}
	})
}

func TestChatReplaysReasoningWhenAsked(t *testing.T) {
	asst := llm.Message{Role: llm.RoleAssistant, API: llm.APIOpenAIChat, StopReason: llm.StopToolUse, Content: []llm.Content{
		llm.Thinking("first I think", ""), llm.Text("calling"), llm.ToolCall("c1", "read", json.RawMessage(`{"p":1}`))}}
	req := func() *llm.Request {
		return &llm.Request{Model: llm.Model{ID: "m"}, Messages: []llm.Message{llm.UserText("q"), asst, llm.ToolResult("c1", "read", false, llm.Text("ok"))}}
	}
	v, _ := sentBody(t, llm.APIOpenAIChat, openaiCompat, req())
	am := v["messages"].([]any)[1].(map[string]any)
	if am["content"] != "calling" || am["reasoning_content"] != nil {
		t.Errorf("assistant = %v; thinking must not be sent by default", am)
	}
	v, _ = sentBody(t, llm.APIOpenAIChat, Compat{ReplayReasoningField: "reasoning_content", MaxTokensField: "max_tokens"}, req())
	am = v["messages"].([]any)[1].(map[string]any)
	if am["reasoning_content"] != "first I think" || am["content"] != "calling" {
		t.Errorf("assistant = %v; want the reasoning replayed", am)
	}
	v, _ = sentBody(t, llm.APIOpenAIChat, Compat{ReplayReasoningField: "reasoning", MaxTokensField: "max_tokens"}, req())
	am = v["messages"].([]any)[1].(map[string]any)
	if am["reasoning"] != "first I think" || am["reasoning_content"] != nil {
		t.Errorf("assistant = %v; want the reasoning replayed as reasoning", am)
	}
	v, r := sentBody(t, llm.APIOpenAIChat, Compat{ReplayReasoningField: "thoughts"}, req())
	if v != nil || llm.CodeOf(r.err) != llm.CodeFormat || !strings.Contains(r.final.ErrorMessage, "ReplayReasoningField") {
		t.Errorf("sent %v; error %v", v, r.err)
	}
}

func TestRequestShaping(t *testing.T) {
	bad := llm.ToolCall("call|1", "read", nil)
	bad.Arguments = json.RawMessage(`"{\"path\": oops"`) // unparsable arguments, kept as a JSON string
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("look"), llm.Image("AAAA", "image/jpeg")}},
		{Role: llm.RoleAssistant, API: llm.APIAnthropicMessages, StopReason: llm.StopToolUse, Content: []llm.Content{bad}},
		llm.ToolResult("call|1", "read", true, llm.Text("invalid arguments")),
	}
	for _, api := range []llm.API{llm.APIOpenAIChat, llm.APIOpenAIResponses} {
		t.Run(string(api), func(t *testing.T) {
			textOnly := llm.Model{ID: "m", Input: []llm.InputKind{llm.InputText}}
			v, _ := sentBody(t, api, openaiCompat, &llm.Request{Model: textOnly, Messages: msgs})
			raw, _ := json.Marshal(v)
			s := string(raw)
			if !strings.Contains(s, imageOmitted) || strings.Contains(s, "AAAA") {
				t.Errorf("image sent to a text-only model: %s", s)
			}
			if !strings.Contains(s, `"arguments":"{\"path\": oops"`) {
				t.Errorf("invalid arguments not sent back as the model wrote them: %s", s)
			}
			id := toolCallID("call|1", 0)
			if strings.Contains(s, "call|1") || strings.Count(s, id) != 2 {
				t.Errorf("tool-call id not rewritten consistently to %s: %s", id, s)
			}
			v, _ = sentBody(t, api, openaiCompat, &llm.Request{Model: llm.Model{ID: "m"}, Messages: msgs})
			raw, _ = json.Marshal(v)
			if !strings.Contains(string(raw), "data:image/jpeg;base64,AAAA") {
				t.Errorf("image missing: %s", raw)
			}
		})
	}
}

func TestExtraAndOnPayload(t *testing.T) {
	req := func() *llm.Request {
		return &llm.Request{Model: llm.Model{ID: "m"}, Messages: []llm.Message{llm.UserText("hi")}, MaxTokens: 5}
	}
	r := req()
	r.Options.Extra = extra("stream_options", "null", "seed", "42", "model", `"override"`)
	v, _ := sentBody(t, llm.APIOpenAIChat, openaiCompat, r)
	if _, ok := v["stream_options"]; ok || v["seed"] != 42.0 || v["model"] != "override" {
		t.Errorf("body after Extra = %v", v)
	}

	r = req()
	r.Options.Extra = extra("seed", "{broken")
	v, res := sentBody(t, llm.APIOpenAIChat, openaiCompat, r)
	if v != nil || llm.CodeOf(res.err) != llm.CodeFormat || !strings.Contains(res.final.ErrorMessage, `Options.Extra["seed"]`) {
		t.Errorf("sent %v; error %v", v, res.err)
	}

	r = req()
	var seen []byte
	r.Options.OnPayload = func(_ context.Context, p []byte) ([]byte, error) {
		seen = p
		return []byte(`{"model":"replaced","stream":true}`), nil
	}
	v, _ = sentBody(t, llm.APIOpenAIResponses, openaiCompat, r)
	if v["model"] != "replaced" || !strings.Contains(string(seen), `"max_output_tokens":5`) {
		t.Errorf("OnPayload saw %s; sent %v", seen, v)
	}

	r = req()
	stop := errors.New("payload rejected by policy")
	r.Options.OnPayload = func(context.Context, []byte) ([]byte, error) { return nil, stop }
	v, res = sentBody(t, llm.APIOpenAIChat, openaiCompat, r)
	if v != nil || !errors.Is(res.err, stop) {
		t.Errorf("sent %v; error %v", v, res.err)
	}
}

func TestCompatValidationAndCustomReasoningField(t *testing.T) {
	v, r := sentBody(t, llm.APIOpenAIChat, Compat{MaxTokensField: "max_output_tokens"},
		&llm.Request{Model: llm.Model{ID: "m"}, Messages: []llm.Message{llm.UserText("hi")}})
	if v != nil || llm.CodeOf(r.err) != llm.CodeFormat || !strings.Contains(r.final.ErrorMessage, "Compat.MaxTokensField") {
		t.Errorf("sent %v; error %v", v, r.err)
	}

	body := llmtest.SSEData(`{"choices":[{"delta":{"thoughts":"pondering","reasoning":"not this"}}]}`,
		`{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]")
	s := llmtest.NewServer(t, replay([]byte(body)))
	res := drainStream(t, chatProvider(s, Compat{ReasoningField: "thoughts", MaxTokensField: "max_tokens"}), context.Background(), chatReq())
	want := []llm.Content{llm.Thinking("pondering", ""), llm.Text("ok")}
	if diff := cmp.Diff(want, res.final.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}
