package guard

import (
	"encoding/json"
	"strconv"
)

// This file holds a small allocation-free JSON scanner: the decision path
// reads a few top-level fields of a call's arguments (path, offset, limit,
// command) without decoding the whole object.

// maxDepth bounds nesting for the scanner and the canonical hasher; deeper
// input is treated as opaque bytes.
const maxDepth = 64

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace[T ~string | ~[]byte](b T, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just after the JSON string starting at
// b[i] == '"', or -1 if it is unterminated.
func skipString[T ~string | ~[]byte](b T, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index just after the JSON value starting at b[i]
// (after spaces), or -1 when the input is not valid enough to skip.
func skipValue[T ~string | ~[]byte](b T, i, depth int) int {
	i = skipSpace(b, i)
	if i >= len(b) || depth > maxDepth {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == close {
			return i + 1
		}
		for {
			if c == '{' {
				i = skipSpace(b, i)
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i = skipString(b, i); i < 0 {
					return -1
				}
				i = skipSpace(b, i)
				if i >= len(b) || b[i] != ':' {
					return -1
				}
				i++
			}
			if i = skipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ',' {
				i++
				continue
			}
			if b[i] == close {
				return i + 1
			}
			return -1
		}
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || isSpace(c) {
				break
			}
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// field returns the raw value of the top-level member name of the JSON
// object obj. Keys are compared byte for byte (escaped keys never match).
func field(obj []byte, name string) ([]byte, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil, false
	}
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return nil, false
		}
		ks := i + 1
		ke := skipString(obj, i)
		if ke < 0 {
			return nil, false
		}
		key := obj[ks : ke-1]
		i = skipSpace(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		vs := skipSpace(obj, i+1)
		ve := skipValue(obj, vs, 1)
		if ve < 0 {
			return nil, false
		}
		if string(key) == name {
			return obj[vs:ve], true
		}
		i = skipSpace(obj, ve)
		if i >= len(obj) || obj[i] != ',' {
			return nil, false
		}
		i++
	}
}

// stringBytes returns the inside of the JSON string raw and whether it
// holds escapes. ok is false when raw is not a string.
func stringBytes(raw []byte) (inner []byte, escaped, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false, false
	}
	inner = raw[1 : len(raw)-1]
	for _, c := range inner {
		if c == '\\' {
			return inner, true, true
		}
	}
	return inner, false, true
}

// fieldString returns the top-level string member name of obj, decoded.
func fieldString(obj []byte, name string) (string, bool) {
	raw, ok := field(obj, name)
	if !ok {
		return "", false
	}
	inner, escaped, ok := stringBytes(raw)
	if !ok {
		return "", false
	}
	if !escaped {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// fieldInt returns the top-level integer member name of obj. Numbers
// written as strings ("10") are accepted, as models often send them.
func fieldInt(obj []byte, name string) (int, bool) {
	raw, ok := field(obj, name)
	if !ok {
		return 0, false
	}
	if inner, escaped, isStr := stringBytes(raw); isStr {
		if escaped {
			return 0, false
		}
		raw = inner
	}
	n, neg, i := 0, false, 0
	if i < len(raw) && raw[i] == '-' {
		neg, i = true, 1
	}
	if i >= len(raw) {
		return 0, false
	}
	for ; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			if c == '.' || c == 'e' || c == 'E' {
				f, err := strconv.ParseFloat(string(raw), 64)
				if err != nil {
					return 0, false
				}
				return int(f), true
			}
			return 0, false
		}
		if n > 1<<40 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
