// Package subagent delegates work to child agents: agent definitions in
// Claude Code's format, the agent tool a model calls, and the registry of
// children rebuilt from the session log.
//
// A child is an ordinary session linked to its parent. Its tools are the
// parent's allowed tools intersected with its definition's, minus both deny
// lists; its permission mode is the stricter of the two. A child can never
// do what its parent could not.
package subagent

import (
	"encoding/json"
	"time"

	"github.com/reinhq/rein/permission"
)

// Definition is one agent a model may delegate to, as read from a
// `.claude/agents/*.md` or `.rein/agents/*.md` file (front matter plus a
// body that becomes the child's system prompt), from `--agents JSON`, or
// built in (`explore`, `general`).
type Definition struct {
	// Name is the subagent_type the model passes; unique after discovery.
	Name string
	// Description tells the parent model when to use the agent.
	Description string
	// Prompt is the child's system prompt (the file body).
	Prompt string
	// Tools lists the tools the child may use, Claude Code names or rein's;
	// nil means all of the parent's tools.
	Tools []string
	// DisallowedTools are removed from whatever Tools allows.
	DisallowedTools []string
	// Model names the child's model; "" or "inherit" uses the parent's.
	Model string
	// PermissionMode is the mode the definition asks for; "" inherits. The
	// child runs in the stricter of this and the parent's mode.
	PermissionMode permission.Mode
	// MaxTurns bounds the child's turns; 0 means the default.
	MaxTurns int
	// Skills and MCPServers name skills and MCP servers the child gets.
	Skills     []string
	MCPServers []string
	// MCPConfigs holds the servers a definition configures inline
	// (mcpServers: [{name: config}]), by name, as JSON in the mcpServers
	// format; their names are in MCPServers too.
	MCPConfigs map[string]json.RawMessage
	// Background makes the agent run in the background by default.
	Background bool
	// Timeout bounds a child without progress; 0 means the default.
	Timeout time.Duration
	// Budget is what one run of the agent may spend (rein's keys
	// maxCostUsd, maxInputTokens, maxOutputTokens). The child's budget is
	// the smaller of this and what its parent's run has left.
	Budget Budget

	// Source is where the definition came from: a file path, "--agents",
	// or "builtin".
	Source string
	// Scope is where Source sits: "cli" (--agents), "project", "user" or
	// "builtin", highest precedence first.
	Scope string
	// Warnings are problems that did not stop the definition from loading
	// (unknown front-matter keys, unknown tools), said once by `rein agents`.
	Warnings []string
}

// Budget bounds what a child may spend; a zero field sets no limit of the
// definition's own. InputTokens counts every prompt token the child's
// requests send, OutputTokens every reply token, as rein's
// --max-input-tokens and --max-output-tokens do.
type Budget struct {
	CostUSD      float64 `json:"maxCostUsd,omitempty"`
	InputTokens  int     `json:"maxInputTokens,omitempty"`
	OutputTokens int     `json:"maxOutputTokens,omitempty"`
}

// IsZero reports whether the budget sets no limit.
func (b Budget) IsZero() bool { return b == Budget{} }
