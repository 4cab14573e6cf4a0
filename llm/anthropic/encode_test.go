package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

func encodeView(t *testing.T, req *llm.Request) (payloadView, string) {
	t.Helper()
	body, err := encode(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var v payloadView
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return v, string(body)
}

func TestThinkingAndMaxTokens(t *testing.T) {
	plain := sonnet
	plain.Reasoning = false
	small := sonnet
	small.MaxOutput = 8192
	unknown := sonnet
	unknown.MaxOutput = 0
	tests := []struct {
		name      string
		model     llm.Model
		level     llm.ThinkingLevel
		maxTokens int
		wantMax   int
		budget    int // 0: no thinking
	}{
		{"off", sonnet, llm.ThinkingOff, 0, 64000, 0},
		{"empty", sonnet, "", 1000, 1000, 0},
		{"model without reasoning", plain, llm.ThinkingHigh, 0, 64000, 0},
		{"minimal", sonnet, llm.ThinkingMinimal, 0, 64000, 1024},
		{"low", sonnet, llm.ThinkingLow, 0, 64000, 2048},
		{"medium", sonnet, llm.ThinkingMedium, 0, 64000, 8192},
		{"high", sonnet, llm.ThinkingHigh, 0, 64000, 16384},
		{"xhigh", sonnet, llm.ThinkingXHigh, 0, 64000, 32768},
		{"raised for the budget", sonnet, llm.ThinkingMedium, 4096, 4096 + 8192, 8192},
		{"raise capped by the model", small, llm.ThinkingXHigh, 0, 8192, 8192 - 1024},
		{"raise capped, request above cap kept", small, llm.ThinkingHigh, 10000, 10000, 10000 - 1024},
		{"no model limit", unknown, llm.ThinkingHigh, 0, DefaultMaxTokens + 16384, 16384},
		{"default max tokens", unknown, "", 0, DefaultMaxTokens, 0},
		{"too small to think", llm.Model{ID: "m", Reasoning: true, MaxOutput: 1500}, llm.ThinkingMinimal, 0, 1500, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			temp := 0.5
			v, _ := encodeView(t, &llm.Request{Model: tt.model, Thinking: tt.level, MaxTokens: tt.maxTokens, Temperature: &temp})
			if v.MaxTokens != tt.wantMax {
				t.Errorf("max_tokens %d, want %d", v.MaxTokens, tt.wantMax)
			}
			if tt.budget == 0 {
				if v.Thinking != nil || v.Temperature == nil || *v.Temperature != 0.5 {
					t.Errorf("thinking %v temperature %v, want none and 0.5", v.Thinking, v.Temperature)
				}
				return
			}
			want := map[string]any{"type": "enabled", "budget_tokens": float64(tt.budget)}
			if d := cmp.Diff(want, v.Thinking); d != "" {
				t.Errorf("thinking (-want +got):\n%s", d)
			}
			if v.Temperature != nil {
				t.Error("temperature sent with thinking")
			}
			if tt.budget >= v.MaxTokens {
				t.Errorf("budget %d not below max_tokens %d", tt.budget, v.MaxTokens)
			}
		})
	}
}

