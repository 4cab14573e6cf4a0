package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Key material without its armour. A private key shown whole is masked
// by the PEM pattern, but an excerpt — `head -2`, `tail -2`, `grep -v
// -----`, a read with an offset, a grep match — shows body lines with no
// BEGIN…END pair around them. maskKeyMaterial masks base64 runs that
// have the shape or the context of key material:
//
//   - a whole line of 45 to 100 base64 characters mixing upper case,
//     lower case and digits: a PEM or OpenSSH body line (64 or 70
//     characters, or the last, shorter one), whatever surrounds it;
//   - a run of 40 or more that starts as DER (MII…), an OpenSSH private
//     key (b3BlbnNzaC1rZXktdjE…) or base64 of a PEM header (LS0tLS1CRUdJTi…);
//   - a run of 32 or more assigned to a key-like name on the same line
//     (PRIVATE_KEY=…, "secret": "…", PrivateKey = …);
//   - a shorter whole line next to one of the above, or next to a BEGIN
//     or END line of a private key: the last, short line of a body.
//
// "Line" boundaries include the escaped \n of JSON text, and the
// prefixes tools put before a line (grep's file:line:, read's number
// and tab). Runs are bounded by characters outside the base64 alphabet.

const (
	bodyMin, bodyMax = 60, 100
	// shortBodyMin admits the short last line of a body shown alone (a
	// one-line summary of `tail -2`); base64 SHA-256 hashes (43
	// characters and =, as in go.sum) stay below it.
	shortBodyMin = 45
	derMin       = 40
	assignedMin  = 32
	tailMin      = 8
	// adjacentGap bounds the text between two lines of one body (a line
	// break and a tool's line prefix).
	adjacentGap = 80
)

var keyWords = []string{"private", "secret", "passw", "token", "credential", "key"}

