package claudecode

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/tool"
)

// Flags are the permission and tool flags of Claude Code's command line
// (`claude -p`), so that a front-end can accept scripts written for it.
// Resolve maps them onto rein's options.
type Flags struct {
	// Allowed and Disallowed are the values of --allowedTools and
	// --disallowedTools: permission rules, comma- or space-separated,
	// each flag repeatable.
	Allowed, Disallowed []string
	// SkipPermissions is --dangerously-skip-permissions.
	SkipPermissions bool
	// Unsupported holds the values given to the flags of
	// UnsupportedFlags, by name without dashes; "" is not given.
	Unsupported map[string]string
}

// Resolved is what Flags mean in rein's terms.
type Resolved struct {
	// Mode is the permission mode: the one given, or auto_all for
	// --dangerously-skip-permissions.
	Mode string
	// Allow and Deny are the permission rules, one a string.
	Allow, Deny []string
	// Tools is the --tools list with Claude Code's tool names mapped
	// onto rein's (see ToolNames).
	Tools string
}

// Resolve checks the flags against the permission mode and tool list
// given beside them and returns rein's equivalents. It fails, naming
// the flag, on a flag rein does not honour (UnsupportedError) and on
// --dangerously-skip-permissions beside another permission mode.
func (f *Flags) Resolve(mode, tools string) (Resolved, error) {
	for _, name := range UnsupportedFlags() {
		if f.Unsupported[name] != "" {
			return Resolved{}, &UnsupportedError{Flag: name}
		}
	}
	if f.SkipPermissions {
		if mode != "" && mode != "auto_all" && mode != "bypassPermissions" {
			return Resolved{}, errors.New("--dangerously-skip-permissions and --permission-mode " + mode + " contradict each other: give one")
		}
		mode = "auto_all"
	}
	r := Resolved{Mode: mode, Tools: ToolNames(tools)}
	for _, v := range f.Allowed {
		r.Allow = append(r.Allow, tool.SplitList(v)...)
	}
	for _, v := range f.Disallowed {
		r.Deny = append(r.Deny, tool.SplitList(v)...)
	}
	return r, nil
}

// unsupportedWhy says why each Claude Code flag that rein does not
// honour is refused, and what to use instead.
var unsupportedWhy = map[string]string{
	"mcp-config":     "MCP servers come from .mcp.json and .rein/mcp.json (see docs/mcp.md)",
	"settings":       "settings come from .claude/settings*.json and .rein/settings*.json (see docs/permissions.md)",
	"add-dir":        "the tools work in one workspace (-C DIR); reaching another directory needs a sandbox rule in .rein/security.json",
	"session-id":     "rein names new sessions itself; use --resume ID to continue one",
	"fallback-model": "fallback models are set per provider in .rein/config.json (see docs/providers.md)",
	"input-format":   "rein reads the prompt as text (an argument or standard input)",
}

// UnsupportedFlags lists, in a fixed order, the flags of Claude Code's
// command line that rein accepts only to refuse them with the reason: a
// script that relies on one must not run as if it had been honoured.
func UnsupportedFlags() []string {
	return []string{"mcp-config", "settings", "add-dir", "session-id", "fallback-model", "input-format"}
}

// UnsupportedError is a Claude Code flag rein does not honour.
type UnsupportedError struct{ Flag string }

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("--%s is a Claude Code flag rein does not support: %s", e.Flag, unsupportedWhy[e.Flag])
}

// toolNames are Claude Code's names of rein's tools that differ from
// them other than by case.
var toolNames = map[string]string{"glob": "find", "multiedit": "edit", "notebookedit": "edit", "notebookread": "read",
	"task": "agent"}

// ToolNames maps the names of a tool list that are Claude Code's
// ("Read", "Bash", "Glob") onto rein's, keeping rein's own names,
// toolsets and the "-name" form, in order and without repeats; case does
// not matter. A blank spec is returned as it is.
func ToolNames(spec string) string {
	if strings.TrimSpace(spec) == "" {
		return spec
	}
	var out []string
	for _, item := range tool.SplitList(spec) {
		neg := strings.HasPrefix(item, "-")
		name := strings.ToLower(strings.TrimPrefix(item, "-"))
		if n, ok := toolNames[name]; ok {
			name = n
		}
		if neg {
			name = "-" + name
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return strings.Join(out, ",")
}

// ResumeArgs rewrites a command line so that --resume (or -r) given
// without an id — last, or just before another flag, as Claude Code
// accepts it — reads "--resume=" + pick; "--resume ID", "--resume=ID"
// and everything after "--" are left as they are.
func ResumeArgs(args []string, pick string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--resume" || a == "-r") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			out = append(out, "--resume="+pick)
			continue
		}
		out = append(out, a)
	}
	return out
}
