package jsonx

import (
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unescape appends to dst the content of a string from its first
// backslash on: in runs from that backslash to the closing quote
// (excluded), and every backslash in it starts an escape, which the
// caller checked by finding the closing quote. Escapes are decoded as
// encoding/json decodes them: a \u escape of a UTF-16 surrogate that does
// not form a pair becomes U+FFFD. On a malformed escape it returns its
// offset in in.
func unescape(dst []byte, in string) ([]byte, int, problem) {
	for i := 0; i < len(in); {
		if c := in[i]; c != '\\' {
			// Copy the run up to the next backslash: a word at a time
			// first (runs between escapes are often short), then with a
			// vectorised search.
			k := i + 1
			if k+8 <= len(in) {
				if m := backslashMask(load8(in, k)); m != 0 {
					k += bits.TrailingZeros64(m) >> 3
				} else if n := strings.IndexByte(in[k+8:], '\\'); n >= 0 {
					k += 8 + n
				} else {
					k = len(in)
				}
			} else {
				for k < len(in) && in[k] != '\\' {
					k++
				}
			}
			dst = append(dst, in[i:k]...)
			i = k
			continue
		}
		if i+1 >= len(in) {
			return dst, i, badEscape
		}
		switch e := in[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(in, i+2)
			if !ok {
				return dst, i, badEscape
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
					r2, ok = hex4(in, i+2)
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return dst, i, badEscape
		}
		i += 2
	}
	return dst, len(in), fine
}

// backslashMask flags, like special, the backslashes of the word x.
func backslashMask(x uint64) uint64 {
	k := x ^ (ones * '\\')
	return (k - ones) &^ k & highs
}

// quoteOrBackslashMask flags, like special, the quotes and backslashes
// of the word x.
func quoteOrBackslashMask(x uint64) uint64 {
	q := x ^ (ones * '"')
	k := x ^ (ones * '\\')
	return ((q-ones)&^q | (k-ones)&^k) & highs
}

// quoteOrBackslash returns the index of the first '"' or '\\' in b, or
// -1. Eight bytes at a time beats both a byte loop and a vectorised
// search on the short strings JSON is mostly made of; past the first 32
// bytes the vectorised searches win.
func quoteOrBackslash(b string) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if i == 32 {
			q := strings.IndexByte(b[i:], '"')
			head := b[i:]
			if q >= 0 {
				head = head[:q]
			}
			if k := strings.IndexByte(head, '\\'); k >= 0 {
				return i + k
			}
			if q < 0 {
				return -1
			}
			return i + q
		}
		if m := quoteOrBackslashMask(load8(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}

// skipQuoted returns the index after the string whose opening quote is
// at b[i], checking only that it ends. Long strings are crossed from
// quote to quote with a vectorised search: a quote ends the string when
// an even number of backslashes precedes it.
func skipQuoted(b string, i int) (int, bool) {
	j := i + 1
	for j+8 <= len(b) && j-i <= 32 {
		m := quoteOrBackslashMask(load8(b, j))
		if m == 0 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(m) >> 3
		if b[j] == '"' {
			return j + 1, true
		}
		j += 2 // a backslash and the byte it escapes
	}
	for j <= len(b) {
		k := strings.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n&1 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
	return len(b), false
}

// skipLoose moves past the value that starts at or after b[i], checking
// only that strings end, brackets balance, literals are spelled right
// and numbers are made of number characters.
func skipLoose(b string, i int) int {
	var stack [32]byte
	closers := stack[:0]
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return fail(i, unexpectedEnd)
		}
		switch c := b[i]; c {
		case '"':
			end, ok := skipQuoted(b, i)
			if !ok {
				return fail(end, unexpectedEnd)
			}
			i = end
		case '{', '[':
			if len(closers) >= MaxDepth {
				return fail(i, tooDeep)
			}
			closers = append(closers, c+2) // '{'+2 == '}', '['+2 == ']'
			i++
			continue
		case '}', ']':
			if len(closers) == 0 || closers[len(closers)-1] != c {
				return fail(i, badValue)
			}
			closers = closers[:len(closers)-1]
			i++
		case ',', ':':
			if len(closers) == 0 {
				return fail(i, badValue)
			}
			i++
			continue
		case 't':
			i = scanLiteral(b, i, "true")
		case 'f':
			i = scanLiteral(b, i, "false")
		case 'n':
			i = scanLiteral(b, i, "null")
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			i = numberChars(b, i)
		default:
			return fail(i, badValue)
		}
		if i < 0 || len(closers) == 0 {
			return i
		}
	}
}

// numberChars returns the index after the run of number characters at
// b[i], which must end the input or be followed by a delimiter.
func numberChars(b string, i int) int {
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case '0' <= c && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
		case c == ',', c == '}', c == ']', c <= ' ':
			return i
		default:
			return fail(i, badNumber)
		}
	}
	return i
}