func TestInvalidRequests(t *testing.T) {
	tests := []struct {
		name string
		req  *llm.Request
		msg  string
	}{
		{"thinking level", &llm.Request{Model: sonnet, Thinking: "ultra"}, `unknown thinking level "ultra"`},
		{"tool schema", &llm.Request{Model: sonnet, Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{nope`)}}}, `tool "t": parameters are not valid JSON`},
		{"temperature", &llm.Request{Model: sonnet, Temperature: func() *float64 { f := math.NaN(); return &f }()}, "temperature NaN is not a number"},
		{"extra", &llm.Request{Model: sonnet, Options: llm.Options{Extra: map[string]json.RawMessage{"top_k": json.RawMessage(`{`)}}}, `options.extra["top_k"] is not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE(nil, 0))
			_, le := failing(t, newClient(srv.URL, Options{}), tt.req)
			if le.Code != llm.CodeFormat || !strings.Contains(le.Message, tt.msg) {
				t.Errorf("error %v", le)
			}
			if len(srv.Paths()) != 0 {
				t.Error("an invalid request was sent")
			}
		})
	}
}

func TestCacheBreakpoints(t *testing.T) {
	req := &llm.Request{Model: sonnet,
		System: []llm.SystemPart{{Text: "rules"}, {Text: "tools guide"}, {Text: "now: 12:00", Volatile: true}, {Text: "cwd: /x"}},
		Messages: []llm.Message{
			llm.UserText("one"),
			{Role: llm.RoleAssistant, API: llm.APIAnthropicMessages, Content: []llm.Content{llm.Text("ok")}},
			llm.UserText("two"),
			{Role: llm.RoleAssistant, API: llm.APIAnthropicMessages, Content: []llm.Content{llm.ToolCall("a", "read", nil), llm.ToolCall("b", "read", nil)}},
			llm.ToolResult("a", "read", false, llm.Text("A")),
			llm.ToolResult("b", "read", false, llm.Text("B"), llm.Image("aGk=", "image/png")),
			llm.UserText("steer"),
		}}
	v, body := encodeView(t, req)
	wantSystem := []string{`{"type":"text","text":"rules\n\ntools guide","cache_control":{"type":"ephemeral"}}`, `{"type":"text","text":"now: 12:00\n\ncwd: /x"}`}
	var gotSystem []string
	for _, b := range v.System {
		gotSystem = append(gotSystem, string(b.Raw))
	}
	if d := cmp.Diff(wantSystem, gotSystem); d != "" {
		t.Errorf("system (-want +got):\n%s", d)
	}
	var roles []string
	for _, m := range v.Messages {
		roles = append(roles, m.Role)
	}
	if d := cmp.Diff([]string{"user", "assistant", "user", "assistant", "user"}, roles); d != "" {
		t.Fatalf("roles (-want +got):\n%s", d)
	}
	last := v.Messages[4].Content
	if len(last) != 3 || last[0].ToolUseID != "a" || last[1].ToolUseID != "b" || last[2].Text != "steer" {
		t.Fatalf("tool results and steering not merged into one user message: %s", body)
	}
	if len(last[1].Content) != 2 || last[1].Content[1].Type != "image" {
		t.Errorf("tool result image lost: %s", last[1].Raw)
	}
	marked := []string{}
	walkBlocks(v, func(where string, b blockView) {
		if b.CacheControl != nil {
			marked = append(marked, where)
		}
	})
	if d := cmp.Diff([]string{"system[0]", "messages[2][0]", "messages[4][2]"}, marked); d != "" {
		t.Errorf("breakpoints (-want +got):\n%s", d)
	}
	if n := strings.Count(body, "cache_control"); n > 4 {
		t.Errorf("%d breakpoints, the API allows 4", n)
	}
}

func walkBlocks(v payloadView, f func(string, blockView)) {
	for i, b := range v.System {
		f("system["+itoa(i)+"]", b)
	}
	for i, m := range v.Messages {
		for j, b := range m.Content {
			f("messages["+itoa(i)+"]["+itoa(j)+"]", b)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestVolatileFirstHasNoSystemBreakpoint(t *testing.T) {
	v, _ := encodeView(t, &llm.Request{Model: sonnet, System: []llm.SystemPart{{Text: "now", Volatile: true}, {Text: "rest"}}})
	if len(v.System) != 1 || v.System[0].CacheControl != nil || v.System[0].Text != "now\n\nrest" {
		t.Errorf("system %+v", v.System)
	}
}

func TestToolIDs(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	ids := []string{"toolu_01ABC", "call_abc123|fc_0123456789", "call.1", "call:1", "", strings.Repeat("x", 80), strings.Repeat("é", 40), "a b"}
	seen := map[string]string{}
	for _, id := range ids {
		got := toolID(id)
		if !valid.MatchString(got) {
			t.Errorf("toolID(%q) = %q, not valid", id, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("toolID(%q) and toolID(%q) are both %q", id, other, got)
		}
		seen[got] = id
		if toolID(id) != got {
			t.Errorf("toolID(%q) is not stable", id)
		}
	}
	if toolID("toolu_01ABC") != "toolu_01ABC" {
		t.Error("a valid id was changed")
	}
	// A call and its result from another provider get the same id.
	msgs := []llm.Message{
		llm.UserText("go"),
		{Role: llm.RoleAssistant, API: llm.APIOpenAIResponses, Content: []llm.Content{llm.ToolCall("call_1|fc_2", "read", json.RawMessage(`{"p":1}`))}},
		llm.ToolResult("call_1|fc_2", "read", false, llm.Text("x")),
	}
	v, _ := encodeView(t, &llm.Request{Model: sonnet, Messages: msgs})
	call, result := v.Messages[1].Content[0], v.Messages[2].Content[0]
	if call.ID != result.ToolUseID || !valid.MatchString(call.ID) || string(call.Input) != `{"p":1}` {
		t.Errorf("call %q result %q", call.ID, result.ToolUseID)
	}
}

func TestThinkingFromElsewhere(t *testing.T) {
	msgs := []llm.Message{
		llm.UserText("q"),
		{Role: llm.RoleAssistant, API: llm.APIOpenAIChat, Content: []llm.Content{llm.Thinking("their plan", "opaque"), llm.Text("a1")}},
		llm.UserText("q2"),
		{Role: llm.RoleAssistant, API: llm.APIAnthropicMessages, Content: []llm.Content{
			llm.Thinking("unsigned plan", ""), llm.Thinking("", "sig-only"), {Type: llm.ContentThinking, Redacted: true}, llm.Text("   "), llm.Text("a2")}},
		llm.UserText("q3"),
	}
	v, _ := encodeView(t, &llm.Request{Model: sonnet, Messages: msgs})
	var got []string
	for _, i := range []int{1, 3} {
		for _, b := range v.Messages[i].Content {
			got = append(got, string(b.Raw))
		}
	}
	want := []string{
		`{"type":"text","text":"their plan"}`, `{"type":"text","text":"a1"}`,
		`{"type":"text","text":"unsigned plan"}`, `{"type":"thinking","thinking":"","signature":"sig-only"}`, `{"type":"text","text":"a2"}`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("assistant blocks (-want +got):\n%s", d)
	}
}

func TestExtraMetadataAndOnPayload(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(replayBody(t, "lcgo-opus3-text.sse"), 0))
	temp := 0.3
	var seen []byte
	req := &llm.Request{Model: sonnet, Temperature: &temp, Messages: []llm.Message{llm.UserText("<b>&</b>")},
		Options: llm.Options{
			Metadata: map[string]string{"user_id": "u-42", "other": "ignored"},
			Extra:    map[string]json.RawMessage{"temperature": json.RawMessage("null"), "top_k": json.RawMessage("5"), "stream": json.RawMessage("true")},
			OnPayload: func(_ context.Context, p []byte) ([]byte, error) {
				seen = append([]byte(nil), p...)
				return []byte(strings.Replace(string(p), `"top_k":5`, `"top_k":6`, 1)), nil
			},
		}}
	if _, _, err := run(t, context.Background(), newClient(srv.URL, Options{}), req); err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	if err := json.Unmarshal(srv.LastBody(t), &sent); err != nil {
		t.Fatal(err)
	}
	if _, ok := sent["temperature"]; ok {
		t.Error("null in Extra did not delete temperature")
	}
	if sent["top_k"] != 6.0 || !strings.Contains(string(seen), `"top_k":5`) {
		t.Errorf("top_k %v; OnPayload saw %s", sent["top_k"], seen)
	}
	if d := cmp.Diff(map[string]any{"user_id": "u-42"}, sent["metadata"]); d != "" {
		t.Errorf("metadata (-want +got):\n%s", d)
	}
	if !strings.Contains(string(srv.LastBody(t)), `"text":"<b>&</b>"`) {
		t.Errorf("text was escaped: %s", srv.LastBody(t))
	}

	boom := errors.New("payload rejected by policy")
	req.Options.OnPayload = func(context.Context, []byte) ([]byte, error) { return nil, boom }
	n := len(srv.Paths())
	_, le := failing(t, newClient(srv.URL, Options{}), req)
	if !errors.Is(le, boom) || len(srv.Paths()) != n {
		t.Errorf("error %v, %d requests sent", le, len(srv.Paths())-n)
	}
}

func TestEmptyAndImageContent(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text(""), llm.Image("aGk=", "image/jpeg"), llm.Text("what is this?")}},
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("  ")}},
	}
	v, _ := encodeView(t, &llm.Request{Model: sonnet, Messages: msgs, Tools: []llm.ToolSpec{{Name: "noargs", Description: "d"}}})
	if len(v.Messages) != 1 || len(v.Messages[0].Content) != 2 {
		t.Fatalf("messages %+v", v.Messages)
	}
	want := `{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"aGk="}}`
	if got := string(v.Messages[0].Content[0].Raw); got != want {
		t.Errorf("image block %s", got)
	}
	_, body := encodeView(t, &llm.Request{Model: sonnet, Tools: []llm.ToolSpec{{Name: "noargs"}}})
	if !strings.Contains(body, `"tools":[{"name":"noargs","input_schema":{"type":"object","properties":{}}}]`) {
		t.Errorf("tool without parameters: %s", body)
	}
}

