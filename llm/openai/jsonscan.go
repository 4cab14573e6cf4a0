package openai

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a small pull decoder for the JSON chunks of a stream. It
// reads the few fields the decoders need straight from the bytes and skips
// everything else, so the hot path builds no maps and allocates only the
// strings it returns.
//
// Values the caller reads are checked, except that raw control characters
// are accepted inside strings; values it skips are checked for balanced
// brackets, terminated strings and valid literals, and numbers only for
// their characters. Every method is
// safe on any input: on malformed JSON the scanner records an error, moves
// to the end of the input and returns zero values from then on.
type scanner struct {
	b   []byte
	i   int
	err error
	buf []byte // scratch for unescaped strings
	// escaped records that a string was unescaped into buf.
	escaped bool
}

// errMalformed is the cause of every scanner error.
var errMalformed = errors.New("malformed JSON")

const maxDepth = 512

func (s *scanner) reset(b []byte) {
	s.b, s.i, s.err = b, 0, nil
}

func (s *scanner) fail(what string) {
	if s.err == nil {
		s.err = fmt.Errorf("%w: %s at offset %d", errMalformed, what, s.i)
	}
	s.i = len(s.b)
}

// peek skips whitespace and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return s.b[s.i] // the common case, kept small enough to inline
	}
	return s.peekSlow()
}

func (s *scanner) peekSlow() byte {
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return c
		}
		s.i++
	}
	return 0
}

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

// end checks that nothing but whitespace follows the top-level value.
func (s *scanner) end() error {
	if s.err == nil && s.peek() != 0 {
		s.fail("trailing data")
	}
	return s.err
}

// literal consumes word (true, false, null) or fails.
func (s *scanner) literal(word string) {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return
	}
	s.fail("invalid literal")
}

// null consumes a null and reports whether there was one.
func (s *scanner) null() bool {
	if s.peek() == 'n' {
		s.literal("null")
		return true
	}
	return false
}

// enter consumes the '{' of the object at the cursor. It returns false,
// consuming nothing else, when the value is null; any other non-object
// fails. Read the members with member.
func (s *scanner) enter() bool {
	switch s.peek() {
	case '{':
		s.i++
		return true
	case 'n':
		s.literal("null")
	default:
		s.fail("expected an object")
	}
	return false
}

// member returns the name of the next member of the object entered with
// enter, leaving the cursor on its value, which the caller must consume;
// n counts the members read so far. It returns false at the end of the
// object or on malformed input.
func (s *scanner) member(n int) ([]byte, bool) {
	c := s.peek()
	if c == '}' {
		s.i++
		return nil, false
	}
	if n > 0 {
		if c != ',' {
			s.fail("expected ',' or '}'")
			return nil, false
		}
		s.i++
		c = s.peek()
	}
	if c != '"' {
		s.fail("expected a member name")
		return nil, false
	}
	key := s.quoted()
	if s.i < len(s.b) && s.b[s.i] == ':' { // compact JSON, the usual case
		s.i++
		return key, true
	}
	if s.peek() != ':' {
		s.fail("expected ':'")
		return nil, false
	}
	s.i++
	return key, true
}

// object calls f for every member of the object at the cursor; f must
// consume the value (read it or call skip). It returns false, consuming
// nothing else, when the value is null; any other non-object fails.
func (s *scanner) object(f func(key []byte)) bool {
	if !s.enter() {
		return false
	}
	for n := 0; ; n++ {
		key, ok := s.member(n)
		if !ok {
			return s.err == nil
		}
		f(key)
		if s.err != nil {
			return false
		}
	}
}

