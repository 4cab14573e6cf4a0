package subagent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/permission"
)

// Depth limits of nested agents. The root session is depth 0, its
// children depth 1.
const (
	DefaultMaxDepth = 2
	HardMaxDepth    = 5
)

// AgentTool is rein's name of the tool that spawns agents; Task and Agent
// are Claude Code's names for it.
const AgentTool = "agent"

// Policy is what an agent may do: the tools it may call, its permission
// mode and how deep it is nested. A child's Policy comes from its
// parent's through Restrict and never allows more.
type Policy struct {
	// Tools are rein's names of the allowed tools; nil allows every tool
	// on offer, an empty list none. "mcp__server" allows all of a
	// server's tools.
	Tools []string
	// Deny are rein's names of tools never allowed; it wins over Tools.
	Deny []string
	// Agents are the subagent_types the agent may spawn (from Agent(x, y)
	// in a definition's tools); nil allows every type.
	Agents []string
	// Mode is the permission mode.
	Mode permission.Mode
	// Depth is the agent's nesting: 0 for a root session.
	Depth int
	// MaxDepth is the deepest an agent may be; 0 means DefaultMaxDepth,
	// and anything above HardMaxDepth is HardMaxDepth.
	MaxDepth int
}

// DepthError is a spawn past the depth limit.
type DepthError struct {
	// Depth is the depth the child would have had; Max the limit.
	Depth, Max int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("an agent at depth %d would be past the nesting limit of %d (hard limit %d); do the work in this agent instead of delegating it", e.Depth, e.Max, HardMaxDepth)
}

// Code is the error's code for programs.
func (e *DepthError) Code() string { return "depth_limit" }

// Limit returns the effective maximum depth.
func (p Policy) Limit() int {
	switch {
	case p.MaxDepth <= 0:
		return DefaultMaxDepth
	case p.MaxDepth > HardMaxDepth:
		return HardMaxDepth
	}
	return p.MaxDepth
}

// Allows reports whether the policy lets the agent call tool (rein's
// name).
func (p Policy) Allows(tool string) bool {
	if listHas(p.Deny, tool) {
		return false
	}
	return p.Tools == nil || listHas(p.Tools, tool)
}

// AllowsAgent reports whether the agent may spawn an agent of the type.
func (p Policy) AllowsAgent(typ string) bool {
	if !p.Allows(AgentTool) {
		return false
	}
	return p.Agents == nil || slices.ContainsFunc(p.Agents, func(a string) bool { return strings.EqualFold(a, typ) })
}

// Stricter returns the stricter of two modes, in the order of
// permission.Modes (plan, ask, auto_read, auto_edit, auto_all): plan
// always wins. An empty mode counts as absent.
func Stricter(a, b permission.Mode) (permission.Mode, error) {
	rank := func(m permission.Mode) (int, error) {
		i := slices.Index(permission.Modes(), m)
		if i < 0 {
			return 0, fmt.Errorf("unknown permission mode %q", m)
		}
		return i, nil
	}
	switch {
	case a == "":
		_, err := rank(b)
		return b, err
	case b == "":
		_, err := rank(a)
		return a, err
	}
	ra, err := rank(a)
	if err != nil {
		return "", err
	}
	rb, err := rank(b)
	if err != nil {
		return "", err
	}
	if rb < ra {
		return b, nil
	}
	return a, nil
}

// Restrict returns the policy of a child the parent spawns from d: its
// tools are the parent's allowed tools intersected with d's, minus the
// parent's deny list and d's disallowedTools; its mode the stricter of
// the parent's and d's; its depth one more than the parent's. Tool names
// may be Claude Code's ("Read" is read, grep, find and ls). It returns a
// *DepthError when the child would be deeper than the limit; a child at
// the limit gets no agent tool. Restrict never returns a policy that
// allows a tool, an agent type or a mode the parent's does not.
func Restrict(parent Policy, d Definition) (Policy, error) {
	child := Policy{Depth: parent.Depth + 1, MaxDepth: parent.MaxDepth}
	if child.Depth > parent.Limit() {
		return Policy{}, &DepthError{Depth: child.Depth, Max: parent.Limit()}
	}
	mode, err := Stricter(parent.Mode, d.PermissionMode)
	if err != nil {
		return Policy{}, fmt.Errorf("agent %q: %w", d.Name, err)
	}
	if mode == "" {
		return Policy{}, fmt.Errorf("agent %q: the parent has no permission mode", d.Name)
	}
	child.Mode = mode

	var defTools, defAgents []string
	if d.Tools != nil {
		defTools, defAgents = reinNames(d.Tools)
		defTools = append([]string{}, defTools...) // non-nil: an empty list allows nothing
	}
	child.Tools = intersect(parent.Tools, defTools)
	deny, _ := reinNames(d.DisallowedTools)
	child.Deny = dedupe(append(slices.Clone(parent.Deny), deny...))
	if child.Depth >= child.Limit() {
		child.Deny = dedupe(append(child.Deny, AgentTool))
	}
	if child.Tools != nil {
		child.Tools = slices.DeleteFunc(child.Tools, func(t string) bool { return listHas(child.Deny, t) })
	}
	child.Agents = intersectAgents(parent.Agents, defAgents)
	return child, nil
}

// reinNames maps tool names as definitions write them to rein's; the
// types of Agent(x, y) / Task(x) entries are returned as agents (nil
// when no entry restricts them).
func reinNames(names []string) (tools, agents []string) {
	var restricted, all bool
	for _, n := range names {
		base, spec, hasSpec := strings.Cut(n, "(")
		base = strings.TrimSpace(base)
		if strings.HasPrefix(base, "mcp__") {
			tools = append(tools, strings.TrimSuffix(base, "__*"))
			continue
		}
		ts, _ := permission.ToolsNamed(base)
		tools = append(tools, ts...)
		if !slices.Contains(ts, AgentTool) {
			continue
		}
		restricted = true
		for _, a := range strings.Split(strings.TrimSuffix(spec, ")"), ",") {
			switch a = strings.TrimSpace(a); {
			case !hasSpec || a == "*":
				all = true
			case a != "":
				agents = append(agents, a)
			}
		}
	}
	switch {
	case all || !restricted:
		agents = nil
	case agents == nil:
		agents = []string{}
	}
	return dedupe(tools), agents
}

// listHas reports whether list allows tool: by name, or "mcp__server"
// for the server's tools.
func listHas(list []string, tool string) bool {
	for _, t := range list {
		if t == tool || strings.HasPrefix(t, "mcp__") && strings.Count(t, "__") == 1 && strings.HasPrefix(tool, t+"__") {
			return true
		}
	}
	return false
}

// intersect returns the tools both lists allow; nil allows all.
func intersect(a, b []string) []string {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return dedupe(b)
	case b == nil:
		return dedupe(a)
	}
	out := []string{}
	for _, t := range a {
		if listHas(b, t) {
			out = append(out, t)
		}
	}
	for _, t := range b {
		if listHas(a, t) {
			out = append(out, t)
		}
	}
	return dedupe(out)
}

func intersectAgents(a, b []string) []string {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := []string{}
	for _, x := range b {
		if slices.ContainsFunc(a, func(y string) bool { return strings.EqualFold(x, y) }) {
			out = append(out, x)
		}
	}
	return out
}

// dedupe sorts and compacts, keeping nil nil and empty empty.
func dedupe(s []string) []string {
	if s == nil {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
