package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

var okReply = frames(`{"candidates": [{"content": {"parts": [{"text": "ok"}]},"finishReason": "STOP"}]}`)

func TestRequestOptions(t *testing.T) {
	srv, rec := sseServer(t, okReply)
	c := New(Options{
		BaseURL:    "http://127.0.0.1:1/unused", // the model's BaseURL wins
		HTTPClient: srv.Client(),
		APIKey:     staticKey("client-key-0000"),
		Headers:    map[string]string{"X-A": "client", "X-B": "client"},
	})
	m := testModel("models/gemini-2.5-flash", srv.URL+"/v1beta/")
	m.Headers = map[string]string{"X-B": "model", "X-C": "model"}
	req := &llm.Request{Model: m, Messages: []llm.Message{llm.UserText("hi")}, Options: llm.Options{
		APIKey:  "request-key-1111",
		Headers: map[string]string{"X-C": "request"},
		Extra: map[string]json.RawMessage{
			"safetySettings":   json.RawMessage(`[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]`),
			"generationConfig": json.RawMessage(`{"candidateCount":1}`),
			"tools":            json.RawMessage(`null`),
		},
		OnPayload: func(ctx context.Context, p []byte) ([]byte, error) {
			return append(p[:len(p)-1], []byte(`,"cachedContent":"cachedContents/x"}`)...), nil
		},
	}, Tools: []llm.ToolSpec{sumTool}}
	if r := stream(t, c, req); r.err != nil {
		t.Fatal(r.err)
	}
	path, query, h, body := rec.get()
	if path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || query != "alt=sse" {
		t.Errorf("URL %s?%s", path, query)
	}
	for k, want := range map[string]string{"X-A": "client", "X-B": "model", "X-C": "request",
		"X-Goog-Api-Key": "request-key-1111", "Content-Type": "application/json", "Accept": "text/event-stream"} {
		if got := h.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["tools"]; ok {
		t.Error("a null in Options.Extra did not delete tools")
	}
	if string(got["generationConfig"]) != `{"candidateCount":1}` || string(got["cachedContent"]) != `"cachedContents/x"` {
		t.Errorf("payload %s", body)
	}
	if !strings.Contains(string(got["safetySettings"]), "BLOCK_NONE") {
		t.Errorf("safetySettings not merged: %s", body)
	}
}

func TestDefaultBaseURLAndNoKey(t *testing.T) {
	c := New(Options{})
	req := &llm.Request{Model: llm.Model{ID: "gemini-2.5-pro"}}
	if got, want := c.endpoint(req), DefaultBaseURL+"/models/gemini-2.5-pro:streamGenerateContent?alt=sse"; got != want {
		t.Errorf("endpoint %q, want %q", got, want)
	}
	c = New(Options{BaseURL: "https://proxy.example/v1beta/"})
	req.Model.ID = "tunedModels/my model"
	if got, want := c.endpoint(req), "https://proxy.example/v1beta/tunedModels/my%20model:streamGenerateContent?alt=sse"; got != want {
		t.Errorf("endpoint %q, want %q", got, want)
	}
	srv, rec := sseServer(t, okReply)
	if r := stream(t, New(Options{HTTPClient: srv.Client()}), &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL)}); r.err != nil {
		t.Fatal(r.err)
	}
	if _, _, h, _ := rec.get(); h.Get("x-goog-api-key") != "" {
		t.Error("a key header was sent without a key")
	}
}

func TestOnPayloadError(t *testing.T) {
	srv, _ := sseServer(t, okReply)
	boom := errors.New("payload rejected by policy")
	req := &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL), Options: llm.Options{
		OnPayload: func(context.Context, []byte) ([]byte, error) { return nil, boom }}}
	r := stream(t, New(Options{HTTPClient: srv.Client()}), req)
	if !errors.Is(r.err, boom) || r.msg.StopReason != llm.StopError {
		t.Errorf("error %v stop %q, want the OnPayload error", r.err, r.msg.StopReason)
	}
}

