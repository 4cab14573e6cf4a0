package jsonx

import (
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unescape appends to dst the content of a string from b[i] (the bytes
// before it are already in dst) up to the closing quote, and returns the
// index after that quote. Escapes are decoded as encoding/json decodes
// them: a \u escape of a UTF-16 surrogate that does not form a pair
// becomes U+FFFD. Control characters are refused unless lenient. On
// failure it returns the offset of the problem.
func unescape(dst []byte, b string, i int, lenient bool) ([]byte, int, problem) {
	for i < len(b) {
		c := b[i]
		if c != '\\' {
			switch {
			case c == '"':
				return dst, i + 1, fine
			case c < 0x20 && !lenient:
				return dst, i, controlChar
			case i+8 > len(b):
				dst = append(dst, c)
				i++
				continue
			}
			// A run of plain bytes. When it ends within the word, copy
			// the whole word and keep what comes before its end (runs
			// between escapes are often short); otherwise find its end
			// first and copy it at once.
			x := load8(b, i)
			m := special(x)
			if lenient {
				m = quoteOrBackslashMask(x)
			}
			if m != 0 {
				n := max(bits.TrailingZeros64(m)>>3, 1)
				if cap(dst)-len(dst) >= 8 {
					dst = append(dst, b[i:i+8]...)[:len(dst)+n]
				} else {
					dst = append(dst, b[i:i+n]...) // never grow the buffer for bytes it will not keep
				}
				i += n
				continue
			}
			k := nextSpecial(b, i+8) // a control character just ends the run when lenient
			dst = append(dst, b[i:k]...)
			i = k
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch e := b[i+1]; e {
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
			r, ok := hex4(b, i+2)
			if !ok {
				return dst, i, badEscape
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
					r2, ok = hex4(b, i+2)
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
	return dst, len(b), unexpectedEnd
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
// at b[i], checking only that it ends. Runs of 32 plain bytes are crossed
// with a vectorised search for the next quote, which ends the string when
// an even number of backslashes precedes it.
func skipQuoted(b string, i int) (int, bool) {
	j := i + 1
	for {
		// Eight bytes at a time, up to four plain words in a row.
		plain := 0
		for j+8 <= len(b) && plain < 4 {
			m := quoteOrBackslashMask(load8(b, j))
			if m == 0 {
				j += 8
				plain++
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
			if b[j] == '"' {
				return j + 1, true
			}
			j += 2 // a backslash and the byte it escapes
			plain = 0
		}
		if plain < 4 {
			// The last bytes, one at a time.
			for ; j < len(b); j++ {
				switch b[j] {
				case '"':
					return j + 1, true
				case '\\':
					j++
				}
			}
			return len(b), false
		}
		k := strings.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), false
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
