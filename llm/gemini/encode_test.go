package gemini

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

// Kept fields never repeat a field the part or call already has, and
// Options.Extra replaces or deletes modelled top-level fields.
func TestKeptFieldsAndExtraOverModelled(t *testing.T) {
	req := &llm.Request{
		Model: testModel("gemini-2.5-flash", ""),
		Tools: []llm.ToolSpec{sumTool},
		Messages: []llm.Message{llm.UserText("hi"), {Role: llm.RoleAssistant, API: llm.APIGemini, Content: []llm.Content{
			{Type: llm.ContentText, Text: "x", Signature: "sig", Extra: json.RawMessage(`{"text":"dup","thoughtSignature":"old","thought":true,"future":1}`)},
			{Type: llm.ContentToolCall, ID: "c1", Name: "sum", Arguments: json.RawMessage(`{"a":1}`),
				Extra: json.RawMessage(`{"functionCall":{"name":"other","args":{},"id":"kept-id","willContinue":false}}`)},
		}}, llm.ToolResult("c1", "sum", false, llm.Text("1"))},
		Options: llm.Options{Extra: map[string]json.RawMessage{"tools": json.RawMessage(`[]`), "generationConfig": json.RawMessage(` null `)}},
	}
	body, err := buildPayload(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !jsontext.Value(body).IsValid() { // rejects repeated names
		t.Fatalf("invalid JSON or a repeated name: %s", body)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"contents": []any{
			map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}},
			map[string]any{"role": "model", "parts": []any{
				map[string]any{"text": "x", "thoughtSignature": "sig", "thought": true, "future": 1.0},
				map[string]any{"functionCall": map[string]any{"name": "sum", "args": map[string]any{"a": 1.0}, "id": "c1", "willContinue": false}},
			}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "sum", "response": map[string]any{"output": "1"}}}}},
		},
		"tools": []any{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payload (-want +got):\n%s\n%s", diff, body)
	}
}
