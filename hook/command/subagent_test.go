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

const saveInput = `cat > \"$CLAUDE_PROJECT_DIR/in.json\"`

// SubagentStart hooks match the agent type and get agent_id and
// agent_type; their additionalContext is returned, and exit status 2
// does not block.
func TestSubagentStartHook(t *testing.T) {
	c, reports := commands(t, `{"SubagentStart":[{"matcher":"explore","hooks":[{"type":"command","command":"`+saveInput+`; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"SubagentStart\",\"additionalContext\":\"use rg\"}}'"}]},
		{"matcher":"reviewer","hooks":[{"type":"command","command":"echo no >&2; exit 2"}]}]}`)
	v := c.SubagentStart(context.Background(), "a-1", "explore")
	in := hookInput(t, c)
	if in["hook_event_name"] != "SubagentStart" || in["agent_id"] != "a-1" || in["agent_type"] != "explore" || in["session_id"] != SessionUUID("s1") {
		t.Fatalf("SubagentStart input: %v", in)
	}
	if v.Context != "use rg" || v.Decision != "" {
		t.Fatalf("verdict %+v", v)
	}
	os.Remove(filepath.Join(c.ProjectDir, "in.json"))
	if v := c.SubagentStart(context.Background(), "a-2", "general"); v.Context != "" {
		t.Fatalf("general matched the explore hook: %+v", v)
	}
	if _, err := os.Stat(filepath.Join(c.ProjectDir, "in.json")); err == nil {
		t.Fatal("the explore hook ran for general")
	}
	if v := c.SubagentStart(context.Background(), "a-3", "reviewer"); v.Decision != "" {
		t.Fatalf("SubagentStart cannot block: %+v", v)
	}
	if len(*reports) != 1 || (*reports)[0].Message != "no" {
		t.Fatalf("exit 2 of SubagentStart is shown: %v", *reports)
	}
}

// SubagentStop from the parent's side: Claude Code's fields, a block
// keeps the agent going with the reason.
func TestSubagentStopHook(t *testing.T) {
	c, _ := commands(t, `{"SubagentStop":[{"matcher":"explore","hooks":[{"type":"command","command":"`+saveInput+`; echo '{\"decision\":\"block\",\"reason\":\"cite lines\"}'"}]}]}`)
	v := c.SubagentStop(context.Background(), SubagentStopInput{AgentID: "a-1", AgentType: "explore", TranscriptPath: "/tmp/child.jsonl", LastAssistantMessage: "found it"})
	in := hookInput(t, c)
	if in["agent_id"] != "a-1" || in["agent_type"] != "explore" || in["agent_transcript_path"] != "/tmp/child.jsonl" ||
		in["last_assistant_message"] != "found it" || in["stop_hook_active"] != false || in["hook_event_name"] != "SubagentStop" {
		t.Fatalf("SubagentStop input: %v", in)
	}
	if v.Decision != "block" || v.Reason != "cite lines" {
		t.Fatalf("verdict %+v", v)
	}
}

// In a child's session (AgentID set) every hook carries agent_id and
// agent_type, and the end of the run fires SubagentStop, not Stop.
func TestChildHooksCarryAgent(t *testing.T) {
	c, _ := commands(t, `{"Stop":[{"hooks":[{"type":"command","command":"touch \"$CLAUDE_PROJECT_DIR/stop-ran\""}]}],
		"SubagentStop":[{"matcher":"explore","hooks":[{"type":"command","command":"`+saveInput+`"}]}],
		"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"cat > \"$CLAUDE_PROJECT_DIR/pre.json\""}]}]}`)
	c.AgentID, c.AgentType = "a-7", "explore"
	c.TranscriptPath = "/tmp/child.jsonl"
	c.PreToolUse(context.Background(), bashCall, "plan")
	b, err := os.ReadFile(filepath.Join(c.ProjectDir, "pre.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"agent_id":"a-7"`) || !strings.Contains(s, `"agent_type":"explore"`) {
		t.Fatalf("PreToolUse in a child: %s", s)
	}
	h := hook.New()
	defer c.Install(h)()
	msg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("done")}}
	if _, err := h.RunAgentStop(context.Background(), &hook.AgentStopEvent{Reason: "completed", Message: &msg}); err != nil {
		t.Fatal(err)
	}
	in := hookInput(t, c)
	if in["hook_event_name"] != "SubagentStop" || in["agent_id"] != "a-7" || in["agent_transcript_path"] != "/tmp/child.jsonl" || in["last_assistant_message"] != "done" {
		t.Fatalf("SubagentStop input: %v", in)
	}
	if _, err := os.Stat(filepath.Join(c.ProjectDir, "stop-ran")); err == nil {
		t.Fatal("a child's end ran the Stop hook")
	}
	// The parent (no AgentID) runs Stop and sends no agent fields.
	p, _ := commands(t, `{"Stop":[{"hooks":[{"type":"command","command":"`+saveInput+`"}]}]}`)
	hp := hook.New()
	defer p.Install(hp)()
	if _, err := hp.RunAgentStop(context.Background(), &hook.AgentStopEvent{Reason: "completed", Message: &msg}); err != nil {
		t.Fatal(err)
	}
	if in := hookInput(t, p); in["hook_event_name"] != "Stop" || in["agent_id"] != nil {
		t.Fatalf("parent Stop input: %v", in)
	}
}

// PreToolUse hooks written for Claude Code's Agent (or older Task) tool
// match rein's agent tool and see its input as Claude Code gives it.
func TestAgentToolHookNames(t *testing.T) {
	for _, matcher := range []string{"Task", "Agent", "agent"} {
		c, _ := commands(t, `{"PreToolUse":[{"matcher":"`+matcher+`","hooks":[{"type":"command","command":"`+saveInput+`; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}'"}]}]}`)
		call := &tool.Call{ID: "t9", Name: "agent", Args: json.RawMessage(`{"subagent_type":"explore","description":"d","prompt":"look"}`)}
		v := c.PreToolUse(context.Background(), call, "default")
		if v.Decision != "deny" {
			t.Errorf("matcher %s: %+v", matcher, v)
			continue
		}
		in := hookInput(t, c)
		ti, _ := in["tool_input"].(map[string]any)
		if in["tool_name"] != "Agent" || ti["subagent_type"] != "explore" || ti["prompt"] != "look" {
			t.Errorf("matcher %s: input %v", matcher, in)
		}
	}
}
