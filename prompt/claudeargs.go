package prompt

import (
	"strconv"
	"strings"
)

// expandClaude fills a command or skill body with its arguments the way
// Claude Code does: $ARGUMENTS is the argument text as typed;
// $ARGUMENTS[N] and $N are the N-th argument counted from 0, split like
// shell words; a numbered placeholder past the last argument stays as
// written. A body without any placeholder gets the text appended after
// "ARGUMENTS: ", so nothing typed is lost.
func expandClaude(body, raw string) string {
	args := SplitArgs(raw)
	var b strings.Builder
	used := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '$' || i+1 >= len(body) {
			b.WriteByte(c)
			continue
		}
		rest := body[i+1:]
		if after, ok := strings.CutPrefix(rest, "ARGUMENTS"); ok {
			used = true
			if n, width, ok := index(after); ok {
				if n < len(args) {
					b.WriteString(args[n])
				} else {
					b.WriteString(body[i : i+1+len("ARGUMENTS")+width])
				}
				i += len("ARGUMENTS") + width
				continue
			}
			b.WriteString(raw)
			i += len("ARGUMENTS")
			continue
		}
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 {
			b.WriteByte(c)
			continue
		}
		used = true
		n, _ := strconv.Atoi(rest[:j])
		if n < len(args) {
			b.WriteString(args[n])
		} else {
			b.WriteString(body[i : i+1+j])
		}
		i += j
	}
	out := b.String()
	if !used && raw != "" {
		out = strings.TrimRight(out, "\n") + "\n\n\nARGUMENTS: " + raw
	}
	return out
}

// index reads "[N]" at the start of s.
func index(s string) (n, width int, ok bool) {
	if !strings.HasPrefix(s, "[") {
		return 0, 0, false
	}
	end := strings.IndexByte(s, ']')
	if end < 2 {
		return 0, 0, false
	}
	n, err := strconv.Atoi(s[1:end])
	if err != nil || n < 0 {
		return 0, 0, false
	}
	return n, end + 1, true
}
