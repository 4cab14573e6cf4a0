package openai

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// SWAR constants: a byte repeated in every lane of a uint64.
const (
	lanes1     = 0x0101010101010101
	lanes80    = 0x8080808080808080
	lanesQuote = '"' * lanes1
	lanesBack  = '\\' * lanes1
)

// specials flags the bytes of v (eight, little-endian) that are '"' or
// '\\': a lane is zero where the byte matched, and the lowest flagged
// lane is exact (higher ones may be false positives).
func specials(v uint64) uint64 {
	q, k := v^lanesQuote, v^lanesBack
	return (((q - lanes1) &^ q) | ((k - lanes1) &^ k)) & lanes80
}

// longQuoteOrBackslash is quoteOrBackslash for long inputs: the closing
// quote is found with a vectorised search, then any backslash before it.
func longQuoteOrBackslash(b []byte) int {
	q := bytes.IndexByte(b, '"')
	head := b
	if q >= 0 {
		head = b[:q]
	}
	if k := bytes.IndexByte(head, '\\'); k >= 0 {
		return k
	}
	return q
}

// quoteOrBackslash returns the index of the first '"' or '\\' in b, or
// -1. It tests eight bytes at a time, which beats both a byte loop and a
// vectorised search on the short strings JSON chunks are made of.
func quoteOrBackslash(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if i == 32 {
			// A long string (encrypted reasoning, a whole reply):
			// vectorised searches win from here.
			if k := longQuoteOrBackslash(b[i:]); k >= 0 {
				return i + k
			}
			return -1
		}
		if m := specials(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}

// strBytes reads a string (or null, as empty) and returns its unescaped
// bytes, valid until the next call.
func (s *scanner) strBytes() []byte {
	switch s.peek() {
	case '"':
	case 'n':
		s.literal("null")
		return nil
	default:
		s.fail("expected a string")
		return nil
	}
	return s.quoted()
}

// quoted reads the string whose opening quote is at the cursor.
func (s *scanner) quoted() []byte {
	b, start := s.b, s.i+1
	if start+8 <= len(b) {
		// Most member names and many values end within the first word.
		if m := specials(binary.LittleEndian.Uint64(b[start:])); m != 0 {
			k := start + bits.TrailingZeros64(m)/8
			if b[k] == '"' {
				s.i = k + 1
				return b[start:k]
			}
			return s.slowString(start)
		}
	}
	k := quoteOrBackslash(b[start:])
	if k < 0 {
		s.i = len(b)
		s.fail("unterminated string")
		return nil
	}
	k += start
	if b[k] == '"' {
		s.i = k + 1
		return b[start:k]
	}
	return s.slowString(start)
}

// slowString unescapes a string that starts at s.b[start].
func (s *scanner) slowString(start int) []byte {
	s.escaped = true
	out := s.buf[:0]
	i := start
	for i < len(s.b) {
		c := s.b[i]
		switch {
		case c == '"':
			s.i = i + 1
			s.buf = out
			return out
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s.b) {
			break
		}
		e := s.b[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s.b, i)
			if !ok {
				s.i = i
				s.fail("invalid \\u escape")
				return nil
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if i+6 <= len(s.b) && s.b[i] == '\\' && s.b[i+1] == 'u' {
					r2, ok2 = hex4(s.b, i+2)
				}
				if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			s.i = i
			s.fail("invalid escape")
			return nil
		}
	}
	s.buf = out
	s.fail("unterminated string")
	return nil
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// stableBytes reads a string (or null) like strBytes, but the result
// stays valid until the input changes: it aliases the input unless the
// string held escapes, in which case it is a copy.
func (s *scanner) stableBytes() []byte {
	s.escaped = false
	b := s.strBytes()
	if s.escaped {
		return append([]byte(nil), b...)
	}
	return b
}

// str reads a string (or null, as "").
func (s *scanner) str() string {
	b := s.strBytes()
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// setStr reads a string into *dst, reusing *dst when the bytes are equal,
// so that fields repeated on every chunk (ids, model names) allocate once.
func (s *scanner) setStr(dst *string) {
	b := s.strBytes()
	if string(b) != *dst {
		*dst = string(b)
	}
}
