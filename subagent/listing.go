package subagent

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// Listing is a catalog described for people and programs: every
// definition with where it came from, the definitions hidden by a name
// clash, and the files that could not be read. Its JSON form is the one
// `rein agents --json` prints, keyed as the front matter is.
type Listing struct {
	Agents   []Listed       `json:"agents"`
	Shadowed []ListedShadow `json:"shadowed"`
	Skipped  []ListedSkip   `json:"skipped"`
}

// Listed is one definition of a Listing.
type Listed struct {
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
	Budget                                     // maxCostUsd, maxInputTokens, maxOutputTokens
	Prompt          string                     `json:"prompt"`
	Warnings        []string                   `json:"warnings,omitempty"`
}

// ListedShadow is a definition hidden by another of the same name.
type ListedShadow struct {
	Name   string `json:"name"`
	Winner string `json:"winner"`
	Loser  string `json:"loser"`
}

// ListedSkip is a definition that could not be loaded, and why.
type ListedSkip struct {
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Name   string `json:"name,omitempty"`
	Reason string `json:"reason"`
}

// Describe lists c in precedence order. show rewrites each source path
// for display (see ShortPaths); nil keeps them as they are. The slices
// of the result are never nil, so that JSON shows empty lists as [].
func Describe(c *Catalog, show func(string) string) Listing {
	if show == nil {
		show = func(p string) string { return p }
	}
	l := Listing{Agents: []Listed{}, Shadowed: []ListedShadow{}, Skipped: []ListedSkip{}}
	for _, d := range c.All() {
		a := Listed{Name: d.Name, Description: d.Description, Scope: d.Scope, Source: show(d.Source), Model: d.Model,
			Tools: d.Tools, DisallowedTools: d.DisallowedTools, PermissionMode: string(d.PermissionMode), MaxTurns: d.MaxTurns,
			Skills: d.Skills, MCPServers: d.MCPServers, MCPConfigs: d.MCPConfigs, Background: d.Background, Budget: d.Budget, Prompt: d.Prompt, Warnings: d.Warnings}
		if d.Timeout > 0 {
			a.Timeout = d.Timeout.String()
		}
		l.Agents = append(l.Agents, a)
	}
	for _, s := range c.Shadowed {
		l.Shadowed = append(l.Shadowed, ListedShadow{s.Name, show(s.Winner), show(s.Loser)})
	}
	for _, s := range c.Skipped {
		l.Skipped = append(l.Skipped, ListedSkip{show(s.Path), s.Line, s.Name, s.Reason})
	}
	return l
}

// WriteTable writes l as a table of the definitions (a model or tools
// left to the parent shows as "(parent's)"), then sections of the
// definitions' warnings, the shadowed and the skipped ones, each only
// when it has lines.
func (l Listing) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tMODEL\tTOOLS\tSOURCE\tDESCRIPTION")
	var warns []string
	for _, d := range l.Agents {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.Scope, model, tools, d.Source, oneLine(d.Description, 60))
		for _, x := range d.Warnings {
			warns = append(warns, fmt.Sprintf("%s (%s): %s", d.Name, d.Source, x))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	section(w, "warnings", warns)
	var shadowed []string
	for _, s := range l.Shadowed {
		shadowed = append(shadowed, fmt.Sprintf("%s from %s, hidden by the one from %s", s.Name, s.Loser, s.Winner))
	}
	section(w, "shadowed", shadowed)
	var skipped []string
	for _, s := range l.Skipped {
		skipped = append(skipped, Skipped(s).String())
	}
	section(w, "skipped", skipped)
	return nil
}

// ShortPaths returns the display form of a definition's source that
// Describe takes: relative to the workspace root when below it, else
// with ~ for the home directory when below that, else as it is. Empty
// root or home skips that form; a relative path is kept.
func ShortPaths(root, home string) func(string) string {
	return func(p string) string {
		if !filepath.IsAbs(p) {
			return p
		}
		if root != "" {
			if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
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
}

// oneLine is s on one line, cut to n runes with an ellipsis.
func oneLine(s string, n int) string {
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