// TestNoKeyNoHeader checks that a client without credentials sends none,
// for local servers that need none.
func TestNoKeyNoHeader(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(replayBody(t, "lcgo-opus3-text.sse"), 0))
	if _, _, err := run(t, context.Background(), newClient(srv.URL, Options{}), userReq(sonnet, "hi")); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.LastHeader()[http.CanonicalHeaderKey("x-api-key")]; ok {
		t.Error("x-api-key sent without a key")
	}
}

func TestAdaptiveThinking(t *testing.T) {
	for id, want := range map[string]bool{
		"claude-sonnet-4-20250514":   false,
		"claude-sonnet-4-5":          false,
		"claude-opus-4-5-20251101":   false,
		"claude-3-7-sonnet-20250219": false,
		"claude-opus-4-6":            true,
		"claude-sonnet-4-6":          true,
		"claude-opus-4-7":            true,
		"claude-sonnet-5":            true,
		"claude-opus-5-5":            true,
		"claude-fable-5-2":           true,
		"claude-haiku-5-5":           true,
		"my-proxy-model":             false,
	} {
		if got := Adaptive(id); got != want {
			t.Errorf("Adaptive(%q) = %v, want %v", id, got, want)
		}
	}
	model := sonnet
	model.ID = "claude-sonnet-5-5"
	for level, effort := range map[llm.ThinkingLevel]string{
		llm.ThinkingMinimal: "low", llm.ThinkingLow: "low", llm.ThinkingMedium: "medium",
		llm.ThinkingHigh: "high", llm.ThinkingXHigh: "max",
	} {
		temp := 0.5
		_, body := encodeView(t, &llm.Request{Model: model, Thinking: level, Temperature: &temp})
		var v struct {
			MaxTokens    int            `json:"max_tokens"`
			Thinking     map[string]any `json:"thinking"`
			OutputConfig map[string]any `json:"output_config"`
			Temperature  *float64       `json:"temperature"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(map[string]any{"type": "adaptive"}, v.Thinking); d != "" {
			t.Errorf("%s: thinking (-want +got):\n%s", level, d)
		}
		if d := cmp.Diff(map[string]any{"effort": effort}, v.OutputConfig); d != "" {
			t.Errorf("%s: output_config (-want +got):\n%s", level, d)
		}
		if v.MaxTokens != model.MaxOutput || v.Temperature != nil {
			t.Errorf("%s: max_tokens %d temperature %v", level, v.MaxTokens, v.Temperature)
		}
	}
	_, body := encodeView(t, &llm.Request{Model: model, Thinking: llm.ThinkingOff})
	if strings.Contains(body, `"thinking"`) || strings.Contains(body, "output_config") {
		t.Errorf("thinking off sent a thinking configuration: %s", body)
	}
}
