package compact

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/reinhq/rein/llm"
)

// identifier patterns: URLs, UUIDs, hex hashes (7+ digits with at least
// one letter and one digit), host:port, versions, and paths (two or more
// segments, or one with an extension).
var identRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		`https?://[^\s"'<>()\[\]{}]+` +
			`|\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b` +
			`|\b[0-9a-f]{7,64}\b` +
			`|\b[A-Za-z0-9.-]+:[0-9]{2,5}\b` +
			`|\bv?[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.]+)?\b` +
			`|(?:~|\.{1,2})?/?(?:[A-Za-z0-9_.@-]+/)+[A-Za-z0-9_.@-]+` +
			`|\b[A-Za-z0-9_-]+\.(?:go|py|js|ts|tsx|rs|java|c|h|cc|cpp|md|json|yaml|yml|toml|txt|sh|sql|html|css|rb|mod|sum|lock|cfg|ini)\b`)
})

// Identifiers returns the opaque identifiers in s (paths, hashes, UUIDs,
// URLs, host:port pairs, versions), each once, in order of appearance.
func Identifiers(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range identRe().FindAllString(s, -1) {
		m = strings.TrimRight(m, ".,;:")
		if len(m) < 4 || seen[m] || !plausible(m) {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// plausible drops matches that are words, not identifiers: hex runs
// without a digit or without a letter ("deadline", "1234567").
func plausible(m string) bool {
	if strings.ContainsAny(m, "/:.-") {
		return true
	}
	return strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "abcdef")
}

// messagesText is the text of msgs an identifier check looks in: text,
// tool arguments and tool output.
func messagesText(msgs []llm.Message) string {
	var b strings.Builder
	for i := range msgs {
		for _, c := range msgs[i].Content {
			b.WriteString(c.Text)
			b.WriteByte('\n')
			if len(c.Arguments) > 0 {
				b.WriteString(c.RawArguments())
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// Needed returns the identifiers of the compacted part that a summary
// must carry: those the kept part or the latest request also mention
// (the work refers to them again), and those of the previous summary.
// The list is capped at max, earliest first.
func Needed(compacted, kept []llm.Message, latest string, limit int) []string {
	later := messagesText(kept) + "\n" + latest
	var out []string
	for _, id := range Identifiers(messagesText(compacted)) {
		if strings.Contains(later, id) {
			out = append(out, id)
		}
	}
	if len(compacted) > 0 && IsSummary(&compacted[0]) {
		for _, id := range Identifiers(SummaryText(&compacted[0])) {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Missing returns the identifiers of ids that summary does not contain
// verbatim.
func Missing(summary string, ids []string) []string {
	var out []string
	for _, id := range ids {
		if !strings.Contains(summary, id) {
			out = append(out, id)
		}
	}
	return out
}
