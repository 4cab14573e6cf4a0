package jsonx

import (
	"bytes"
	"unicode/utf8"
	"unsafe"
)

// The functions below read a value held whole in a string or []byte,
// without a Scanner. Indexes are offsets into b; -1 means malformed.

// SkipSpace returns the index of the first byte at or after b[i] that is
// not whitespace.
func SkipSpace[T ~string | ~[]byte](b T, i int) int { return skipSpace(view(b), i) }

// SkipString returns the index just after the JSON string whose opening
// quote is at b[i], or -1 when it is invalid or unterminated.
func SkipString[T ~string | ~[]byte](b T, i int) int { return max(scanString(view(b), i), -1) }

// SkipValue returns the index just after the JSON value that starts at or
// after b[i], or -1 when there is none. depth is the nesting of the value
// (0 at the top level); containers nest at most MaxDepth deep.
func SkipValue[T ~string | ~[]byte](b T, i, depth int) int {
	return max(scanValue(view(b), i, depth), -1)
}

// Valid reports whether b is exactly one JSON value, with whitespace
// around it allowed: what json.Valid reports, nesting beyond MaxDepth
// aside.
func Valid[T ~string | ~[]byte](b T) bool {
	t := view(b)
	end := scanValue(t, 0, 0)
	return end >= 0 && skipSpace(t, end) == len(t)
}

// Members calls fn with the raw name (without quotes, escapes kept) and
// the raw value of each member of the JSON object obj, in order, until fn
// returns false. It reports whether obj is a valid object, as far as it
// was read. The slices alias obj.
func Members(obj []byte, fn func(key, value []byte) bool) bool {
	t := unsafeString(obj)
	i := skipSpace(t, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	if i = skipSpace(t, i+1); i < len(obj) && obj[i] == '}' {
		return skipSpace(t, i+1) == len(obj)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return false
		}
		ke := scanString(t, i)
		if ke < 0 {
			return false
		}
		key := obj[i+1 : ke-1]
		if i = skipSpace(t, ke); i >= len(obj) || obj[i] != ':' {
			return false
		}
		vs := skipSpace(t, i+1)
		ve := scanValue(t, vs, 1)
		if ve < 0 {
			return false
		}
		if !fn(key, obj[vs:ve]) {
			return true
		}
		if i = skipSpace(t, ve); i >= len(obj) {
			return false
		}
		if obj[i] == '}' {
			return skipSpace(t, i+1) == len(obj)
		}
		if obj[i] != ',' {
			return false
		}
		i = skipSpace(t, i+1)
	}
}

// Elements calls fn with each raw element of the JSON array arr, in
// order, until fn returns false. It reports whether arr is a valid
// array, as far as it was read. The slices alias arr.
func Elements(arr []byte, fn func(value []byte) bool) bool {
	t := unsafeString(arr)
	i := skipSpace(t, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	if i = skipSpace(t, i+1); i < len(arr) && arr[i] == ']' {
		return skipSpace(t, i+1) == len(arr)
	}
	for {
		ve := scanValue(t, i, 1)
		if ve < 0 {
			return false
		}
		if !fn(arr[i:ve]) {
			return true
		}
		if i = skipSpace(t, ve); i >= len(arr) {
			return false
		}
		if arr[i] == ']' {
			return skipSpace(t, i+1) == len(arr)
		}
		if arr[i] != ',' {
			return false
		}
		i = skipSpace(t, i+1)
	}
}

// Field returns the raw value of the top-level member name of the object
// obj. Names are compared as written: an escaped name never matches.
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

// StringBytes returns the inside of the JSON string raw, escapes kept,
// and whether it holds escapes; ok is false when raw is not a string.
// The result aliases raw.
func StringBytes(raw []byte) (inner []byte, escaped, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false, false
	}
	inner = raw[1 : len(raw)-1]
	return inner, bytes.IndexByte(inner, '\\') >= 0, true
}

// String decodes the JSON string raw (no whitespace around it) as
// encoding/json does, invalid UTF-8 and lone surrogates becoming U+FFFD;
// ok is false when raw is not a valid JSON string.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || scanString(unsafeString(raw), 0) != len(raw) {
		return "", false
	}
	return decode(raw), true
}

// decode unescapes the string raw, which starts with its opening quote.
func decode(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	j := bytes.IndexByte(inner, '\\')
	if j < 0 {
		return Text(inner)
	}
	out, _, _ := unescape(append(make([]byte, 0, len(inner)), inner[:j]...), unsafeString(raw), j+1, true)
	if !utf8.Valid(out) {
		return Text(out)
	}
	// out is never written again: share it rather than copy it.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// Text returns b as a string with each byte of invalid UTF-8 replaced by
// U+FFFD, as encoding/json replaces them when it decodes a string.
func Text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// Bool reports whether raw is the literal true.
func Bool(raw []byte) bool { return string(raw) == "true" }

// The functions below read values already known to be valid JSON
// (because an enclosing value was checked by Members, Elements or Valid),
// which makes reading nested values cheap: they check only that strings
// end and brackets balance. Given invalid JSON they return wrong values
// or false, never panic.

// MembersValid is Members for an object already known to be valid.
func MembersValid(obj []byte, fn func(key, value []byte) bool) bool {
	t := unsafeString(obj)
	i := skipSpace(t, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	for i = skipSpace(t, i+1); i < len(obj) && obj[i] == '"'; {
		ke, ok := skipQuoted(t, i)
		if !ok {
			return false
		}
		key := obj[i+1 : ke-1]
		if i = skipSpace(t, ke); i >= len(obj) || obj[i] != ':' {
			return false
		}
		vs := skipSpace(t, i+1)
		ve := skipLoose(t, vs)
		if ve < 0 {
			return false
		}
		if !fn(key, obj[vs:ve]) {
			return true
		}
		if i = skipSpace(t, ve); i < len(obj) && obj[i] == ',' {
			i = skipSpace(t, i+1)
		}
	}
	return i < len(obj) && obj[i] == '}'
}

// ElementsValid is Elements for an array already known to be valid.
func ElementsValid(arr []byte, fn func(value []byte) bool) bool {
	t := unsafeString(arr)
	i := skipSpace(t, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	for i = skipSpace(t, i+1); i < len(arr) && arr[i] != ']'; {
		ve := skipLoose(t, i)
		if ve < 0 {
			return false
		}
		if !fn(arr[i:ve]) {
			return true
		}
		if i = skipSpace(t, ve); i < len(arr) && arr[i] == ',' {
			i = skipSpace(t, i+1)
		}
	}
	return i < len(arr)
}

// StringValid decodes a string already known to be valid JSON, like
// String; ok is false when raw is not a string.
func StringValid(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	return decode(raw), true
}
