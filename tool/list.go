package tool

import "strings"

// SplitList splits a list of tool names or permission rules as Claude
// Code's flags and front matter write them (allowed-tools, --allowedTools,
// an agent's tools) — separated by commas or blanks — where a blank inside
// parentheses does not separate ("Bash(git add:*), Read" is two items).
// Items are trimmed; empty ones are dropped.
func SplitList(s string) []string {
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
