package textcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/llm/llmtest"
	"github.com/reinhq/rein/tool"
)

func specs(names ...string) []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, n := range names {
		out = append(out, llm.ToolSpec{Name: n, Description: n + " tool", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)})
	}
	return out
}

// stream reads a stream with llmtest.Drain, which checks the provider
// contract.
func stream(t *testing.T, p llm.Provider, req *llm.Request) (llm.Message, []llm.Event, error) {
	t.Helper()
	s := llmtest.Drain(t, p.Stream(context.Background(), req))
	return s.Message, s.Events, s.Err
}

func kinds(m llm.Message) string {
	var k []string
	for _, c := range m.Content {
		k = append(k, string(c.Type))
	}
	return strings.Join(k, ",")
}

func counter() func() string {
	n := 0
	return func() string { n++; return "call_" + string(rune('0'+n)) }
}

func TestAutoTakesKnownTextCalls(t *testing.T) {
	inner := faux.New(
		faux.Text("Checking.\n<tool_call>{\"name\":\"ls\",\"arguments\":{\"path\":\".\"}}</tool_call>"),
		faux.Text("Use <tool_call>{\"name\":\"deploy\",\"arguments\":{}}</tool_call> to deploy."),
	)
	p := Wrap(inner, Options{Mode: Auto, NewID: counter()})
	req := &llm.Request{Model: faux.Model(), Tools: specs("ls", "read"), Messages: []llm.Message{llm.UserText("hi")}}
	m, _, err := stream(t, p, req)
	if err != nil {
		t.Fatal(err)
	}
	if kinds(m) != "text,tool_call" || m.StopReason != llm.StopToolUse || m.Content[1].Name != "ls" || m.Content[1].ID != "call_1" {
		t.Fatalf("auto: %s %s %+v", kinds(m), m.StopReason, m.Content)
	}
	// An unknown tool in the text stays text in auto mode.
	m, _, _ = stream(t, p, req)
	if kinds(m) != "text" || m.StopReason != llm.StopEnd || !strings.Contains(m.Text(), "deploy") {
		t.Fatalf("unknown tool: %s %s %q", kinds(m), m.StopReason, m.Text())
	}
	// Auto sends the tools natively and leaves the request alone.
	if got := inner.Requests(); len(got) != 2 || len(got[0].Tools) != 2 {
		t.Errorf("inner requests: %+v", got)
	}
}

func TestNativeBlocksPassThrough(t *testing.T) {
	msg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{
		llm.Thinking("plan", "sig-123"),
		llm.Text("Reading."),
		llm.ToolCall("native_1", "read", json.RawMessage(`{"path":"a"}`)),
	}, Usage: &llm.Usage{Input: 10, Output: 5}}
	p := Wrap(faux.New(faux.Reply{Message: &msg}), Options{Mode: Auto})
	m, _, err := stream(t, p, &llm.Request{Model: faux.Model(), Tools: specs("read")})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Content{llm.Thinking("plan", "sig-123"), llm.Text("Reading."), llm.ToolCall("native_1", "read", json.RawMessage(`{"path":"a"}`))}
	if diff := cmp.Diff(want, m.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if m.Usage == nil || m.Usage.Input != 10 || m.StopReason != llm.StopToolUse {
		t.Errorf("usage %+v stop %s", m.Usage, m.StopReason)
	}
}

