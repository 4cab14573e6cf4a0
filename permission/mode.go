package permission

import (
	"fmt"
	"strings"
)

// Mode is the default answer for calls no rule decides.
type Mode string

// Modes. Each has Claude Code's meaning under Claude Code's name (in
// parentheses), which ParseMode accepts as well as rein's.
const (
	// Ask: every call asks unless a rule allows it.
	ModeAsk Mode = "ask"
	// AutoRead (default): read-only tools on paths inside the workspace
	// and bash commands that only read inside it (ls, cat, git status)
	// run; the rest asks. The mode of runs where nobody can answer,
	// unless a flag or the settings say otherwise: what would ask is
	// denied, with the reason returned to the model.
	ModeAutoRead Mode = "auto_read"
	// AutoEdit (acceptEdits): what AutoRead runs, plus file edits inside
	// the workspace and the commands mkdir, touch, mv, cp, rm and rmdir
	// when every path they touch is inside it; the rest asks.
	ModeAutoEdit Mode = "auto_edit"
	// AutoAll (bypassPermissions): everything runs unless a rule, a
	// protected path or the blocker says otherwise.
	ModeAutoAll Mode = "auto_all"
	// Plan (plan): read-only tools and read-only bash commands; anything
	// else is refused with a message telling the model it is planning.
	ModePlan Mode = "plan"
	// DontAsk (dontAsk): what AutoRead runs and what rules allow; anything
	// that would ask is denied without asking, even on a terminal.
	ModeDontAsk Mode = "dont_ask"
)

// Modes lists the modes in order of growing freedom, plan first.
func Modes() []Mode {
	return []Mode{ModePlan, ModeDontAsk, ModeAsk, ModeAutoRead, ModeAutoEdit, ModeAutoAll}
}

// ParseMode accepts rein's mode names and Claude Code's defaultMode
// values (default, acceptEdits, plan, bypassPermissions, dontAsk).
func ParseMode(s string) (Mode, error) {
	switch strings.TrimSpace(s) {
	case "ask":
		return ModeAsk, nil
	case "auto_read", "auto-read", "default":
		return ModeAutoRead, nil
	case "auto_edit", "auto-edit", "acceptEdits":
		return ModeAutoEdit, nil
	case "auto_all", "auto-all", "bypassPermissions":
		return ModeAutoAll, nil
	case "plan":
		return ModePlan, nil
	case "dont_ask", "dont-ask", "dontAsk":
		return ModeDontAsk, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use default, acceptEdits, plan, dontAsk or bypassPermissions (rein's names: auto_read, auto_edit, plan, dont_ask, auto_all; and ask)", s)
}

// claudeMode is the permission_mode value hooks receive on stdin.
func (m Mode) claudeMode() string {
	switch m {
	case ModeAutoEdit:
		return "acceptEdits"
	case ModeAutoAll:
		return "bypassPermissions"
	case ModePlan:
		return "plan"
	case ModeDontAsk:
		return "dontAsk"
	}
	return "default"
}

// ClaudeName is the name Claude Code gives the mode (default,
// acceptEdits, bypassPermissions, plan, dontAsk), as hooks receive it.
func (m Mode) ClaudeName() string { return m.claudeMode() }

// PlanMessage is what the model reads when plan mode refuses a call.
const PlanMessage = "You are in plan mode: only read-only tools run. Do not change files or run commands; investigate with the read-only tools and present your plan. The user will switch modes when the plan is approved."

// DontAskMessage is what the model reads when dont_ask mode denies a
// call that would have asked.
const DontAskMessage = "Permission denied: the permission mode is dontAsk, which runs only what the rules allow and read-only calls inside the workspace; this call would need approval. Do not retry it; find another way or tell the user what you need."
