// Package jsonx is a small JSON scanner for the hot paths of guard and
// replay: it finds members and elements and decodes strings and integers
// in one pass, without building values and, except for decoded strings,
// without allocating. It accepts exactly the JSON that encoding/json
// accepts (ignoring UTF-8 validity) and nests at most MaxDepth levels.
package jsonx

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds nesting; deeper input is rejected.
const MaxDepth = 1000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace[T ~string | ~[]byte](b T, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the index just after the JSON string that starts at
// b[i] == '"', or -1 when it is unterminated or invalid.
func SkipString[T ~string | ~[]byte](b T, i int) int {
	start := i
	for i++; i < len(b); i++ {
		// Past the first bytes (most strings are short), step over eight
		// plain bytes at a time.
		if i-start > 16 {
			for i+8 <= len(b) && plain8(load8(b, i)) {
				i += 8
			}
			if i >= len(b) {
				break
			}
		}
		c := b[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !hex4(b, i+1) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

// load8 reads eight bytes at i, little-endian.
func load8[T ~string | ~[]byte](b T, i int) uint64 {
	_ = b[i+7]
	return uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
		uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
}

// plain8 reports whether none of the eight bytes of x is a quote, a
// backslash or a control character (each would need a closer look).
func plain8(x uint64) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q|(bs-ones)&^bs|(x-ones*0x20)&^x)&high == 0
}

func hex4[T ~string | ~[]byte](b T, i int) bool {
	for k := i; k < i+4; k++ {
		c := b[k]
		if !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f') {
			return false
		}
	}
	return true
}

// SkipValue returns the index just after the JSON value that starts at or
// after b[i], or -1 when there is none. depth is the nesting of the value.
func SkipValue[T ~string | ~[]byte](b T, i, depth int) int {
	i = SkipSpace(b, i)
	if i >= len(b) || depth > MaxDepth {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == end {
			return i + 1
		}
		for {
			if c == '{' {
				i = SkipSpace(b, i)
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i = SkipString(b, i); i < 0 {
					return -1
				}
				i = SkipSpace(b, i)
				if i >= len(b) || b[i] != ':' {
					return -1
				}
				i++
			}
			if i = SkipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ',' {
				i++
				continue
			}
			if b[i] == end {
				return i + 1
			}
			return -1
		}
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	default:
		return number(b, i)
	}
}

func literal[T ~string | ~[]byte](b T, i int, lit string) int {
	if len(b)-i < len(lit) {
		return -1
	}
	for k := 0; k < len(lit); k++ {
		if b[i+k] != lit[k] {
			return -1
		}
	}
	return i + len(lit)
}

// number returns the end of the JSON number at b[i], or -1.
func number[T ~string | ~[]byte](b T, i int) int {
	digits := func(j int) int {
		k := j
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		return k
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// Valid reports whether b is exactly one JSON value (with spaces around).
func Valid[T ~string | ~[]byte](b T) bool {
	end := SkipValue(b, 0, 0)
	return end >= 0 && SkipSpace(b, end) == len(b)
}

// Members calls fn with the raw key (without quotes, escapes kept) and
// the raw value of each member of the JSON object obj, in order, until fn
// returns false. It reports whether obj is a valid object (as far as it
// was read).
func Members(obj []byte, fn func(key, value []byte) bool) bool {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = SkipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return SkipSpace(obj, i+1) == len(obj)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return false
		}
		ke := SkipString(obj, i)
		if ke < 0 {
			return false
		}
		key := obj[i+1 : ke-1]
		i = SkipSpace(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		vs := SkipSpace(obj, i+1)
		ve := SkipValue(obj, vs, 1)
		if ve < 0 {
			return false
		}
		if !fn(key, obj[vs:ve]) {
			return true
		}
		i = SkipSpace(obj, ve)
		if i >= len(obj) {
			return false
		}
		if obj[i] == '}' {
			return SkipSpace(obj, i+1) == len(obj)
		}
		if obj[i] != ',' {
			return false
		}
		i = SkipSpace(obj, i+1)
	}
}

// Elements calls fn with each raw element of the JSON array arr until fn
// returns false. It reports whether arr is a valid array.
func Elements(arr []byte, fn func(value []byte) bool) bool {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = SkipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return SkipSpace(arr, i+1) == len(arr)
	}
	for {
		vs := i
		ve := SkipValue(arr, vs, 1)
		if ve < 0 {
			return false
		}
		if !fn(arr[vs:ve]) {
			return true
		}
		i = SkipSpace(arr, ve)
		if i >= len(arr) {
			return false
		}
		if arr[i] == ']' {
			return SkipSpace(arr, i+1) == len(arr)
		}
		if arr[i] != ',' {
			return false
		}
		i = SkipSpace(arr, i+1)
	}
}

// Field returns the raw value of the top-level member name of the object
// obj. Keys are compared as written (an escaped key never matches).
func Field(obj []byte, name string) (value []byte, ok bool) {
	Members(obj, func(k, v []byte) bool {
		if string(k) == name {
			value, ok = v, true
			return false
		}
		return true
	})
	return value, ok
}

// StringBytes returns the inside of the JSON string raw and whether it
// holds escapes; ok is false when raw is not a string.
func StringBytes(raw []byte) (inner []byte, escaped, ok bool) {
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

// String decodes the JSON string raw as encoding/json does (invalid UTF-8
// and lone surrogates become U+FFFD); ok is false when raw is not a valid
// JSON string.
func String(raw []byte) (string, bool) {
	if SkipSpace(raw, 0) != 0 || len(raw) < 2 || raw[0] != '"' || SkipString(raw, 0) != len(raw) {
		return "", false
	}
	return unescape(raw[1 : len(raw)-1]), true
}

// unescape decodes the inside of a valid JSON string.
func unescape(inner []byte) string {
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var out strings.Builder
	out.Grow(len(inner))
	valid := utf8.Valid(inner)
	for i := 0; i < len(inner); {
		// Copy the run up to the next escape in one go (rune by rune when
		// the text is not valid UTF-8).
		start := i
		for i < len(inner) && inner[i] != '\\' {
			i++
		}
		if run := inner[start:i]; valid {
			out.Write(run)
		} else {
			for k := 0; k < len(run); {
				r, size := utf8.DecodeRune(run[k:])
				if r == utf8.RuneError && size == 1 {
					out.WriteRune(utf8.RuneError)
				} else {
					out.Write(run[k : k+size])
				}
				k += size
			}
		}
		if i >= len(inner) {
			break
		}
		i++ // the backslash
		if i >= len(inner) {
			break // only for unchecked input
		}
		switch inner[i] {
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			if i+4 >= len(inner) {
				out.WriteRune(utf8.RuneError) // only for unchecked input
				return out.String()
			}
			r := rune(hexVal(inner[i+1 : i+5]))
			i += 4
			if utf16.IsSurrogate(r) {
				// A following \uXXXX may complete the pair.
				r2 := utf8.RuneError
				if i+6 < len(inner) && inner[i+1] == '\\' && inner[i+2] == 'u' {
					r2 = utf16.DecodeRune(r, rune(hexVal(inner[i+3:i+7])))
				}
				if r2 != utf8.RuneError {
					r = r2
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out.WriteRune(r)
		default: // " \ /
			out.WriteByte(inner[i])
		}
		i++
	}
	return out.String()
}

func hexVal(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= uint32(c - '0')
		default:
			v |= uint32(c|0x20-'a') + 10
		}
	}
	return v
}

// Bool reports whether raw is the literal true.
func Bool(raw []byte) bool { return string(raw) == "true" }
