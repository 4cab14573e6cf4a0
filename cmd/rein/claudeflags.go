package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/coding/claudecode"
	"github.com/spf13/cobra"
)

// claudeFlags are the flags of Claude Code's command line that rein
// accepts, so that scripts written for `claude -p` run on `rein -p`.
type claudeFlags struct {
	claudecode.Flags
	verbose     bool
	unsupported map[string]*string
}

// addClaudeFlags adds Claude Code's flags to a command that runs the
// agent. Flags rein cannot honour yet are accepted by the parser and
// refused by check with the reason, never ignored.
func addClaudeFlags(cmd *cobra.Command, o *runOptions) {
	cf := &o.claude
	f := cmd.Flags()
	f.StringArrayVar(&cf.Allowed, "allowedTools", nil, "permission rules that allow without asking, as in settings files: \"Bash(git diff:*),Read\" (repeatable)")
	f.StringArrayVar(&cf.Allowed, "allowed-tools", nil, "same as --allowedTools")
	f.StringArrayVar(&cf.Disallowed, "disallowedTools", nil, "permission rules that deny: \"Bash(rm:*),Edit\" (repeatable)")
	f.StringArrayVar(&cf.Disallowed, "disallowed-tools", nil, "same as --disallowedTools")
	f.BoolVar(&cf.SkipPermissions, "dangerously-skip-permissions", false, "run every tool call without asking (permission mode auto_all); deny rules still apply")
	addAgentsFlag(cmd, o)
	f.BoolVar(&cf.verbose, "verbose", false, "accepted for Claude Code's scripts: rein's stream-json always has whole messages")
	cf.unsupported = map[string]*string{}
	for _, name := range claudecode.UnsupportedFlags() {
		v := new(string)
		cf.unsupported[name] = v
		f.StringVar(v, name, "", "Claude Code's flag; not supported by rein yet (the run stops with the reason)")
		f.Lookup(name).Hidden = true
	}
	for _, name := range []string{"allowed-tools", "disallowed-tools"} {
		f.Lookup(name).Hidden = true
	}
}

// apply checks the Claude Code flags and maps them onto rein's options.
func (cf *claudeFlags) apply(o *runOptions) error {
	cf.Unsupported = map[string]string{}
	for name, v := range cf.unsupported {
		cf.Unsupported[name] = *v
	}
	r, err := cf.Resolve(o.permissionMode, o.tools)
	if err != nil {
		return err
	}
	o.permissionMode, o.tools = r.Mode, r.Tools
	o.allowRules = append(o.allowRules, r.Allow...)
	o.denyRules = append(o.denyRules, r.Deny...)
	return o.checkAgentsFlag()
}

// pickRef is the session reference of --resume (or -r) given without an
// id: choose one of the workspace's sessions.
const pickRef = "pick"

// pickSession lets the person at a terminal choose one of the
// workspace's latest sessions by number; without a terminal it lists
// them in the error, since nobody can choose.
func pickSession(e *env, workdir string) (string, error) {
	infos, menu, err := coding.SessionMenu(workdir, 10)
	if err != nil {
		return "", err
	}
	if !e.tty {
		return "", fmt.Errorf("--resume without an id needs a terminal to choose on; the latest sessions:\n%sresume one with --resume ID (or -c for the latest)", menu)
	}
	fmt.Fprint(e.stderr, menu+"resume which? (number) ")
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || n < 1 || n > len(infos) {
		return "", fmt.Errorf("no session chosen (%q is not a number from 1 to %d)", strings.TrimSpace(line), len(infos))
	}
	return infos[n-1].Path, nil
}
