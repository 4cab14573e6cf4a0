package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

const (
	calculatorPrompt = "You are a calculator assistant. You will recieve requests to add two integers. Respond with the sum of the two integers and you must use the sum tool to calculate the sum."
	calculatorAgent  = `You are an agent. Your internal name is "calculator". The description about you is "A calculator that can add two integers".`
	parallelAsk      = "Can you add 2 and 3? Also 4 and 5? And 6 and 7?"
)

var sumTool = llm.ToolSpec{
	Name:        "sum",
	Description: "sums two integers",
	Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,
		"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
}

func calculator(model string) *llm.Request {
	return &llm.Request{
		Model:    testModel(model, ""),
		System:   []llm.SystemPart{{Text: calculatorPrompt}, {Text: calculatorAgent}},
		Messages: []llm.Message{llm.UserText(parallelAsk)},
		Tools:    []llm.ToolSpec{sumTool},
	}
}

func twoNumberTool(name, desc string) llm.ToolSpec {
	return llm.ToolSpec{Name: name, Description: desc, Parameters: json.RawMessage(`{"type":"object",
		"properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},
		"required":["a","b"]}`)}
}

func reasoning(m llm.Model) llm.Model { m.Reasoning = true; return m }

// requestCases rebuild, with rein's types, the conversation behind each
// recorded request. A follow-up names the recorded stream whose reply it
// continues: that reply is decoded by the client and sent back, so the
// test covers the whole round trip of signatures and call ids.
var requestCases = []struct {
	file     string
	req      func() *llm.Request
	previous string // recorded reply the follow-up continues
	results  []string
}{
	{file: "adk-gemini25flash-text", req: func() *llm.Request {
		zero := 0.0
		return &llm.Request{Model: testModel("gemini-2.5-flash", ""), Temperature: &zero,
			Messages: []llm.Message{llm.UserText("What is the capital of France? One word.")}}
	}},
	{file: "adk-gemini25flash-multichunk-text", req: func() *llm.Request {
		return &llm.Request{Model: testModel("gemini-2.5-flash", ""),
			System:   []llm.SystemPart{{Text: "You are a helpful assistant."}, {Text: `You are an agent. Your internal name is "model-agent".`, Volatile: true}},
			Messages: []llm.Message{llm.UserText("tell me about the capital of Poland")}}
	}},
	{file: "adk-gemini25flash-thoughts-text", req: func() *llm.Request {
		return &llm.Request{Model: reasoning(testModel("gemini-2.5-flash", "")), Thinking: llm.ThinkingMedium,
			System: []llm.SystemPart{{Text: "Think deep. Always double check the answer before making the conclusion."},
				{Text: `You are an agent. Your internal name is "calculator". The description about you is "calculating agent".`}},
			Messages: []llm.Message{llm.UserText("What is the sum of the first 50 prime numbers?")}}
	}},
	{file: "adk-gemini25flash-parallel-tools", req: func() *llm.Request { return calculator("gemini-2.5-flash") }},
	{file: "adk-gemini3flash-parallel-tools", req: func() *llm.Request { return calculator("gemini-3-flash-preview") }},
	{file: "adk-gemini31pro-parallel-tools", req: func() *llm.Request { return calculator("gemini-3.1-pro-preview") }},
	{
		file: "adk-gemini25flash-parallel-tools-followup", req: func() *llm.Request { return calculator("gemini-2.5-flash") },
		previous: "adk-gemini25flash-parallel-tools", results: []string{`{"sum": 5}`, `{"sum": 9}`, `{"sum": 13}`},
	},
	{
		file: "adk-gemini31pro-parallel-tools-followup", req: func() *llm.Request { return calculator("gemini-3.1-pro-preview") },
		previous: "adk-gemini31pro-parallel-tools", results: []string{`{"sum": 5}`, `{"sum": 9}`, `{"sum": 13}`},
	},
	{file: "fantasy-gemini25flash-thinking-tool", req: func() *llm.Request {
		return &llm.Request{Model: reasoning(testModel("gemini-2.5-flash", "")), Thinking: llm.ThinkingMinimal,
			System:   []llm.SystemPart{{Text: "You are a helpful assistant"}},
			Messages: []llm.Message{llm.UserText("What's the weather in Florence, Italy?")},
			Tools: []llm.ToolSpec{{Name: "weather", Description: "Get weather information for a location",
				Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}}}
	}},
	{file: "fantasy-gemini3pro-parallel-tools", req: func() *llm.Request {
		return &llm.Request{Model: testModel("gemini-3-pro-preview", ""), MaxTokens: 4000,
			System:   []llm.SystemPart{{Text: "You are a helpful assistant. Always use both add and multiply at the same time."}},
			Messages: []llm.Message{llm.UserText("Add and multiply the number 2 and 3")},
			Tools:    []llm.ToolSpec{twoNumberTool("add", "Add two numbers"), twoNumberTool("multiply", "Multiply two numbers")}}
	}},
	{file: "pai-gemini25pro-thoughts", req: func() *llm.Request {
		return &llm.Request{Model: reasoning(testModel("gemini-2.5-pro", "")), Thinking: llm.ThinkingHigh,
			System:   []llm.SystemPart{{Text: "You are a helpful assistant."}},
			Messages: []llm.Message{llm.UserText("How do I cross the street?")},
			Tools:    []llm.ToolSpec{{Name: "dummy", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}}
	}},
	{file: "errors/adk-vertex-401-unauthenticated", req: func() *llm.Request {
		return &llm.Request{Model: testModel("gemini-2.0-flash", ""), Messages: []llm.Message{llm.UserText("ping")}}
	}},
}

// TestRequestsMatchRecordings builds each recorded request with rein and
// compares the two as parsed JSON, after normalizeRecorded and
// normalizeOurs have removed the differences that do not matter.
func TestRequestsMatchRecordings(t *testing.T) {
	for _, tc := range requestCases {
		t.Run(tc.file, func(t *testing.T) {
			req := tc.req()
			if tc.previous != "" {
				prev := readFixture(t, tc.previous+".sse")
				srv := sseServer(t, prev)
				first := *req
				first.Model.BaseURL = srv.URL
				r := stream(t, New(Options{HTTPClient: srv.Client()}), &first)
				if r.err != nil {
					t.Fatal(r.err)
				}
				req.Messages = append(req.Messages, r.msg)
				calls := r.msg.ToolCalls()
				if len(calls) != len(tc.results) {
					t.Fatalf("%d calls, %d results", len(calls), len(tc.results))
				}
				for i, c := range calls {
					req.Messages = append(req.Messages, llm.ToolResult(c.ID, c.Name, false, llm.Text(tc.results[i])))
				}
			}
			reply := []byte("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"ok\"}],\"role\": \"model\"},\"finishReason\": \"STOP\"}]}\r\n\r\n")
			srv := sseServer(t, reply)
			req.Model.BaseURL = srv.URL
			if r := stream(t, New(Options{HTTPClient: srv.Client()}), req); r.err != nil {
				t.Fatal(r.err)
			}
			body := srv.LastBody(t)
			var ours, want any
			if err := json.Unmarshal(body, &ours); err != nil {
				t.Fatalf("rein sent invalid JSON: %v\n%s", err, body)
			}
			if err := json.Unmarshal(readFixture(t, tc.file+".request.json"), &want); err != nil {
				t.Fatal(err)
			}
			want = normalizeRecorded(want)
			ours = normalizeOurs(t, ours, want)
			if diff := cmp.Diff(want, ours); diff != "" {
				t.Errorf("request differs from the recording (-recorded +rein):\n%s", diff)
			}
		})
	}
}

// normalizeRecorded rewrites what other clients sent into the equivalent
// rein sends, for fields where the two differ only in form:
//
//   - tools declared with "parameters" in the OpenAPI subset (upper-case
//     type names) become "parametersJsonSchema" with JSON Schema types, as
//     rein declares them; empty descriptions are dropped.
//   - "responseJsonSchema" is dropped: rein's ToolSpec has no result schema.
//   - toolConfig {"functionCallingConfig": {"mode": "AUTO"}} is dropped:
//     it is the API's default.
//   - an empty generationConfig is dropped: it is the same as none.
func normalizeRecorded(v any) any {
	m := v.(map[string]any)
	if gc, ok := m["generationConfig"].(map[string]any); ok && len(gc) == 0 {
		delete(m, "generationConfig")
	}
	if tc, ok := m["toolConfig"].(map[string]any); ok {
		if fcc, _ := tc["functionCallingConfig"].(map[string]any); len(tc) == 1 && len(fcc) == 1 && fcc["mode"] == "AUTO" {
			delete(m, "toolConfig")
		}
	}
	tools, _ := m["tools"].([]any)
	for _, tool := range tools {
		for _, d := range tool.(map[string]any)["functionDeclarations"].([]any) {
			decl := d.(map[string]any)
			delete(decl, "responseJsonSchema")
			if decl["description"] == "" {
				delete(decl, "description")
			}
			if p, ok := decl["parameters"]; ok {
				decl["parametersJsonSchema"] = lowerTypes(p)
				delete(decl, "parameters")
			}
		}
	}
	return m
}

func lowerTypes(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "type" {
				v[k] = strings.ToLower(s)
			} else {
				v[k] = lowerTypes(x)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = lowerTypes(x)
		}
	}
	return v
}

