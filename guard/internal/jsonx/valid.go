package jsonx

import "bytes"

// The functions below read values that are already known to be valid
// JSON (because an enclosing value was checked with Members, Elements or
// Valid): they skip strings by searching for the closing quote instead of
// checking every byte, which makes reading nested values cheap. Given
// invalid JSON they return garbage or false, never panic.

// skipValid returns the index after the valid value starting at or after
// b[i], or -1.
func skipValid(b []byte, i int) int {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipStringValid(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipStringValid(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if j == i {
					return -1
				}
				return j
			}
			j++
		}
		return j
	}
}

// skipStringValid returns the index after the string at b[i] == '"'.
func skipStringValid(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i+1:], '"')
		if j < 0 {
			return -1
		}
		end := i + 1 + j
		n := 0
		for k := end - 1; k > i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return end + 1
		}
		i = end
	}
}

// MembersValid is Members for an object already known to be valid.
func MembersValid(obj []byte, fn func(key, value []byte) bool) bool {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = SkipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		ke := skipStringValid(obj, i)
		if ke < 0 {
			return false
		}
		key := obj[i+1 : ke-1]
		i = SkipSpace(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		vs := SkipSpace(obj, i+1)
		ve := skipValid(obj, vs)
		if ve < 0 {
			return false
		}
		if !fn(key, obj[vs:ve]) {
			return true
		}
		i = SkipSpace(obj, ve)
		if i < len(obj) && obj[i] == ',' {
			i = SkipSpace(obj, i+1)
		}
	}
	return i < len(obj) && obj[i] == '}'
}

// ElementsValid is Elements for an array already known to be valid.
func ElementsValid(arr []byte, fn func(value []byte) bool) bool {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = SkipSpace(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		ve := skipValid(arr, i)
		if ve < 0 {
			return false
		}
		if !fn(arr[i:ve]) {
			return true
		}
		i = SkipSpace(arr, ve)
		if i < len(arr) && arr[i] == ',' {
			i = SkipSpace(arr, i+1)
		}
	}
	return i < len(arr)
}

// StringValid decodes a string already known to be valid JSON; ok is
// false when raw is not a string.
func StringValid(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	return unescape(raw[1 : len(raw)-1]), true
}
