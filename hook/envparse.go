package hook

import (
	"errors"
	"strings"
)

// envState is the environment while env files are applied: base and the
// variables set so far, in the order first set.
type envState struct {
	base  map[string]string
	set   map[string]string
	order []string
}

func newEnvState(base []string) *envState {
	s := &envState{base: map[string]string{}, set: map[string]string{}}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s.base[k] = v
		}
	}
	return s
}

func (s *envState) lookup(name string) string {
	if v, ok := s.set[name]; ok {
		return v
	}
	return s.base[name]
}

func (s *envState) result() []string {
	out := make([]string, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, k+"="+s.set[k])
	}
	return out
}

// apply applies the lines of one file; each line's assignments apply
// together or not at all.
func (s *envState) apply(file, text string) []EnvNote {
	var notes []EnvNote
	for i, line := range strings.Split(text, "\n") {
		as, err := parseEnvLine(strings.TrimRight(line, "\r"), s.lookup)
		if err != nil {
			notes = append(notes, EnvNote{File: file, Line: i + 1, Text: clip(strings.TrimSpace(line), 120), Reason: err.Error()})
			continue
		}
		for _, a := range as {
			if _, ok := s.set[a[0]]; !ok {
				s.order = append(s.order, a[0])
			}
			s.set[a[0]] = a[1]
		}
	}
	return notes
}

var errNotAssignment = errors.New("not an assignment (only `export NAME=value` lines are read)")

// parseEnvLine reads one line: blank, a comment, or `[export |declare -x
// ]NAME=value ...`. It returns the assignments in order, expanding $NAME
// and ${NAME} with lookup (the assignments before them on the line count).
func parseEnvLine(line string, lookup func(string) string) ([][2]string, error) {
	words, err := shellWords(line)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, nil
	}
	switch {
	case words[0].raw == "export":
		words = words[1:]
	case words[0].raw == "declare" && len(words) > 1 && words[1].raw == "-x":
		words = words[2:]
	}
	var out [][2]string
	local := map[string]string{}
	look := func(n string) string {
		if v, ok := local[n]; ok {
			return v
		}
		return lookup(n)
	}
	for _, w := range words {
		name, rest, ok := strings.Cut(w.raw, "=")
		if !ok {
			if validName(w.raw) {
				continue // `export NAME`: nothing to set
			}
			return nil, errNotAssignment
		}
		if !validName(name) {
			return nil, errNotAssignment
		}
		v, err := expandValue(rest, look)
		if err != nil {
			return nil, err
		}
		local[name] = v
		out = append(out, [2]string{name, v})
	}
	return out, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// word is one shell word as written (quotes kept, for expandValue).
type word struct{ raw string }

// shellWords splits a line into words on unquoted blanks, stopping at an
// unquoted #, and refuses what a plain assignment never holds: unclosed
// quotes, command substitution and operators.
func shellWords(line string) ([]word, error) {
	var words []word
	var cur strings.Builder
	in := false // inside a word
	flush := func() {
		if in {
			words = append(words, word{cur.String()})
			cur.Reset()
			in = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !in:
			flush()
			return words, nil
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a quote is not closed (values spanning lines are not read)")
			}
			cur.WriteString(line[i : i+j+2])
			i += j + 1
			in = true
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' {
					j++
				}
			}
			if j >= len(line) {
				return nil, errors.New("a quote is not closed (values spanning lines are not read)")
			}
			cur.WriteString(line[i : j+1])
			i = j
			in = true
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("a line continuation (values spanning lines are not read)")
			}
			cur.WriteString(line[i : i+2])
			i++
			in = true
		case strings.IndexByte(";&|<>()`", c) >= 0:
			return nil, errors.New("a shell command, not a plain assignment")
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	flush()
	return words, nil
}

// expandValue removes the quotes of a value and expands $NAME, ${NAME}
// (unquoted and in double quotes) and a leading ~ (unquoted).
func expandValue(raw string, lookup func(string) string) (string, error) {
	var b strings.Builder
	if raw == "~" || strings.HasPrefix(raw, "~/") {
		b.WriteString(lookup("HOME"))
		raw = raw[1:]
	}
	dq := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\'' && !dq:
			j := strings.IndexByte(raw[i+1:], '\'')
			b.WriteString(raw[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			dq = !dq
		case c == '`':
			return "", errors.New("a shell command, not a plain assignment")
		case c == '\\' && i+1 < len(raw):
			n := raw[i+1]
			if dq && !strings.ContainsRune("$`\"\\", rune(n)) {
				b.WriteByte(c)
			}
			b.WriteByte(n)
			i++
		case c == '$':
			name, size, err := varRef(raw[i+1:])
			if err != nil {
				return "", err
			}
			if size == 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(lookup(name))
			i += size
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// varRef reads the variable after a $: NAME or {NAME}. It returns the
// name and how many bytes it took; 0 bytes for a lone $.
func varRef(s string) (string, int, error) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 || !validName(s[1:end]) {
			return "", 0, errors.New("only ${NAME} is expanded, not other ${...} forms")
		}
		return s[1:end], end + 1, nil
	}
	n := 0
	for n < len(s) && validName(s[:n+1]) {
		n++
	}
	if n == 0 {
		if s != "" && strings.IndexByte("({0123456789?!#@*$-", s[0]) >= 0 {
			return "", 0, errors.New("only $NAME and ${NAME} are expanded")
		}
		return "", 0, nil
	}
	return s[:n], n, nil
}
