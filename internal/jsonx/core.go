// Package jsonx reads and writes JSON on the hot paths of rein (provider
// streams, session logs, guard decisions) without reflection and, on the
// common path, without allocating.
//
// It has three parts:
//
//   - Scanner, a pull reader over one []byte: the caller walks the shape
//     it expects (Object and Member, Array and Element, Str, Int, Raw,
//     Skip…) and the scanner checks the grammar as it goes, recording the
//     first error and its offset.
//   - Functions over a whole value held in a string or []byte (Valid,
//     SkipValue, Members, Field, String…), for callers that only need to
//     find a few members.
//   - AppendString, which writes a Go string as a JSON string.
//
// Strictness. Unless a Scanner is Lenient, everything read or skipped is
// checked against the JSON grammar exactly as encoding/json checks it
// (json.Valid accepts a value if and only if Skip does), except that
// nesting is limited to MaxDepth and that UTF-8 is not checked: invalid
// bytes inside strings are passed through as they are. Use Text or String
// to replace them with U+FFFD as encoding/json does.
//
// Aliasing. Strings without escapes and raw values are returned as
// slices of the input, which the caller must not modify. Strings with
// escapes are unescaped into a buffer owned by the Scanner. Either way a
// returned slice is valid until the next Reset; the caller copies what it
// keeps longer.
package jsonx

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// MaxDepth bounds the nesting of arrays and objects in skipped and
// validated values, so that hostile input cannot recurse without limit.
// Deeper input is rejected as malformed.
const MaxDepth = 512

// SyntaxError reports malformed JSON: what was wrong, and the offset in
// the input at which it was found.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON: %s at offset %d", e.Msg, e.Offset)
}

// problem identifies what the core functions found wrong.
type problem uint8

const (
	fine problem = iota
	unexpectedEnd
	badValue
	badString
	controlChar
	badEscape
	badNumber
	badLiteral
	badObject
	badArray
	badColon
	tooDeep
)

func (p problem) String() string {
	return [...]string{"", "unexpected end of input", "expected a value", "expected a string", "control character in string",
		"invalid escape in string", "invalid number", "invalid literal", "expected ',' or '}' after an object member",
		"expected ',' or ']' after an array element", "expected ':' after an object key", "nesting too deep"}[p]
}

// The core functions below read the input as a string: string and
// []byte inputs share one implementation that the compiler inlines
// freely (generic code would not be). The view is read only, and kept no
// longer than the input is read (a Scanner keeps it until Reset).

// unsafeString views b as a string without copying it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// view views b, a string or a byte slice, as a string without copying it:
// a slice's header starts with the same pointer and length as a string's.
func view[T ~string | ~[]byte](b T) string { return *(*string)(unsafe.Pointer(&b)) }

