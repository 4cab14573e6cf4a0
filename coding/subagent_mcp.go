package coding

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/subagent"
)

// childMCP returns the MCP servers a child of definition def starts: the
// servers its mcpServers names, looked up among the parent's configured
// ones (which passed workspace trust already), and the servers it
// configures inline — those only when def's file is the user's (user
// folders, --agents, built-ins) or, for a workspace's file, when the
// user trusts the whole workspace for this run (see docs/agents.md). It
// returns a note for each server it leaves out, naming the file.
//
// A server the root session turned off (Options.DisableMCP) or that pol denies
// ("mcp__name" in a deny list) is left out too.
func (a *Agent) childMCP(def subagent.Definition, pol subagent.Policy) (map[string]mcp.ServerConfig, []string) {
	if len(def.MCPServers) == 0 {
		return nil, nil
	}
	var notes []string
	note := func(format string, args ...any) {
		notes = append(notes, fmt.Sprintf("agent %s (%s): ", def.Name, def.Source)+fmt.Sprintf(format, args...))
	}
	// The user's choices are the root session's: a child's own options
	// turn every configured server off.
	ro := a.root().s.o
	if slices.Contains(ro.DisableMCP, "all") || a.s.noTools() {
		note("its MCP servers (%s) are not started: MCP is turned off for this session", strings.Join(def.MCPServers, ", "))
		return nil, notes
	}
	var configured *mcp.Config
	out := map[string]mcp.ServerConfig{}
	deny := subagent.Policy{Deny: pol.Deny}
	for _, name := range def.MCPServers {
		if !deny.Allows("mcp__" + name) {
			note("the MCP server %s is not started: its tools are denied to the agent", name)
			continue
		}
		if raw, ok := def.MCPConfigs[name]; ok {
			if !a.inlineMCPTrusted(def) {
				note("the MCP server %s it configures is not started: a workspace's agent files are not covered by rein trust; "+
					"put the server in .mcp.json (which rein trust covers) and name it in mcpServers, or trust the workspace for the run with REIN_TRUST_WORKSPACE=1", name)
				continue
			}
			doc, _ := json.Marshal(map[string]map[string]json.RawMessage{"mcpServers": {name: raw}})
			cfg, err := mcp.Parse(def.Source, doc)
			if err != nil {
				note("the MCP server %s is not started: %v", name, err)
				continue
			}
			out[name] = cfg.Servers[name]
			continue
		}
		if sc, ok := ro.MCPServers[name]; ok {
			out[name] = sc
			continue
		}
		if configured == nil {
			var err error
			if configured, err = mcpConfig(ro, a.s.ws.Root, ro.DisableMCP, a.s.trust, false); err != nil {
				note("its MCP servers are not started: %v", err)
				return nil, notes
			}
		}
		sc, ok := configured.Servers[name]
		switch {
		case !ok:
			note("mcpServers names %q, which is not a configured MCP server (configured: %s)", name, orNone(configured.Names()))
		case sc.Disabled:
			note("the MCP server %s is disabled for this session", name)
		default:
			out[name] = sc
		}
	}
	return out, notes
}

// inlineMCPTrusted reports whether the servers def configures inline may
// start: the user's own definitions may; a workspace's only when the
// user trusts the workspace for this run (REIN_TRUST_WORKSPACE=1, or
// confirming its content as this run began).
func (a *Agent) inlineMCPTrusted(def subagent.Definition) bool {
	switch def.Scope {
	case subagent.ScopeUser, subagent.ScopeCLI, subagent.ScopeBuiltin:
		return true
	}
	return a.s.trust != nil && a.s.trust.Override
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// noteOnce passes msg to Warn the first time the agent sees it.
func (a *Agent) noteOnce(msg string) {
	a.smu.Lock()
	seen := a.noted[msg]
	if a.noted == nil {
		a.noted = map[string]bool{}
	}
	a.noted[msg] = true
	a.smu.Unlock()
	if !seen {
		a.s.o.Warn(msg)
	}
}
