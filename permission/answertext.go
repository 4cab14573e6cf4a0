package permission

import "strings"

// ParseAnswer reads an answer typed as a line: y or yes allows once; a
// or always allows always in the project's settings, u in the user's
// (once, when req suggests no rule); n or no denies, with the rest of
// the line as the reason. ok is false when the line is none of these.
func ParseAnswer(line string, req Request) (ans Answer, ok bool) {
	line = strings.TrimSpace(line)
	word, rest, _ := strings.Cut(line, " ")
	switch strings.ToLower(word) {
	case "y", "yes":
		return Answer{Kind: AllowOnce}, true
	case "a", "always":
		if req.Suggest == "" {
			return Answer{Kind: AllowOnce}, true
		}
		return Answer{Kind: AllowAlways, Scope: ScopeProject}, true
	case "u":
		if req.Suggest == "" {
			return Answer{Kind: AllowOnce}, true
		}
		return Answer{Kind: AllowAlways, Scope: ScopeUser}, true
	case "n", "no":
		return Answer{Kind: DenyCall, Reason: strings.TrimSpace(rest)}, true
	}
	return Answer{}, false
}