// Bytes that end a run of plain string content, found eight at a time:
// ones*c repeats the byte c in every lane of a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load8 reads the eight bytes at b[i:], little-endian (the compiler
// turns this into one load).
func load8(b string, i int) uint64 {
	w := b[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// special flags, with its high bit, each byte of the word x that is a
// quote, a backslash or a control character. The lowest flagged byte is
// always one of them; a borrow may flag bytes above it wrongly, which is
// harmless as scanning resumes after the lowest.
func special(x uint64) uint64 {
	q := x ^ (ones * '"')
	k := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x | (q-ones)&^q | (k-ones)&^k) & highs
}

// nextSpecial returns the index of the first quote, backslash or control
// character at or after b[i], or len(b) when there is none.
func nextSpecial(b string, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := special(load8(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

// skipSpace returns the index of the first byte at or after b[i] that is
// not JSON whitespace.
func skipSpace(b string, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// The scanning functions return the index just after what they read,
// or, when it is malformed, a negative number from fail that encodes
// where and what the problem is.

// fail encodes a problem found at offset off.
func fail(off int, p problem) int { return -1 - (off<<4 | int(p)) }

// failure decodes what fail encoded.
func failure(n int) (off int, p problem) { return (-1 - n) >> 4, problem((-1 - n) & 15) }

// scanString checks the string whose opening quote is at b[i].
func scanString(b string, i int) int {
	for j := i + 1; j < len(b); j++ {
		// Past the first bytes (most strings are short), step over
		// plain bytes eight at a time.
		if j-i > 16 {
			for j+8 <= len(b) {
				if m := special(load8(b, j)); m != 0 {
					j += bits.TrailingZeros64(m) >> 3
					break
				}
				j += 8
			}
			if j >= len(b) {
				break
			}
		}
		c := b[j]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		switch {
		case c == '"':
			return j + 1
		case c < 0x20:
			return fail(j, controlChar)
		case j+1 >= len(b):
			return fail(len(b), unexpectedEnd)
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j++
		case 'u':
			if j+5 >= len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
				return fail(j, badEscape)
			}
			j += 5
		default:
			return fail(j, badEscape)
		}
	}
	return fail(len(b), unexpectedEnd)
}

func isHex(c byte) bool { return c-'0' < 10 || c|0x20-'a' < 6 }

// hex4 decodes the four hex digits at b[i:].
func hex4(b string, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := b[k]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// scanNumber checks the number that starts at b[i].
func scanNumber(b string, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	default:
		return fail(i, badNumber)
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == j {
			return fail(i, badNumber)
		}
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == j {
			return fail(i, badNumber)
		}
	}
	return i
}

// scanLiteral checks that the literal word (true, false or null) is at
// b[i].
func scanLiteral(b string, i int, word string) int {
	if len(b)-i < len(word) || b[i:i+len(word)] != word {
		return fail(i, badLiteral)
	}
	return i + len(word)
}

// scanValue checks the value that starts at or after b[i], at nesting
// depth depth.
func scanValue(b string, i, depth int) int {
	i = skipSpace(b, i)
	if i >= len(b) {
		return fail(i, unexpectedEnd)
	}
	switch c := b[i]; c {
	case '"':
		return scanString(b, i)
	case 't':
		return scanLiteral(b, i, "true")
	case 'f':
		return scanLiteral(b, i, "false")
	case 'n':
		return scanLiteral(b, i, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return scanNumber(b, i)
	case '[':
		if depth >= MaxDepth {
			return fail(i, tooDeep)
		}
		if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = scanValue(b, i, depth+1); i < 0 {
				return i
			}
			if i = skipSpace(b, i); i >= len(b) {
				return fail(i, unexpectedEnd)
			}
			if c = b[i]; c == ']' {
				return i + 1
			}
			if c != ',' {
				return fail(i, badArray)
			}
			i++
		}
	case '{':
		if depth >= MaxDepth {
			return fail(i, tooDeep)
		}
		if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i = skipSpace(b, i); i >= len(b) || b[i] != '"' {
				return fail(i, orEnd(b, i, badString))
			}
			if i = scanString(b, i); i < 0 {
				return i
			}
			if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
				return fail(i, orEnd(b, i, badColon))
			}
			if i = scanValue(b, i+1, depth+1); i < 0 {
				return i
			}
			if i = skipSpace(b, i); i >= len(b) {
				return fail(i, unexpectedEnd)
			}
			if c = b[i]; c == '}' {
				return i + 1
			}
			if c != ',' {
				return fail(i, badObject)
			}
			i++
		}
	}
	return fail(i, badValue)
}

// orEnd returns p, or unexpectedEnd when i is past the input.
func orEnd(b string, i int, p problem) problem {
	if i >= len(b) {
		return unexpectedEnd
	}
	return p
}

// StopMask flags, with its high bit, each byte of the eight-byte word x
// that ends a run of plain string content: a quote, a backslash or a
// control character. The lowest flagged byte is always one of them; a
// borrow may flag bytes above it, so only the lowest may be used.
func StopMask(x uint64) uint64 { return special(x) }

// Hex4 decodes the four hex digits at b[i:], reporting whether they are.
func Hex4[T ~string | ~[]byte](b T, i int) (rune, bool) {
	return hex4(string(b[min(i, len(b)):min(i+4, len(b))]), 0)
}