func TestBadRequests(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"thinking level", llm.Request{Thinking: "ultra"}, `unknown thinking level "ultra"`},
		{"tool schema", llm.Request{Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":`)}}}, `tool "t": parameters are not valid JSON`},
		{"extra", llm.Request{Options: llm.Options{Extra: map[string]json.RawMessage{"x": json.RawMessage(`{`)}}}, `Options.Extra["x"] is not valid JSON`},
		{"kept part fields", llm.Request{Messages: []llm.Message{llm.UserText("hi"), {Role: llm.RoleAssistant, API: llm.APIGemini,
			Content: []llm.Content{{Type: llm.ContentText, Text: "x", Extra: json.RawMessage(`["not","an","object"]`)}}}}},
			"content extra is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := sseServer(t, okReply)
			tt.req.Model = testModel("gemini-2.5-flash", srv.URL)
			r := stream(t, New(Options{HTTPClient: srv.Client()}), &tt.req)
			if llm.CodeOf(r.err) != llm.CodeFormat || !strings.Contains(r.err.Error(), tt.want) {
				t.Errorf("error %v, want a format error containing %q", r.err, tt.want)
			}
		})
	}
}

func TestThinkingConfig(t *testing.T) {
	budget := func(n int) *int { return &n }
	tests := []struct {
		model     string
		reasoning bool
		level     llm.ThinkingLevel
		want      *thinkingConfig
	}{
		{"gemini-2.5-flash", false, llm.ThinkingHigh, nil},
		{"gemini-2.5-flash", true, "", nil}, // the model's default
		{"gemini-2.5-flash", true, llm.ThinkingOff, &thinkingConfig{ThinkingBudget: budget(0)}},
		{"gemini-2.5-flash", true, llm.ThinkingMinimal, &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(128)}},
		{"gemini-2.5-flash", true, llm.ThinkingLow, &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(2048)}},
		{"gemini-2.5-flash", true, llm.ThinkingMedium, &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(8192)}},
		{"gemini-2.5-flash", true, llm.ThinkingXHigh, &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(24576)}},
		{"gemini-2.5-flash-lite", true, llm.ThinkingMinimal, &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(512)}},
		{"gemini-2.5-pro", true, llm.ThinkingOff, &thinkingConfig{ThinkingBudget: budget(128)}},
		{"models/gemini-2.5-pro", true, llm.ThinkingXHigh, &thinkingConfig{IncludeThoughts: true, ThinkingBudget: budget(32768)}},
		{"gemini-3-pro-preview", true, llm.ThinkingOff, &thinkingConfig{ThinkingLevel: "low"}},
		{"gemini-3.1-pro-preview", true, llm.ThinkingMinimal, &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "low"}},
		{"gemini-3.1-pro-preview", true, llm.ThinkingMedium, &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "high"}},
		{"gemini-3-flash-preview", true, llm.ThinkingOff, &thinkingConfig{ThinkingLevel: "minimal"}},
		{"gemini-3-flash-preview", true, llm.ThinkingLow, &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "low"}},
		{"gemini-3-flash-preview", true, llm.ThinkingMedium, &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "medium"}},
		{"gemini-3-flash-preview", true, llm.ThinkingXHigh, &thinkingConfig{IncludeThoughts: true, ThinkingLevel: "high"}},
	}
	for _, tt := range tests {
		m := llm.Model{ID: tt.model, Reasoning: tt.reasoning}
		if diff := cmp.Diff(tt.want, thinkingFor(&m, tt.level)); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.model, tt.level, diff)
		}
	}
}