// array calls f for every element of the array at the cursor with its
// position; f must consume the element. Null counts as an empty array.
func (s *scanner) array(f func(i int)) bool {
	switch s.peek() {
	case '[':
		s.i++
	case 'n':
		s.literal("null")
		return false
	default:
		s.fail("expected an array")
		return false
	}
	if s.peek() == ']' {
		s.i++
		return true
	}
	for n := 0; s.err == nil; n++ {
		f(n)
		if s.err != nil {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			s.fail("expected ',' or ']'")
		}
	}
	return false
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

// num reads a number as an int (fractions are truncated; null is zero).
// Strings holding a number are accepted too, as some servers send them.
func (s *scanner) num() int {
	switch c := s.peek(); {
	case c == 'n':
		s.literal("null")
		return 0
	case c == '"':
		b := s.strBytes()
		var t scanner
		t.reset(b)
		n := t.num()
		if t.end() != nil {
			return 0
		}
		return n
	case c == '-' || ('0' <= c && c <= '9'):
	default:
		s.fail("expected a number")
		return 0
	}
	neg := false
	if s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	start := s.i
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		if n < 1<<50 {
			n = n*10 + int(s.b[s.i]-'0')
		}
		s.i++
	}
	if s.i == start {
		s.fail("invalid number")
		return 0
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return 0
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return 0
		}
	}
	if neg {
		return -n
	}
	return n
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == start {
		s.fail("invalid number")
		return false
	}
	return true
}

// boolean reads true or false (null is false).
func (s *scanner) boolean() bool {
	switch s.peek() {
	case 't':
		s.literal("true")
		return true
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.fail("expected a boolean")
	}
	return false
}

// raw skips the value at the cursor and returns its bytes, which alias
// the input.
func (s *scanner) raw() []byte {
	s.peek()
	start := s.i
	s.skip()
	if s.err != nil {
		return nil
	}
	return s.b[start:s.i]
}

// skipString moves past the string at the cursor, which must be '"'.
func (s *scanner) skipString() bool {
	j := s.i + 1
	for {
		k := quoteOrBackslash(s.b[j:])
		if k < 0 {
			s.fail("unterminated string")
			return false
		}
		j += k
		if s.b[j] == '"' {
			s.i = j + 1
			return true
		}
		j += 2 // a backslash and the byte it escapes
		if j > len(s.b) {
			s.fail("unterminated string")
			return false
		}
	}
}

// skipScalar moves past a literal, or a number made of number
// characters (its grammar is not checked).
func (s *scanner) skipScalar() {
	switch s.b[s.i] {
	case 't':
		s.literal("true")
		return
	case 'f':
		s.literal("false")
		return
	case 'n':
		s.literal("null")
		return
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case '0' <= c && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			s.i++
		case c == ',', c == '}', c == ']', c <= ' ':
			return
		default:
			s.fail("invalid number")
			return
		}
	}
}

// skip moves past the value at the cursor. Strings must be terminated and
// brackets balanced; scalars are checked only for their first byte.
func (s *scanner) skip() {
	switch c := s.peek(); {
	case c == '"': // most skipped values are strings or scalars
		s.skipString()
		return
	case c == '-' || ('0' <= c && c <= '9') || c == 't' || c == 'f' || c == 'n':
		s.skipScalar()
		return
	}
	var stack [32]byte
	closers := stack[:0]
	for {
		c := s.peek()
		switch c {
		case 0:
			s.fail("unexpected end of input")
			return
		case '"':
			if !s.skipString() {
				return
			}
		case '{', '[':
			if len(closers) >= maxDepth {
				s.fail("nesting too deep")
				return
			}
			closers = append(closers, c+2) // '{'+2 == '}', '['+2 == ']'
			s.i++
			continue
		case '}', ']':
			if len(closers) == 0 || closers[len(closers)-1] != c {
				s.fail("unbalanced brackets")
				return
			}
			closers = closers[:len(closers)-1]
			s.i++
		case ',', ':':
			if len(closers) == 0 {
				s.fail("unexpected delimiter")
				return
			}
			s.i++
			continue
		default:
			if c != '-' && (c < '0' || c > '9') && c != 't' && c != 'f' && c != 'n' {
				s.fail("unexpected character")
				return
			}
			s.skipScalar()
		}
		if len(closers) == 0 {
			return
		}
	}
}
