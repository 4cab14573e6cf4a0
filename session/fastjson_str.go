package session

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// str reads a string value. Strings with invalid UTF-8 or lone
// surrogates are left to the slow path (encoding/json replaces them).
func (s *scanner) str() (string, bool) {
	raw, esc, nonASCII, ok := s.strSpan()
	if !ok {
		return "", false
	}
	if !esc {
		if nonASCII && !utf8.Valid(raw) {
			return "", false
		}
		return s.keep(raw), true
	}
	out, ok := s.unescape(raw)
	if !ok || (nonASCII && !utf8.Valid(out)) {
		return "", false
	}
	return s.keep(out), true
}

// Strings are copied into shared blocks rather than allocated one by
// one: a session holds hundreds of thousands of them, and one allocation
// each costs time and size-class rounding. A block lives as long as any
// string in it, which suits a log kept whole in memory. Strings are
// immutable and a block is only ever appended to, so sharing is safe.
const (
	minBlock   = 4 << 10
	maxBlock   = 256 << 10
	ownBlockAt = 32 << 10 // strings this long get an allocation of their own
)

// keep returns b as a string that does not alias the scanner's input.
func (s *scanner) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) >= ownBlockAt {
		return string(b)
	}
	if cap(s.block)-len(s.block) < len(b) {
		size := min(max(2*cap(s.block), minBlock), maxBlock)
		s.block = make([]byte, 0, max(size, len(b)))
	}
	start := len(s.block)
	s.block = append(s.block, b...)
	return unsafe.String(&s.block[start], len(b))
}

// istr reads a string value that is likely to repeat, sharing its memory.
func (s *scanner) istr() (string, bool) {
	save := s.i
	raw, esc, nonASCII, ok := s.strSpan()
	if !ok {
		return "", false
	}
	if esc || nonASCII || len(raw) > 64 || len(raw) == 0 {
		s.i = save
		return s.str()
	}
	slot := &s.recent[(len(raw)*31+int(raw[0])+int(raw[len(raw)-1])*7)&(len(s.recent)-1)]
	if *slot == string(raw) {
		return *slot, true
	}
	if v, hit := s.intern[string(raw)]; hit {
		*slot = v
		return v, true
	}
	v := string(raw)
	if s.intern != nil && len(s.intern) < 4096 {
		s.intern[v] = v
		*slot = v
	}
	return v, true
}

// unescape decodes the escapes of a string's content.
func (s *scanner) unescape(raw []byte) ([]byte, bool) {
	out := s.scratch[:0]
	for i := 0; i < len(raw); i++ {
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 {
			out = append(out, raw[i:]...)
			break
		}
		out = append(out, raw[i:i+j]...)
		i += j + 1
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
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
			r := rune(hex4(raw[i+1 : i+5]))
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return nil, false
				}
				r2 := rune(hex4(raw[i+3 : i+7]))
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return nil, false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
		}
	}
	s.scratch = out
	return out, true
}

func hex4(b []byte) int {
	return hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3])
}
