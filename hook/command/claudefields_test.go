package command

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// PostToolUse hooks get Claude Code's tool_response fields: stdout and
// interrupted for Bash, filePath for Write and Edit; every event has
// permission_mode; CLAUDECODE=1 is in the environment.
func TestClaudeHookFields(t *testing.T) {
	c, _ := commands(t, `{"PostToolUse":[{"matcher":"Bash|Write","hooks":[{"type":"command","command":"cat > \"$CLAUDE_PROJECT_DIR/in.json\"; echo \"$CLAUDECODE\" > \"$CLAUDE_PROJECT_DIR/env\""}]}]}`)
	c.Mode = func() string { return "acceptEdits" }
	h := c.ToolMiddleware()(func(context.Context, *tool.Call) tool.Result { return tool.Text("hi\nexit code: 0\n") })
	h(context.Background(), bashCall)
	in := hookInput(t, c)
	resp, _ := in["tool_response"].(map[string]any)
	if resp["stdout"] != "hi" || resp["interrupted"] != false || in["permission_mode"] != "acceptEdits" {
		t.Fatalf("bash PostToolUse input: %v", in)
	}
	if env, _ := os.ReadFile(filepath.Join(c.ProjectDir, "env")); strings.TrimSpace(string(env)) != "1" {
		t.Fatalf("CLAUDECODE=%q", env)
	}
	write := &tool.Call{ID: "t2", Name: "write", Args: json.RawMessage(`{"path":"a.txt","content":"x"}`)}
	h = c.ToolMiddleware()(func(context.Context, *tool.Call) tool.Result { return tool.Text("wrote a.txt") })
	h(context.Background(), write)
	in = hookInput(t, c)
	resp, _ = in["tool_response"].(map[string]any)
	if resp["filePath"] != filepath.Join(c.ProjectDir, "a.txt") || resp["success"] != true {
		t.Fatalf("write PostToolUse input: %v", in)
	}
}

// Stop hooks get the model's last reply as last_assistant_message.
func TestStopLastAssistantMessage(t *testing.T) {
	c, _ := commands(t, `{"Stop":[{"hooks":[{"type":"command","command":"cat > \"$CLAUDE_PROJECT_DIR/in.json\""}]}]}`)
	h := hook.New()
	defer c.Install(h)()
	msg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("All tests pass.")}}
	if _, err := h.RunAgentStop(context.Background(), &hook.AgentStopEvent{Reason: "completed", Message: &msg}); err != nil {
		t.Fatal(err)
	}
	if in := hookInput(t, c); in["last_assistant_message"] != "All tests pass." {
		t.Fatalf("Stop input: %v", in)
	}
}
