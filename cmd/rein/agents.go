package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

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
			show := func(p string) string { return shownPath(root, e.getenv("HOME"), p) }
			if asJSON {
				return writeAgentsJSON(e.stdout, c, show)
			}
			printAgents(e.stdout, c, show)
			return nil
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

// shownPath shows a definition's source relative to the workspace, or
// with ~ for the home directory.
func shownPath(root, home, p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if root != "" {
		if rel := relPath(root, p); rel != p {
			return rel
		}
	}
	if home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}

func printAgents(w io.Writer, c *subagent.Catalog, show func(string) string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tMODEL\tTOOLS\tSOURCE\tDESCRIPTION")
	for _, d := range c.All() {
		model := d.Model
		if model == "" || model == "inherit" {
			model = "(parent's)"
		}
		tools := "(parent's)"
		if d.Tools != nil {
			tools = strings.Join(d.Tools, ", ")
			if tools == "" {
				tools = "(none)"
			}
		}
		if len(d.DisallowedTools) > 0 {
			tools += " −" + strings.Join(d.DisallowedTools, ", −")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.Scope, model, tools, show(d.Source), shortText(d.Description, 60))
	}
	tw.Flush()
	var warns []string
	for _, d := range c.All() {
		for _, x := range d.Warnings {
			warns = append(warns, fmt.Sprintf("%s (%s): %s", d.Name, show(d.Source), x))
		}
	}
	section(w, "warnings", warns)
	var shadowed []string
	for _, s := range c.Shadowed {
		shadowed = append(shadowed, fmt.Sprintf("%s from %s, hidden by the one from %s", s.Name, show(s.Loser), show(s.Winner)))
	}
	section(w, "shadowed", shadowed)
	var skipped []string
	for _, s := range c.Skipped {
		s.Path = show(s.Path)
		skipped = append(skipped, s.String())
	}
	section(w, "skipped", skipped)
}

// shortText is s on one line, cut to n runes with an ellipsis.
func shortText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func section(w io.Writer, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// agentJSON is one definition in rein agents --json, keyed as the front
// matter is.
type agentJSON struct {
	Name            string                     `json:"name"`
	Description     string                     `json:"description"`
	Scope           string                     `json:"scope"`
	Source          string                     `json:"source"`
	Model           string                     `json:"model,omitempty"`
	Tools           []string                   `json:"tools"`
	DisallowedTools []string                   `json:"disallowedTools,omitempty"`
	PermissionMode  string                     `json:"permissionMode,omitempty"`
	MaxTurns        int                        `json:"maxTurns,omitempty"`
	Skills          []string                   `json:"skills,omitempty"`
	MCPServers      []string                   `json:"mcpServers,omitempty"`
	MCPConfigs      map[string]json.RawMessage `json:"mcpConfigs,omitempty"`
	Background      bool                       `json:"background,omitempty"`
	Timeout         string                     `json:"timeout,omitempty"`
	subagent.Budget                            // maxCostUsd, maxInputTokens, maxOutputTokens
	Prompt          string                     `json:"prompt"`
	Warnings        []string                   `json:"warnings,omitempty"`
}

func writeAgentsJSON(w io.Writer, c *subagent.Catalog, show func(string) string) error {
	type shadowJSON struct {
		Name   string `json:"name"`
		Winner string `json:"winner"`
		Loser  string `json:"loser"`
	}
	type skippedJSON struct {
		Path   string `json:"path"`
		Line   int    `json:"line,omitempty"`
		Name   string `json:"name,omitempty"`
		Reason string `json:"reason"`
	}
	out := struct {
		Agents   []agentJSON   `json:"agents"`
		Shadowed []shadowJSON  `json:"shadowed"`
		Skipped  []skippedJSON `json:"skipped"`
	}{Agents: []agentJSON{}, Shadowed: []shadowJSON{}, Skipped: []skippedJSON{}}
	for _, d := range c.All() {
		a := agentJSON{Name: d.Name, Description: d.Description, Scope: d.Scope, Source: show(d.Source), Model: d.Model,
			Tools: d.Tools, DisallowedTools: d.DisallowedTools, PermissionMode: string(d.PermissionMode), MaxTurns: d.MaxTurns,
			Skills: d.Skills, MCPServers: d.MCPServers, MCPConfigs: d.MCPConfigs, Background: d.Background, Budget: d.Budget, Prompt: d.Prompt, Warnings: d.Warnings}
		if d.Timeout > 0 {
			a.Timeout = d.Timeout.String()
		}
		out.Agents = append(out.Agents, a)
	}
	for _, s := range c.Shadowed {
		out.Shadowed = append(out.Shadowed, shadowJSON{s.Name, show(s.Winner), show(s.Loser)})
	}
	for _, s := range c.Skipped {
		out.Skipped = append(out.Skipped, skippedJSON{show(s.Path), s.Line, s.Name, s.Reason})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
