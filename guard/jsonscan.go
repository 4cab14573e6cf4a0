package guard

import (
	"strconv"

	"github.com/reinhq/rein/internal/jsonx"
)

// The decision path reads a few top-level fields of a call's arguments
// (path, offset, limit, command) with jsonx, without decoding the whole
// object.

// maxDepth bounds nesting for the canonical hasher; deeper input is
// hashed as opaque bytes.
const maxDepth = 64

func skipSpace[T ~string | ~[]byte](b T, i int) int { return jsonx.SkipSpace(b, i) }

func skipString[T ~string | ~[]byte](b T, i int) int { return jsonx.SkipString(b, i) }

func skipValue[T ~string | ~[]byte](b T, i, depth int) int { return jsonx.SkipValue(b, i, depth) }

// field returns the raw value of the top-level member name of obj.
func field(obj []byte, name string) ([]byte, bool) { return jsonx.Field(obj, name) }

// stringBytes returns the inside of the JSON string raw and whether it
// holds escapes. ok is false when raw is not a string.
func stringBytes(raw []byte) (inner []byte, escaped, ok bool) { return jsonx.StringBytes(raw) }

// fieldString returns the top-level string member name of obj, decoded.
func fieldString(obj []byte, name string) (string, bool) {
	raw, ok := field(obj, name)
	if !ok {
		return "", false
	}
	return jsonx.String(raw)
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
