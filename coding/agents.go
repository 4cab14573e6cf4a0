package coding

import (
	"path/filepath"

	"github.com/reinhq/rein/subagent"
)

// SmallModelAlias is the config alias that names the cheaper model the
// built-in explore agent runs on ("aliases": {"small": "haiku"}); without
// it explore uses its parent's model.
const SmallModelAlias = "small"

// AgentCatalog finds the agent definitions of o's workspace (see
// subagent.Discover): o.Agents (--agents JSON), .rein/agents and
// .claude/agents, the user's ~/.config/rein/agents and ~/.claude/agents
// ($CLAUDE_CONFIG_DIR/agents when set), and the built-ins. tools are
// rein's names of the tools on offer, to warn about definitions naming
// others; nil means rein's own. Config warnings go to o.Warn; the
// catalog's own notes are left to the caller (Catalog.Notes). A
// malformed o.Agents is a *subagent.JSONError.
func AgentCatalog(o Options, tools []string) (*subagent.Catalog, error) {
	o.defaults()
	ws, err := OpenWorkspace(o.Workdir)
	if err != nil {
		return nil, err
	}
	small := ""
	if cat, err := Catalog(o, ws.Root); err == nil {
		small = cat.Config().Aliases[SmallModelAlias]
	}
	return subagent.Discover(AgentDiscoverOptions(o, ws.Root, small, tools))
}

// AgentDiscoverOptions are the discovery options for the workspace root
// with o's environment and --agents value; small is the model explore
// uses ("" for its parent's).
func AgentDiscoverOptions(o Options, root, small string, tools []string) subagent.DiscoverOptions {
	getenv := o.Getenv
	d := subagent.DiscoverOptions{Workdir: root, Home: getenv("HOME"), JSON: o.Agents, SmallModel: small, Tools: tools,
		ConfigDir: ConfigDir(getenv), ClaudeDir: getenv("CLAUDE_CONFIG_DIR")}
	if d.ConfigDir == "" {
		d.ConfigDir = "-"
	}
	if d.ClaudeDir == "" && d.Home != "" {
		d.ClaudeDir = filepath.Join(d.Home, ".claude")
	}
	if d.ClaudeDir == "" {
		d.ClaudeDir = "-"
	}
	return d
}
