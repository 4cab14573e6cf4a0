package permission

import "strings"

// ToolsNamed returns rein's tools that a tool name of a Claude Code file
// (a rule, a command's allowed-tools, an agent's tools) stands for:
// "Read" is read, grep, find and ls; "Bash(git add:*)" is bash; a rein
// name stands for itself. known is false for a name neither knows.
func ToolsNamed(name string) (tools []string, known bool) {
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	name = strings.TrimSpace(name)
	if ts, ok := claudeTools[name]; ok {
		return ts, true
	}
	if lower := strings.ToLower(name); lower != name {
		if ts, ok := claudeTools[strings.ToUpper(lower[:1])+lower[1:]]; ok {
			return ts, true
		}
	}
	return []string{strings.ToLower(name)}, false
}
