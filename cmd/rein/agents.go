package main

import (
	"encoding/json"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/subagent"
	"github.com/spf13/cobra"
)

func newAgentsCmd(e *env) *cobra.Command {
	var workdir, agents string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the agent definitions found, from where, and what was shadowed or skipped",
		Long: `List the agents a model can delegate to, in Claude Code's format: --agents JSON,
then .rein/agents/*.md and .claude/agents/*.md in the workspace, then
~/.config/rein/agents/*.md and ~/.claude/agents/*.md, then the built-ins explore
and general. A name found twice keeps the first; the others are listed as
shadowed. Files that could not be read are listed as skipped, with the line and
the reason. See docs/agents.md.`,
		Example: `  rein agents
  rein agents --json
  rein agents --agents '{"reviewer": {"description": "Reviews diffs", "prompt": "You review code."}}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := flagText("agents", agents)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			o := coding.Options{Workdir: workdir, Getenv: e.getenv, Warn: e.warn, Agents: v}
			c, err := coding.AgentCatalog(o, nil)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			root, _ := coding.WorkspaceDir(workdir)
			l := subagent.Describe(c, subagent.ShortPaths(root, e.getenv("HOME")))
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(l)
			}
			return l.WriteTable(e.stdout)
		},
	}
	cmd.Flags().StringVarP(&workdir, "workdir", "C", "", "workspace directory (default: the project around the current directory)")
	cmd.Flags().StringVar(&agents, "agents", "", `agent definitions as JSON, as Claude Code's --agents takes them: {"NAME": {"description": …, "prompt": …}} (or @FILE)`)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the agents, shadowed and skipped definitions as JSON")
	return cmd
}

// addAgentsFlag adds Claude Code's --agents flag to a command that runs
// the agent.
func addAgentsFlag(cmd *cobra.Command, o *runOptions) {
	cmd.Flags().StringVar(&o.agents, "agents", "", `agent definitions as JSON, as Claude Code's --agents takes them: {"NAME": {"description": …, "prompt": …, "tools": […]}} (or @FILE); above the agent folders (rein agents lists them)`)
}

// checkAgentsFlag reads the @FILE form of --agents and refuses a value
// that is not a valid object of definitions, before anything starts.
func (o *runOptions) checkAgentsFlag() error {
	if o.agents == "" {
		return nil
	}
	v, err := flagText("agents", o.agents)
	if err != nil {
		return err
	}
	if _, err := subagent.Discover(subagent.DiscoverOptions{JSON: v, ConfigDir: "-", ClaudeDir: "-"}); err != nil {
		return err
	}
	o.agents = v
	return nil
}
