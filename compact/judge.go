package compact

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A summary is judged by what it must keep, not by its form. The prompt
// asks for headings (see Sections) but any shape is accepted — "## Goal",
// "# Goal", "**Goal**", "Goal:", a <summary> block — as long as the text
// is readable and shorter than what it replaces. What it must carry (the
// goal verbatim, the identifiers the kept part still needs, the latest
// request) is then checked by Summarize, asked for once and added back
// verbatim when still missing.

// Errors of Validate.
var (
	ErrEmptySummary   = errors.New("the summariser returned nothing")
	ErrGarbageSummary = errors.New("the summariser returned text that is not a summary (unreadable characters, or no words)")
	ErrLongSummary    = errors.New("the summary is not shorter than the part it replaces")
)

// MinCheckedSize is the smallest compacted part whose summary must be
// shorter than it: below it, a summary may well be longer than a few
// short messages, and harmlessly so.
const MinCheckedSize = 1000

// Validate rejects a summary that is empty, unreadable (invalid UTF-8,
// more than 5 % control characters, or less than a fifth letters), or
// (for a part of MinCheckedSize tokens or more) not shorter than the
// size tokens it replaces. Headings are never required.
func Validate(s string, size int, cpt float64) error {
	t := strings.TrimSpace(s)
	if t == "" {
		return ErrEmptySummary
	}
	if !utf8.ValidString(t) || controlShare(t) > 0.05 || letterShare(t) < 0.2 {
		return ErrGarbageSummary
	}
	if n := Tokens(len(t), 0, cpt); size >= MinCheckedSize && n >= size {
		return fmt.Errorf("%w (%d tokens for %d)", ErrLongSummary, n, size)
	}
	return nil
}

// Clean trims a summary and unwraps it from a <summary> element or a
// code fence around the whole of it.
func Clean(s string) string {
	t := strings.TrimSpace(s)
	for {
		switch {
		case strings.HasPrefix(t, "<summary>") && strings.HasSuffix(t, "</summary>"):
			t = strings.TrimSpace(t[len("<summary>") : len(t)-len("</summary>")])
		case strings.HasPrefix(t, "```") && strings.HasSuffix(t, "```") && len(t) > 6:
			body := t[3 : len(t)-3]
			if i := strings.IndexByte(body, '\n'); i >= 0 && !strings.Contains(body[i:], "```") {
				t = strings.TrimSpace(body[i:])
				continue
			}
			return t
		default:
			return t
		}
	}
}

func controlShare(s string) float64 {
	bad, n := 0, 0
	for _, r := range s {
		n++
		if r == utf8.RuneError || unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			bad++
		}
	}
	return float64(bad) / float64(max(n, 1))
}

func letterShare(s string) float64 {
	letters, n := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		n++
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return float64(letters) / float64(max(n, 1))
}

// GoalOf returns the goal a summary states: the text under its first
// heading that names the goal, whatever its form ("## Goal", "# Goal
// (the user's words)", "**Goal**", "Goal: …"), up to the next heading;
// "" when it has none.
func GoalOf(summary string) string {
	lines := strings.Split(summary, "\n")
	for i, line := range lines {
		rest, ok := goalHeading(line)
		if !ok {
			continue
		}
		var b []string
		if rest != "" {
			b = append(b, rest)
		}
		for _, l := range lines[i+1:] {
			if isHeading(l) {
				break
			}
			b = append(b, l)
		}
		return strings.TrimSpace(strings.Join(b, "\n"))
	}
	return ""
}

// goalHeading reports whether line is a heading naming the goal, and
// what follows it on the same line ("Goal: convert the files").
func goalHeading(line string) (string, bool) {
	t := strings.TrimSpace(line)
	t = strings.TrimLeft(t, "#* ")
	if len(t) < 4 || !strings.EqualFold(t[:4], "goal") {
		return "", false
	}
	t = t[4:]
	// "(the user's words)" and the like.
	if strings.HasPrefix(t, " (") {
		if j := strings.IndexByte(t, ')'); j >= 0 {
			t = t[j+1:]
		}
	}
	t = strings.TrimLeft(t, "*")
	switch {
	case t == "":
		return "", true
	case t[0] == ':':
		return strings.TrimSpace(strings.TrimLeft(t[1:], "* ")), true
	}
	return "", false
}

// isHeading reports whether line starts a section: a markdown heading,
// a line in bold, or one starting with a short capitalised "Name:".
func isHeading(line string) bool {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "#"):
		return true
	case strings.HasPrefix(t, "**") && strings.Contains(t[2:], "**"):
		return true
	case strings.HasPrefix(t, "</summary>"):
		return true
	}
	name, _, ok := strings.Cut(t, ":")
	if !ok || name == "" || len(name) > 30 || !unicode.IsUpper([]rune(name)[0]) {
		return false
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && r != ' ' {
			return false
		}
	}
	return true
}
