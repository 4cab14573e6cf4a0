package llm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSendable(t *testing.T) {
	call := func(id string) Content { return ToolCall(id, "read", []byte(`{}`)) }
	msgs := []Message{
		UserText("hi"),
		{Role: RoleAssistant, API: APIOpenAIChat, Content: []Content{Thinking("plan", "sig"), {Type: ContentThinking, Redacted: true, Signature: "x"}, call("a"), call("b")}},
		ToolResult("a", "read", false, Text("A")),
		UserText("steer"),
		{Role: RoleAssistant, API: APIAnthropicMessages, StopReason: StopError, Content: []Content{call("c")}},
		ToolResult("c", "read", false, Text("C")),
		ToolResult("zz", "read", false, Text("orphan")),
		{Role: RoleAssistant, API: APIAnthropicMessages},
		{Role: RoleAssistant, API: APIAnthropicMessages, Content: []Content{Thinking("keep", "s2"), Text("done")}},
	}
	before := len(msgs[1].Content)
	got := Sendable(msgs, APIAnthropicMessages)
	want := []Message{
		UserText("hi"),
		{Role: RoleAssistant, API: APIOpenAIChat, Content: []Content{Text("plan"), call("a"), call("b")}},
		ToolResult("a", "read", false, Text("A")),
		ToolResult("b", "read", true, Text("No result was recorded for this tool call; it was interrupted before it finished.")),
		UserText("steer"),
		{Role: RoleAssistant, API: APIAnthropicMessages, Content: []Content{Thinking("keep", "s2"), Text("done")}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Sendable (-want +got):\n%s", d)
	}
	if len(msgs[1].Content) != before {
		t.Fatal("Sendable modified its input")
	}
}
