package subagent

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/permission"
)

// Every parent mode × every child mode (and an inheriting child): the
// child runs in the stricter, plan always wins, and never a freer mode
// than the parent's.
func TestRestrictModeMatrix(t *testing.T) {
	modes := permission.Modes()
	rank := func(m permission.Mode) int { return slices.Index(modes, m) }
	want := map[[2]permission.Mode]permission.Mode{}
	for _, p := range modes {
		want[[2]permission.Mode{p, ""}] = p
		for _, c := range modes {
			want[[2]permission.Mode{p, c}] = modes[min(rank(p), rank(c))]
		}
	}
	// The order itself, spelled out so that a change to it shows here.
	// dont_ask sits next to plan: it never asks and never lets more run
	// than a read-only mode, so a child under it or ask runs under it.
	if !slices.Equal(modes, []permission.Mode{permission.ModePlan, permission.ModeDontAsk, permission.ModeAsk, permission.ModeAutoRead, permission.ModeAutoEdit, permission.ModeAutoAll}) {
		t.Fatalf("permission.Modes() changed order: %v", modes)
	}
	for k, w := range want {
		got, err := Restrict(Policy{Mode: k[0]}, Definition{Name: "x", PermissionMode: k[1]})
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if got.Mode != w {
			t.Errorf("parent %s, definition %q: child %s, want %s", k[0], k[1], got.Mode, w)
		}
		if rank(got.Mode) > rank(k[0]) {
			t.Errorf("parent %s, definition %q: child %s is freer than its parent", k[0], k[1], got.Mode)
		}
		if (k[0] == permission.ModePlan || k[1] == permission.ModePlan) && got.Mode != permission.ModePlan {
			t.Errorf("plan did not propagate: parent %s, definition %q: %s", k[0], k[1], got.Mode)
		}
	}
	if len(want) != 42 {
		t.Fatalf("matrix has %d cells, want 6×7", len(want))
	}
	if _, err := Restrict(Policy{Mode: "yolo"}, Definition{}); err == nil {
		t.Error("an unknown parent mode should be an error")
	}
	if _, err := Restrict(Policy{}, Definition{}); err == nil {
		t.Error("a parent without a mode should be an error")
	}
}

func TestRestrictTools(t *testing.T) {
	for _, tc := range []struct {
		name       string
		parent     Policy
		def        Definition
		tools      []string
		deny       []string
		agents     []string
		allows     []string
		disallowed []string
	}{
		{name: "both all", parent: Policy{}, def: Definition{}, tools: nil, deny: nil,
			allows: []string{"bash", "write", "agent"}},
		{name: "definition narrows, Claude names", parent: Policy{}, def: Definition{Tools: []string{"Read", "Bash(git *)"}},
			tools: []string{"bash", "find", "grep", "ls", "read"}, allows: []string{"grep", "bash"}, disallowed: []string{"write", "edit"}},
		{name: "intersection", parent: Policy{Tools: []string{"read", "grep", "write"}}, def: Definition{Tools: []string{"Read", "Edit"}},
			tools: []string{"grep", "read", "write"}, disallowed: []string{"ls", "edit", "bash"}},
		{name: "deny lists", parent: Policy{Deny: []string{"bash"}}, def: Definition{Tools: []string{"bash", "read", "write"}, DisallowedTools: []string{"Write"}},
			tools: []string{"read"}, deny: []string{"bash", "write"}, disallowed: []string{"bash", "write"}},
		{name: "no tools", parent: Policy{}, def: Definition{Tools: []string{}}, tools: []string{}, disallowed: []string{"read"}},
		{name: "mcp server", parent: Policy{Tools: []string{"mcp__gh", "read"}}, def: Definition{Tools: []string{"mcp__gh__issue", "mcp__db__q"}},
			tools: []string{"mcp__gh__issue"}, allows: []string{"mcp__gh__issue"}, disallowed: []string{"mcp__gh__pr", "mcp__db__q", "read"}},
		{name: "agent types", parent: Policy{Agents: []string{"explore", "reviewer"}}, def: Definition{Tools: []string{"Read", "Task(Explore, planner)"}},
			tools: []string{"agent", "find", "grep", "ls", "read"}, agents: []string{"Explore"}},
		{name: "plain Agent keeps all types", parent: Policy{}, def: Definition{Tools: []string{"Agent(explore)", "Agent"}},
			tools: []string{"agent"}, agents: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.parent.Mode = permission.ModeAutoAll
			got, err := Restrict(tc.parent, tc.def)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.tools, got.Tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.deny, got.Deny); diff != "" {
				t.Errorf("deny (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.agents, got.Agents); diff != "" {
				t.Errorf("agents (-want +got):\n%s", diff)
			}
			for _, a := range tc.allows {
				if !got.Allows(a) {
					t.Errorf("%s should be allowed", a)
				}
			}
			for _, a := range tc.disallowed {
				if got.Allows(a) {
					t.Errorf("%s should not be allowed", a)
				}
			}
		})
	}
	p, _ := Restrict(Policy{Mode: permission.ModeAsk}, Definition{Tools: []string{"Task(explore)"}})
	if !p.AllowsAgent("Explore") || p.AllowsAgent("general") {
		t.Errorf("AllowsAgent with Task(explore): %+v", p)
	}
}

