package permission

import (
	"errors"
	"slices"
	"testing"
)

// Agent(type) and Task(type) rules match the agent tool by the
// subagent_type of the call, without regard to case; a bare Agent or
// Task rule matches every spawn.
func TestAgentRules(t *testing.T) {
	g := New(Options{Mode: ModeAsk, Workdir: "/w", Rules: rules(t, "/w",
		[]string{"Agent(explore)", "Task(Reviewer, planner)"}, nil, []string{"Agent(deployer)"})})
	for _, tc := range []struct {
		typ  string
		want Effect
	}{
		{"explore", Allow},
		{"Explore", Allow},
		{"reviewer", Allow},
		{"planner", Allow},
		{"deployer", Deny},
		{"general", Ask},
		{"", Ask},
	} {
		v := decide(g, call("agent", map[string]any{"subagent_type": tc.typ, "prompt": "look", "description": "d"}))
		if v.Effect != tc.want {
			t.Errorf("agent %q: %s by %s (%s), want %s", tc.typ, v.Effect, v.By, v.Rule, tc.want)
		}
	}
	all := New(Options{Mode: ModeAsk, Workdir: "/w", Rules: rules(t, "/w", nil, nil, []string{"Task"})})
	if v := decide(all, call("agent", map[string]any{"subagent_type": "explore"})); v.Effect != Deny || v.Rule != "Task" {
		t.Errorf("Task denies every spawn: %+v", v)
	}
	// An Agent rule says nothing about other tools.
	if v := decide(all, call("read", map[string]any{"path": "a"})); v.Effect != Ask {
		t.Errorf("read under a Task deny rule: %+v", v)
	}
}

func TestAgentRuleNames(t *testing.T) {
	for _, name := range []string{"Agent", "Task", "Agent(explore)"} {
		ts, known := ToolsNamed(name)
		if !known || !slices.Equal(ts, []string{"agent"}) {
			t.Errorf("ToolsNamed(%q) = %v, %v; want [agent], true", name, ts, known)
		}
	}
	r, err := ParseRule("Agent(explore)", Allow, "s.json", PathBase{})
	if err != nil || !r.Known([]string{"read", "agent"}) || r.Known([]string{"read"}) {
		t.Errorf("Agent(explore): %v, known with agent on offer %v", err, r.Known([]string{"agent"}))
	}
	_, err = ParseRule("Agent( , )", Allow, "s.json", PathBase{})
	var re *RuleError
	if !errors.As(err, &re) {
		t.Errorf("Agent( , ): err = %v, want a *RuleError", err)
	}
}
