package openai

import (
	"errors"
	"fmt"
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
