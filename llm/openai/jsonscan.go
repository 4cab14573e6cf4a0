package openai

import (
	"encoding/binary"
	"math/bits"
	"strings"

	"github.com/reinhq/rein/internal/jsonx"
)

// scanner reads the JSON chunks and events of both APIs. It is lenient
// (see jsonx.Scanner.Lenient), as the many servers that speak these
// APIs bend JSON: raw control characters are accepted inside strings, and
// values the decoders skip are checked only for balanced brackets,
// terminated strings and valid literals. The readers below add what the
// decoders share: null reads as an absent value, numbers may be sent as
// strings.
type scanner struct{ jsonx.Scanner }

func (s *scanner) reset(b []byte) {
	s.Lenient = true
	s.Reset(b)
}

// object calls f for every member of the object at the cursor; f must
// consume the value (read it or call Skip). It returns false, consuming
// nothing else, when the value is null; any other non-object fails.
func (s *scanner) object(f func(key []byte)) bool {
	if !s.Object() {
		return false
	}
	for n := 0; ; n++ {
		key, ok := s.member(n)
		if !ok {
			return s.Err() == nil
		}
		f(key)
	}
}

// member is Member, made faster for the short names without escapes of
// compact JSON: it reads them itself, and leaves anything else to Member.
func (s *scanner) member(n int) ([]byte, bool) {
	data, p := s.Input(), s.Offset()
	if n > 0 {
		if p >= len(data) || data[p] != ',' {
			return s.Member(n)
		}
		p++
	}
	if p < len(data) && data[p] == '"' {
		if q := plainEnd(data, p+1); q >= 0 && q+1 < len(data) && data[q+1] == ':' {
			s.SetOffset(q + 2)
			return data[p+1 : q : q], true
		}
	}
	return s.Member(n)
}

// skip is Skip, made faster for the literals, plain numbers, short
// strings without escapes and empty objects and arrays that most skipped
// values are.
func (s *scanner) skip() {
	data, p := s.Input(), s.Offset()
	if p >= len(data) {
		s.Skip()
		return
	}
	switch c := data[p]; c {
	case 'n', 't', 'f':
		w := "null"
		if c == 't' {
			w = "true"
		} else if c == 'f' {
			w = "false"
		}
		if len(data)-p >= len(w) && string(data[p:p+len(w)]) == w {
			s.SetOffset(p + len(w))
			return
		}
	case '"':
		if q := plainEnd(data, p+1); q >= 0 {
			s.SetOffset(q + 1)
			return
		}
	case '{', '[':
		if p+1 < len(data) && data[p+1] == c+2 { // {} or []
			s.SetOffset(p + 2)
			return
		}
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		for j := p + 1; j < len(data); j++ {
			if c := data[j]; c == ',' || c == '}' || c == ']' {
				s.SetOffset(j)
				return
			} else if (c < '0' || c > '9') && c != '.' {
				break
			}
		}
	}
	s.Skip()
}

// array calls f for every element of the array at the cursor with its
// position; f must consume the element. Null counts as an empty array.
func (s *scanner) array(f func(i int)) bool {
	if !s.Array() {
		return false
	}
	for n := 0; s.Element(n); n++ {
		f(n)
	}
	return s.Err() == nil
}

// num reads a number as an int (fractions are truncated; null is zero).
// Strings holding a number are accepted too, as some servers send them.
func (s *scanner) num() int {
	switch s.Peek() {
	case 'n':
		s.Null()
		return 0
	case '"':
		var t scanner
		t.reset(s.Str())
		if n := t.num(); t.End() == nil {
			return n
		}
		return 0
	}
	raw := s.Number()
	if len(raw) == 0 {
		return 0
	}
	neg := raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			break
		}
		if n < 1<<50 {
			n = n*10 + int(c-'0')
		}
	}
	if neg {
		return -n
	}
	return n
}

// boolean reads true or false (null is false).
func (s *scanner) boolean() bool { return !s.Null() && s.Bool() }

// stableBytes reads a string (or null) like StrOrNull, but the result
// stays valid until the input changes: it aliases the input unless the
// string held escapes, in which case it is a copy.
func (s *scanner) stableBytes() []byte {
	if s.Null() {
		return nil
	}
	b := s.Str()
	if s.Escaped() {
		return append([]byte(nil), b...)
	}
	return b
}

// str reads a string (or null, as "").
func (s *scanner) str() string {
	b := s.StrOrNull()
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// setStr reads a string into *dst, reusing *dst when the bytes are equal,
// so that fields repeated on every chunk (ids, model names) allocate once.
func (s *scanner) setStr(dst *string) {
	b := s.StrOrNull()
	if string(b) != *dst {
		*dst = string(b)
	}
}

// plainEnd returns the index of the quote that ends a string whose
// content starts at data[i], or -1 when a backslash comes first or no
// quote comes within 64 bytes (long strings are best left to jsonx).
func plainEnd(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	end := min(len(data), i+64)
	for ; i+8 <= end; i += 8 {
		// Flag the quotes and backslashes of eight bytes at once; the
		// lowest flag is always right.
		x := binary.LittleEndian.Uint64(data[i:])
		q, b := x^(ones*'"'), x^(ones*'\\')
		if m := ((q-ones)&^q | (b-ones)&^b) & highs; m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if data[i] == '"' {
				return i
			}
			return -1
		}
	}
	for ; i < end; i++ {
		switch data[i] {
		case '"':
			return i
		case '\\':
			return -1
		}
	}
	return -1
}

// strArena makes the strings of many short values with few allocations:
// each is a part of a strings.Builder's buffer, whose bytes are never
// written again, as a builder only appends. When a string does not fit,
// a new buffer, twice as large up to 1 KiB, takes over (the strings made
// keep the old one alive); a longer string that does not fit is made
// alone.
type strArena struct{ b strings.Builder }

// of returns b as a string.
func (a *strArena) of(b []byte) string {
	switch free := a.b.Cap() - a.b.Len(); {
	case len(b) == 0:
		return ""
	case len(b) > free && len(b) > maxArenaString:
		return string(b)
	case len(b) > free:
		size := min(max(2*a.b.Cap(), 256), 1024)
		a.b = strings.Builder{}
		a.b.Grow(size)
	}
	n := a.b.Len()
	a.b.Write(b)
	return a.b.String()[n:]
}

// maxArenaString is the longest string a strArena starts a buffer for.
const maxArenaString = 256
