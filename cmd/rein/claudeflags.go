package main

import (
	"bufio"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
	"github.com/spf13/cobra"
)

// claudeFlags are the flags of Claude Code's command line that rein
// accepts, so that scripts written for `claude -p` run on `rein -p`.
type claudeFlags struct {
	allowed, disallowed []string
	skipPermissions     bool
	verbose             bool
	unsupported         map[string]*string
}

// addClaudeFlags adds Claude Code's flags to a command that runs the
// agent. Flags rein cannot honour yet are accepted by the parser and
// refused by check with the reason, never ignored.
func addClaudeFlags(cmd *cobra.Command, o *runOptions) {
	cf := &o.claude
	f := cmd.Flags()
	f.StringArrayVar(&cf.allowed, "allowedTools", nil, "permission rules that allow without asking, as in settings files: \"Bash(git diff:*),Read\" (repeatable)")
	f.StringArrayVar(&cf.allowed, "allowed-tools", nil, "same as --allowedTools")
	f.StringArrayVar(&cf.disallowed, "disallowedTools", nil, "permission rules that deny: \"Bash(rm:*),Edit\" (repeatable)")
	f.StringArrayVar(&cf.disallowed, "disallowed-tools", nil, "same as --disallowedTools")
	f.BoolVar(&cf.skipPermissions, "dangerously-skip-permissions", false, "run every tool call without asking (permission mode auto_all); deny rules still apply")
	addAgentsFlag(cmd, o)
	f.BoolVar(&cf.verbose, "verbose", false, "accepted for Claude Code's scripts: rein's stream-json always has whole messages")
	cf.unsupported = map[string]*string{}
	for _, name := range []string{"mcp-config", "settings", "add-dir", "session-id", "fallback-model", "input-format"} {
		v := new(string)
		cf.unsupported[name] = v
		f.StringVar(v, name, "", "Claude Code's flag; not supported by rein yet (the run stops with the reason)")
		f.Lookup(name).Hidden = true
	}
	for _, name := range []string{"allowed-tools", "disallowed-tools"} {
		f.Lookup(name).Hidden = true
	}
}

// unsupportedWhy says why each Claude Code flag that rein does not honour
// is refused, and what to use instead.
var unsupportedWhy = map[string]string{
	"mcp-config":     "MCP servers come from .mcp.json and .rein/mcp.json (see docs/mcp.md)",
	"settings":       "settings come from .claude/settings*.json and .rein/settings*.json (see docs/permissions.md)",
	"add-dir":        "the tools work in one workspace (-C DIR); reaching another directory needs a sandbox rule in .rein/security.json",
	"session-id":     "rein names new sessions itself; use --resume ID to continue one",
	"fallback-model": "fallback models are set per provider in .rein/config.json (see docs/providers.md)",
	"input-format":   "rein reads the prompt as text (an argument or standard input)",
}

// apply checks the Claude Code flags and maps them onto rein's options.
func (cf *claudeFlags) apply(o *runOptions) error {
	for name, v := range cf.unsupported {
		if *v != "" {
			return fmt.Errorf("--%s is a Claude Code flag rein does not support: %s", name, unsupportedWhy[name])
		}
	}
	if cf.skipPermissions {
		if o.permissionMode != "" && o.permissionMode != "auto_all" && o.permissionMode != "bypassPermissions" {
			return errors.New("--dangerously-skip-permissions and --permission-mode " + o.permissionMode + " contradict each other: give one")
		}
		o.permissionMode = "auto_all"
	}
	for _, v := range cf.allowed {
		o.allowRules = append(o.allowRules, tool.SplitList(v)...)
	}
	for _, v := range cf.disallowed {
		o.denyRules = append(o.denyRules, tool.SplitList(v)...)
	}
	o.tools = toolNames(o.tools)
	return o.checkAgentsFlag()
}

// claudeToolNames are Claude Code's names of rein's tools, for --tools.
var claudeToolNames = map[string]string{"glob": "find", "multiedit": "edit", "notebookedit": "edit", "notebookread": "read",
	"task": "agent"}

// toolNames maps the names of a --tools list that are Claude Code's
// ("Read", "Bash", "Glob") onto rein's, keeping rein's own, toolsets and
// the "-name" form; case does not matter.
func toolNames(spec string) string {
	if strings.TrimSpace(spec) == "" {
		return spec
	}
	var out []string
	for _, item := range tool.SplitList(spec) {
		neg := strings.HasPrefix(item, "-")
		name := strings.ToLower(strings.TrimPrefix(item, "-"))
		if n, ok := claudeToolNames[name]; ok {
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

// pickRef is the session reference of --resume (or -r) given without an
// id: choose one of the workspace's sessions.
const pickRef = "pick"

// pickSession lets the person at a terminal choose one of the
// workspace's latest sessions by number; without a terminal it lists
// them in the error, since nobody can choose.
func pickSession(e *env, workdir string) (string, error) {
	root, err := workspaceDir(workdir)
	if err != nil {
		return "", err
	}
	infos, err := session.List(session.DefaultDir(root))
	if err != nil {
		return "", err
	}
	if len(infos) == 0 {
		return "", fmt.Errorf("no sessions to resume in %s", root)
	}
	infos = infos[:min(len(infos), 10)]
	var b strings.Builder
	for i, in := range infos {
		first := strings.Join(strings.Fields(in.FirstMessage), " ")
		if len(first) > 60 {
			first = first[:57] + "…"
		}
		fmt.Fprintf(&b, "%2d  %s  %s  %s\n", i+1, shortID(in.ID), in.Modified.Format("2006-01-02 15:04"), first)
	}
	if !e.tty {
		return "", fmt.Errorf("--resume without an id needs a terminal to choose on; the latest sessions:\n%sresume one with --resume ID (or -c for the latest)", b.String())
	}
	fmt.Fprint(e.stderr, b.String()+"resume which? (number) ")
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || n < 1 || n > len(infos) {
		return "", fmt.Errorf("no session chosen (%q is not a number from 1 to %d)", strings.TrimSpace(line), len(infos))
	}
	return infos[n-1].Path, nil
}

// resumeArgs gives --resume (or -r) the value pickRef where it stands
// without an id — last, or before another flag — as Claude Code accepts
// it; "--resume ID" and "--resume=ID" are left as they are.
func resumeArgs(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--resume" || a == "-r") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			out = append(out, "--resume="+pickRef)
			continue
		}
		out = append(out, a)
	}
	return out
}
