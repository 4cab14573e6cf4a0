// Package command runs external command hooks declared in settings
// files, in the format of Claude Code's hooks (PreToolUse, PostToolUse,
// UserPromptSubmit, Stop …; see docs/hooks.md): the matcher groups of a
// settings file (Config), the event payload written as JSON on the
// command's stdin, the exit-code and stdout-JSON semantics folded into a
// Verdict (Runner), and Runner.Install, which puts the hooks that act on
// a run in place as typed handlers of package hook. ClaudeTool and
// BashOutput translate rein's tool calls and results into the names and
// shapes Claude Code's hooks and transcripts use.
//
// The commands themselves are started by internal/proc's Exec, the one
// place rein runs shell commands, in a process group that a timeout or
// a cancelled context stops.
package command