// Depth: root 0, default limit 2, a configured limit capped at 5; past
// it a *DepthError; at it, no agent tool.
func TestRestrictDepth(t *testing.T) {
	root := Policy{Mode: permission.ModeAutoAll}
	c1, err := Restrict(root, Definition{})
	if err != nil || c1.Depth != 1 || !c1.Allows(AgentTool) {
		t.Fatalf("depth 1: %+v %v", c1, err)
	}
	c2, err := Restrict(c1, Definition{})
	if err != nil || c2.Depth != 2 || c2.Allows(AgentTool) {
		t.Fatalf("depth 2 (the default limit) should lose the agent tool: %+v %v", c2, err)
	}
	_, err = Restrict(c2, Definition{})
	var de *DepthError
	if !errors.As(err, &de) || de.Depth != 3 || de.Max != DefaultMaxDepth || de.Code() != "depth_limit" {
		t.Fatalf("depth 3: %v", err)
	}
	p := Policy{Mode: permission.ModeAsk, MaxDepth: 99}
	var n int
	for {
		q, err := Restrict(p, Definition{})
		if err != nil {
			if !errors.As(err, &de) || de.Max != HardMaxDepth {
				t.Fatalf("past the hard limit: %v", err)
			}
			break
		}
		p, n = q, n+1
	}
	if n != HardMaxDepth {
		t.Errorf("nested %d deep with MaxDepth 99, want the hard limit %d", n, HardMaxDepth)
	}
}

// A child never gets a tool, an agent type or a mode its parent lacks,
// over random parents and definitions, nested several deep.
func TestRestrictNeverEscalates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"read", "write", "edit", "bash", "grep", "find", "ls", "agent", "mcp__gh", "mcp__gh__issue", "mcp__db__q",
		"Read", "Edit", "Bash", "Glob", "Task", "Agent(explore)", "Task(general, explore)", "Write"}
	probe := []string{"read", "write", "edit", "bash", "grep", "find", "ls", "agent", "mcp__gh__issue", "mcp__gh__pr", "mcp__db__q", "other"}
	types := []string{"explore", "general", "reviewer"}
	modes := append(permission.Modes(), "")
	pick := func() []string {
		if rng.IntN(4) == 0 {
			return nil
		}
		var out []string
		for range rng.IntN(5) {
			out = append(out, names[rng.IntN(len(names))])
		}
		if out == nil {
			out = []string{}
		}
		return out
	}
	rank := func(m permission.Mode) int { return slices.Index(permission.Modes(), m) }
	for i := range 5000 {
		parent := Policy{Mode: permission.Modes()[rng.IntN(5)], MaxDepth: rng.IntN(7)}
		if rng.IntN(2) == 0 {
			parent.Tools, _ = reinNames(pick())
			if parent.Tools == nil {
				parent.Tools = []string{}
			}
		}
		if rng.IntN(3) == 0 {
			parent.Deny, _ = reinNames(pick())
		}
		if rng.IntN(3) == 0 {
			parent.Agents = []string{types[rng.IntN(3)]}
		}
		for depth := 0; depth < 7; depth++ {
			d := Definition{Name: "d", Tools: pick(), DisallowedTools: pick(), PermissionMode: modes[rng.IntN(len(modes))]}
			child, err := Restrict(parent, d)
			if err != nil {
				var de *DepthError
				if !errors.As(err, &de) || parent.Depth+1 <= parent.Limit() {
					t.Fatalf("case %d: %v", i, err)
				}
				break
			}
			if rank(child.Mode) > rank(parent.Mode) {
				t.Fatalf("case %d: mode %s under a %s parent", i, child.Mode, parent.Mode)
			}
			if child.Depth != parent.Depth+1 || child.Depth > HardMaxDepth {
				t.Fatalf("case %d: depth %d under %d", i, child.Depth, parent.Depth)
			}
			for _, tool := range probe {
				if child.Allows(tool) && !parent.Allows(tool) {
					t.Fatalf("case %d: child allows %s, parent %+v does not (definition %+v, child %+v)", i, tool, parent, d, child)
				}
			}
			for _, typ := range types {
				if child.AllowsAgent(typ) && !parent.AllowsAgent(typ) {
					t.Fatalf("case %d: child may spawn %s, parent %+v may not (child %+v)", i, typ, parent, child)
				}
			}
			parent = child
		}
	}
}