// normalizeOurs rewrites what rein sent where the recording cannot be
// reproduced field for field:
//
//   - functionResponse.response: rein's tool results are text and go as
//     {"output": text}; the recorded tools returned objects. The output,
//     which here is that object's JSON, must parse to the recorded
//     response, and is compared as such.
//   - thinkingConfig.thinkingBudget is dropped when the recording has none:
//     those clients left the budget to the model (dynamic thinking), while
//     rein always sends the budget of the requested level.
func normalizeOurs(t *testing.T, v, want any) any {
	t.Helper()
	m := v.(map[string]any)
	contents, _ := m["contents"].([]any)
	for _, c := range contents {
		for _, p := range c.(map[string]any)["parts"].([]any) {
			fr, ok := p.(map[string]any)["functionResponse"].(map[string]any)
			if !ok {
				continue
			}
			resp := fr["response"].(map[string]any)
			out, ok := resp["output"].(string)
			if !ok || len(resp) != 1 {
				t.Errorf("functionResponse.response is %v, want {output: text}", resp)
				continue
			}
			var parsed any
			if err := json.Unmarshal([]byte(out), &parsed); err != nil {
				t.Errorf("output %q: %v", out, err)
			}
			fr["response"] = parsed
		}
	}
	wgc, _ := want.(map[string]any)["generationConfig"].(map[string]any)
	wtc, _ := wgc["thinkingConfig"].(map[string]any)
	if gc, ok := m["generationConfig"].(map[string]any); ok {
		if tc, ok := gc["thinkingConfig"].(map[string]any); ok {
			if _, has := wtc["thinkingBudget"]; !has {
				delete(tc, "thinkingBudget")
			}
		}
	}
	return m
}
