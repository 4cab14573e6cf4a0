package subagent

import "github.com/reinhq/rein/permission"

// Names of the built-in agents.
const (
	Explore = "explore"
	General = "general"
)

// ReadOnlyTools are the tools the explore agent gets: rein's read-only
// built-ins.
var readOnlyTools = []string{"read", "grep", "find", "ls"}

// Builtins returns the built-in definitions: explore, read-only and on
// smallModel when one is given (else the parent's model), and general,
// with all of the parent's tools. A definition of the same name from any
// other source replaces them.
func Builtins(smallModel string) []Definition {
	return []Definition{
		{
			Name: Explore,
			Description: "Read-only investigator for finding code and answering questions about the codebase: " +
				"searches files, reads code and reports what it found, with paths and line numbers. " +
				"Use it for searches that would fill your context; say how thorough to be.",
			Prompt:         explorePrompt,
			Tools:          append([]string(nil), readOnlyTools...),
			Model:          smallModel,
			PermissionMode: permission.ModePlan,
			Source:         "builtin",
			Scope:          ScopeBuiltin,
		},
		{
			Name: General,
			Description: "General-purpose agent for multi-step tasks: research, code search and changes that need " +
				"several steps. Use it to hand off a self-contained task and get back only the outcome.",
			Prompt: generalPrompt,
			Source: "builtin",
			Scope:  ScopeBuiltin,
		},
	}
}

const explorePrompt = `You investigate a codebase for another agent and report back. You can only read: list folders, find files by pattern, search contents and read files. You cannot change anything or run commands.

Work fast: start broad (find, grep), then read only what answers the question. Stop once you can answer.

Your final message is all the other agent sees. Make it a direct answer: the facts found, each with its file path and line numbers, and what you could not find. No preamble.`

const generalPrompt = `You carry out one task for another agent, on your own, with the tools you have. Read before you change anything, keep changes to what the task asks, and check your work where you can (build, tests).

Your final message is all the other agent sees: say what you did, what you found, the files you changed, and anything left undone or uncertain. Be brief and exact.`
