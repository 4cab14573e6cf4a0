package jsonx

import (
	"math/bits"
	"unicode/utf8"
)

// AppendString appends s to dst as a JSON string and returns the
// extended buffer. It escapes only what JSON requires: the quote, the
// backslash and the control characters (\n, \r and \t by name, the others
// as \u00XX); each byte of invalid UTF-8 becomes \ufffd, as encoding/json
// replaces it, so the output is always valid JSON. Unlike encoding/json's
// defaults, <, >, &, U+2028 and U+2029 are written as they are, and \b
// and \f as \u0008 and \u000c.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Step over eight plain ASCII bytes at a time.
		for i+8 <= len(s) {
			x := load8(s, i)
			if m := special(x) | x&highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				start = i + 1
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