func TestTextModeRewritesRequest(t *testing.T) {
	inner := faux.New(faux.Text("<think>ok</think>Done."))
	p := Wrap(inner, Options{Mode: Text})
	img := llm.Image("aGk=", "image/png")
	req := &llm.Request{
		Model:  faux.Model(),
		System: []llm.SystemPart{{Text: "stable"}, {Text: "volatile", Volatile: true}},
		Tools:  specs("read", "ls"),
		Messages: []llm.Message{
			llm.UserText("look"),
			{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Two calls."), llm.ToolCall("c1", "read", json.RawMessage(`{"path":"a"}`)), llm.ToolCall("c2", "ls", nil)}},
			llm.ToolResult("c1", "read", false, llm.Text("contents of a"), img),
			llm.ToolResult("c2", "ls", true, llm.Text("no such dir")),
		},
	}
	m, _, err := stream(t, p, req)
	if err != nil {
		t.Fatal(err)
	}
	if kinds(m) != "thinking,text" || m.Content[0].Text != "ok" {
		t.Errorf("reply: %s %+v", kinds(m), m.Content)
	}
	got := inner.Requests()[0]
	if got.Tools != nil {
		t.Error("tools sent natively in text mode")
	}
	if len(got.System) != 3 || !strings.Contains(got.System[1].Text, "<tools>") || got.System[2].Text != "volatile" {
		t.Errorf("system: %+v", got.System)
	}
	if len(got.Messages) != 3 {
		t.Fatalf("messages: %+v", got.Messages)
	}
	a := got.Messages[1]
	if a.Role != llm.RoleAssistant || len(a.ToolCalls()) != 0 || !strings.Contains(a.Text(), "Two calls.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\":\"a\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>") {
		t.Errorf("assistant: %q", a.Text())
	}
	u := got.Messages[2]
	wantText := "<tool_response>\ncontents of a\n</tool_response>\n<tool_response>\nError from ls: no such dir\n</tool_response>"
	if u.Role != llm.RoleUser || u.Text() != wantText || kinds(u) != "text,image" {
		t.Errorf("results: %s %q", kinds(u), u.Text())
	}
	// The caller's request is untouched.
	if len(req.Tools) != 2 || len(req.Messages) != 4 || len(req.System) != 2 {
		t.Error("the request was modified")
	}
}

func TestMalformedCallGetsActionableError(t *testing.T) {
	p := Wrap(faux.New(faux.Text(`<tool_call>{"name": "read", "arguments": {"path": "a.go"</tool_call>`)), Options{Mode: Text})
	m, _, err := stream(t, p, &llm.Request{Model: faux.Model(), Tools: specs("read")})
	if err != nil {
		t.Fatal(err)
	}
	calls := m.ToolCalls()
	if len(calls) != 1 || calls[0].Name != "read" || calls[0].ArgumentsObject() {
		t.Fatalf("calls: %+v", calls)
	}
	reg, _ := tool.NewRegistry(&tool.Tool{Name: "read", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		Run: func(context.Context, *tool.Call) tool.Result { return tool.Text("ran") }})
	res := reg.Execute(context.Background(), &tool.Call{ID: calls[0].ID, Name: "read", Args: calls[0].Arguments})
	if !res.IsError || !strings.Contains(res.Text(), "could not be read: its JSON does not parse") {
		t.Errorf("result: %s", res.Text())
	}
	// The next request shows the model the call as it wrote it.
	back := Rewrite([]llm.Message{m}, Hermes{})
	if want := "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.go\"\n</tool_call>"; back[0].Text() != want {
		t.Errorf("written back as %q, want %q", back[0].Text(), want)
	}
}

func TestErrorsAndEarlyBreak(t *testing.T) {
	boom := &llm.Error{Code: llm.CodeServerError, Message: "boom"}
	p := Wrap(faux.New(faux.Fail(boom)), Options{Mode: Text})
	m, _, err := stream(t, p, &llm.Request{Model: faux.Model(), Tools: specs("read")})
	if !errors.Is(err, boom) && (err == nil || !strings.Contains(err.Error(), "boom")) || m.StopReason != llm.StopError {
		t.Errorf("error: %v %s", err, m.StopReason)
	}
	p = Wrap(faux.New(faux.Text("a <tool_call>{\"name\":\"read\",\"arguments\":{}}</tool_call> b")), Options{Mode: Text})
	n := 0
	for range p.Stream(context.Background(), &llm.Request{Model: faux.Model(), Tools: specs("read")}) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("events after break: %d", n)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Native, "native": Native, "TEXT": Text, " auto ": Auto} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseMode("xml"); err == nil || !strings.Contains(err.Error(), `"text"`) {
		t.Errorf("bad mode: %v", err)
	}
}