// encode builds the payload for msgs and returns its contents.
func encode(t *testing.T, model llm.Model, msgs ...llm.Message) []any {
	t.Helper()
	b, err := buildPayload(context.Background(), &llm.Request{Model: model, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Contents []any }
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p.Contents
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	return jsonValue(t, json.RawMessage(s))
}

func TestEncodeConversation(t *testing.T) {
	gem := llm.Message{Role: llm.RoleAssistant, API: llm.APIGemini, Provider: "google", StopReason: llm.StopToolUse, Content: []llm.Content{
		llm.Thinking("plan", "sig-think"),
		{Type: llm.ContentText, Text: "Calling.", Signature: "sig-text"},
		{Type: llm.ContentToolCall, ID: GeneratedIDPrefix + "r_0", Name: "look", Arguments: json.RawMessage(`{"q":1}`), Signature: "sig-call"},
		{Type: llm.ContentToolCall, ID: GeneratedIDPrefix + "r_1", Name: "shot", Arguments: json.RawMessage(`"not an object"`)},
		{Type: llm.ContentText, Signature: "sig-empty"},
	}}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("see"), llm.Image("AAAA", "image/png"), llm.Text("")}},
		gem,
		llm.ToolResult(GeneratedIDPrefix+"r_0", "look", false, llm.Text("line 1"), llm.Text("line 2")),
		llm.ToolResult(GeneratedIDPrefix+"r_1", "shot", true, llm.Text("failed"), llm.Image("BBBB", "image/jpeg")),
	}
	want := jsonOf(t, `[
		{"role":"user","parts":[{"text":"see"},{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]},
		{"role":"model","parts":[
			{"text":"plan","thought":true,"thoughtSignature":"sig-think"},
			{"text":"Calling.","thoughtSignature":"sig-text"},
			{"functionCall":{"name":"look","args":{"q":1}},"thoughtSignature":"sig-call"},
			{"functionCall":{"name":"shot","args":{}}},
			{"text":"","thoughtSignature":"sig-empty"}]},
		{"role":"user","parts":[
			{"functionResponse":{"name":"look","response":{"output":"line 1\nline 2"}}},
			{"functionResponse":{"name":"shot","response":{"error":"failed"}}},
			{"inlineData":{"mimeType":"image/jpeg","data":"BBBB"}}]}]`)
	if diff := cmp.Diff(want, encode(t, testModel("gemini-2.5-flash", ""), msgs...)); diff != "" {
		t.Errorf("Gemini 2.5 contents (-want +got):\n%s", diff)
	}

	// Gemini 3 takes a tool's images inside the function response.
	got := encode(t, testModel("gemini-3-flash-preview", ""), msgs...)
	wantResults := jsonOf(t, `{"role":"user","parts":[
		{"functionResponse":{"name":"look","response":{"output":"line 1\nline 2"}}},
		{"functionResponse":{"name":"shot","response":{"error":"failed"},"parts":[{"inlineData":{"mimeType":"image/jpeg","data":"BBBB"}}]}}]}`)
	if diff := cmp.Diff(wantResults, got[2]); diff != "" {
		t.Errorf("Gemini 3 results (-want +got):\n%s", diff)
	}

	// A model that takes no images gets a note instead.
	m := testModel("gemini-2.5-flash", "")
	m.Input = []llm.InputKind{llm.InputText}
	got = encode(t, m, msgs[0])
	if diff := cmp.Diff(jsonOf(t, `[{"role":"user","parts":[{"text":"see"},{"text":"(image omitted: this model does not accept images)"}]}]`), got); diff != "" {
		t.Errorf("text-only model (-want +got):\n%s", diff)
	}
}

// TestForeignCallsOnGemini3 checks that calls from another API keep their
// ids, lose their foreign signatures, and get the placeholder signature in
// the current turn only.
func TestForeignCallsOnGemini3(t *testing.T) {
	foreign := func(id string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, API: llm.APIAnthropicMessages, StopReason: llm.StopToolUse, Content: []llm.Content{
			{Type: llm.ContentThinking, Text: "hmm", Signature: "anthropic-sig"},
			{Type: llm.ContentToolCall, ID: id, Name: "f", Arguments: json.RawMessage(`{}`)},
		}}
	}
	got := encode(t, testModel("gemini-3-pro-preview", ""),
		llm.UserText("one"), foreign("toolu_1"), llm.ToolResult("toolu_1", "f", false, llm.Text("r1")),
		llm.UserText("two"), foreign("toolu_2"), llm.ToolResult("toolu_2", "f", false, llm.Text("r2")))
	want := jsonOf(t, `[
		{"role":"user","parts":[{"text":"one"}]},
		{"role":"model","parts":[{"text":"hmm"},{"functionCall":{"name":"f","args":{},"id":"toolu_1"}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"toolu_1","name":"f","response":{"output":"r1"}}}]},
		{"role":"user","parts":[{"text":"two"}]},
		{"role":"model","parts":[{"text":"hmm"},{"functionCall":{"name":"f","args":{},"id":"toolu_2"},"thoughtSignature":"skip_thought_signature_validator"}]},
		{"role":"user","parts":[{"functionResponse":{"id":"toolu_2","name":"f","response":{"output":"r2"}}}]}]`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}

func TestToolSchemaAnnotationsRemoved(t *testing.T) {
	got, err := toolSchema(json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","type":"object","additionalProperties":false}`))
	if err != nil || string(got) != `{"additionalProperties":false,"type":"object"}` {
		t.Errorf("schema %s, %v", got, err)
	}
	if got, err := toolSchema(nil); got != nil || err != nil {
		t.Errorf("empty parameters gave %s, %v", got, err)
	}
}
