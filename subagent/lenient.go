package subagent

import (
	"regexp"
	"strings"
)

var keyLineRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_\-]*):(?:\s+(.*)|)$`)

// lenientFrontMatter reads front matter that is not valid YAML the way
// Claude Code still reads it: one "key: value" a line, the value being
// the rest of the line as text (so "description: Use it when: …" works),
// indented lines continuing it, and "- item" lines under a key with no
// value making a list. ok is false when the block is not of that form;
// text is the whole file.
func lenientFrontMatter(text string) (raw map[string]any, ok bool) {
	rest, found := strings.CutPrefix(text, "---\n")
	if !found {
		return nil, false
	}
	block, _, found := strings.Cut(rest, "\n---\n")
	if !found {
		block, found = strings.CutSuffix(rest, "\n---")
		if !found {
			return nil, false
		}
	}
	raw = map[string]any{}
	var key string
	for _, line := range strings.Split(block, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "- ") && key != "":
			list, isList := raw[key].([]any)
			if !isList && raw[key] != nil {
				return nil, false
			}
			raw[key] = append(list, unquote(strings.TrimSpace(trimmed[2:])))
		case line[0] == ' ' || line[0] == '\t':
			s, isText := raw[key].(string)
			if key == "" || !isText {
				return nil, false
			}
			raw[key] = strings.TrimSpace(s + " " + trimmed)
		default:
			m := keyLineRe.FindStringSubmatch(line)
			if m == nil {
				return nil, false
			}
			key = m[1]
			if v := strings.TrimSpace(m[2]); v == "" {
				raw[key] = nil
			} else {
				raw[key] = unquote(v)
			}
		}
	}
	return raw, len(raw) > 0
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