func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// mayHoldKey is the cheap test: a run of at least tailMin base64
// characters somewhere in s.
func mayHoldKey(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		if isB64(s[i]) {
			n++
			if n >= tailMin {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

type span struct{ start, end int }

// maskKeyMaterial returns s with key material masked.
func maskKeyMaterial(s string) string {
	if !mayHoldKey(s) {
		return s
	}
	var spans []span
	lastMasked := -1 << 30
	armour := strings.Contains(s, "PRIVATE KEY-----")
	for i := 0; i < len(s); {
		if !isB64(s[i]) {
			i++
			continue
		}
		// After a JSON escape (\n, \t, \/), the letter belongs to the
		// escape, not to the run.
		if i > 0 && s[i-1] == '\\' && strings.IndexByte("nrtbf/", s[i]) >= 0 {
			i++
			continue
		}
		j := i
		for j < len(s) && isB64(s[j]) {
			j++
		}
		k := j
		for k < len(s) && k-j < 2 && s[k] == '=' {
			k++
		}
		if isKeyRun(s, i, j, k, lastMasked, armour) {
			spans = append(spans, span{i, k})
			lastMasked = k
		}
		i = k
	}
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, sp := range spans {
		b.WriteString(s[prev:sp.start])
		b.WriteString(Mask)
		prev = sp.end
	}
	b.WriteString(s[prev:])
	return b.String()
}

// isKeyRun decides for the run s[i:j] (padding up to k). armour says
// whether s holds a private key's BEGIN or END line. The cheap tests
// come first: most runs are ordinary words.
func isKeyRun(s string, i, j, k, lastMasked int, armour bool) bool {
	n := j - i
	if n < tailMin {
		return false
	}
	run := s[i:j]
	if n >= derMin && (strings.HasPrefix(run, "MII") || strings.HasPrefix(run, "b3BlbnNzaC1rZXktdjE") || strings.HasPrefix(run, "LS0tLS1CRUdJTi")) {
		return true
	}
	if n >= assignedMin && assigned(s, i) && classes(run) >= 2 {
		return true
	}
	if !lineStart(s, i) || !lineEnd(s, k) {
		return false
	}
	if n >= shortBodyMin && n <= bodyMax && mixed(run) {
		return true
	}
	// A short whole line: the end of a body.
	adjacent := i > lastMasked && i-lastMasked <= adjacentGap && hasBreak(s[lastMasked:i])
	if !adjacent && !(armour && nearArmour(s, i, k)) {
		return false
	}
	return classes(run) >= 2
}

func classes(run string) int {
	var up, low, dig bool
	for i := 0; i < len(run); i++ {
		c := run[i]
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			dig = true
		}
	}
	n := 0
	for _, b := range []bool{up, low, dig} {
		if b {
			n++
		}
	}
	return n
}

// mixed reports whether run mixes upper case, lower case and digits
// and is not a path (/candidates/0/content/parts/0/functionCall/args).
func mixed(run string) bool {
	return classes(run) == 3 && !pathLike(run)
}

// pathLike reports whether run has two or more '/' and at least half of
// its parts are words: letters with at most one capital (functionCall),
// or numbers. The parts of random base64 are long and mixed.
func pathLike(run string) bool {
	if strings.Count(run, "/") < 2 {
		return false
	}
	parts := strings.Split(run, "/")
	words, n := 0, 0
	for _, p := range parts {
		if p == "" {
			continue
		}
		n++
		caps, letters, digits := 0, 0, 0
		for i := 0; i < len(p); i++ {
			c := p[i]
			switch {
			case c >= 'A' && c <= 'Z':
				caps++
				letters++
			case c >= 'a' && c <= 'z':
				letters++
			case c >= '0' && c <= '9':
				digits++
			}
		}
		if (letters == len(p) && caps <= 1) || digits == len(p) {
			words++
		}
	}
	return words*2 >= n
}

// lineStart reports whether the run at i starts a line: it follows a
// line break (or JSON's \n), the start of s, or a separator a tool puts
// after a line prefix (tab, colon, space, quote, '=').
func lineStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	switch s[i-1] {
	case '\n', '\r', '\t', ':', ' ', '"', '\'', '=':
		return true
	case 'n', 't':
		return i >= 2 && s[i-2] == '\\'
	case '-':
		// grep's context line, file-12-text; not a run inside a
		// URL-safe base64 token or a hash (sha512-…).
		j := i - 1
		for j > 0 && s[j-1] >= '0' && s[j-1] <= '9' {
			j--
		}
		return j < i-1 && j > 0 && s[j-1] == '-'
	}
	return false
}

// lineEnd reports whether the run ending at k ends a line.
func lineEnd(s string, k int) bool {
	if k == len(s) {
		return true
	}
	switch s[k] {
	case '\n', '\r', '\\', '"', '\'', ' ', ',':
		return true
	}
	return false
}

func hasBreak(gap string) bool {
	return strings.Contains(gap, "\n") || strings.Contains(gap, `\n`)
}

// assigned reports whether the run at i is the value of a key-like name
// on its line: `NAME = value`, `"name": "value"`.
func assigned(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '"' || s[j-1] == '\'' || s[j-1] == '\t') {
		j--
	}
	if j == 0 || (s[j-1] != '=' && s[j-1] != ':') {
		return false
	}
	if j >= 2 && strings.IndexByte("!=<>", s[j-2]) >= 0 {
		return false // a comparison, not an assignment
	}
	from := max(0, j-48)
	name := s[from : j-1]
	if nl := strings.LastIndexAny(name, "\n,{;"); nl >= 0 {
		name = name[nl+1:]
	}
	if nl := strings.LastIndex(name, `\n`); nl >= 0 {
		name = name[nl+2:]
	}
	name = strings.ToLower(name)
	for _, w := range keyWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// nearArmour reports whether the run s[i:k] is the line right after a
// private key's BEGIN line or right before its END line.
func nearArmour(s string, i, k int) bool {
	const gap = 16
	before := s[max(0, i-gap-40):i]
	if b := strings.LastIndex(before, "PRIVATE KEY-----"); b >= 0 && len(before)-b-16 <= gap && hasBreak(before[b:]) {
		return true
	}
	after := s[k:min(len(s), k+gap+40)]
	if e := strings.Index(after, "-----END"); e >= 0 && e <= gap && hasBreak(after[:e]) && strings.Contains(after[e:], "PRIVATE KEY") {
		return true
	}
	return false
}

// urlPassword matches the password of a URL's user information
// (scheme://user:password@host).
var urlPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]{0,20}://[^\s/:@"'<>\\]{0,256}:)([^\s/@"'<>\\]{1,256})@`)
})

// maskURLPasswords masks the password of every URL with one.
func maskURLPasswords(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlPassword().ReplaceAllString(s, "${1}"+Mask+"@")
}
