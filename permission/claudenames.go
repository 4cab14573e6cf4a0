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

// SplitRules splits a list of rules or tool names as Claude Code's flags
// and front matter write them — separated by commas or blanks — where a
// blank inside parentheses does not separate ("Bash(git add:*), Read" is
// two items).
func SplitRules(s string) []string {
	var (
		out   []string
		depth int
		start = 0
	)
	flush := func(end int) {
		if item := strings.TrimSpace(s[start:end]); item != "" {
			out = append(out, item)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}
