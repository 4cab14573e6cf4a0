package gemini

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a small strict JSON reader over one chunk. It walks the
// known shape of a GenerateContentResponse without reflection or maps, so
// that decoding a chunk allocates nothing beyond the strings it must keep.
//
// Decoded strings alias the input when they hold no escapes and the
// scanner's arena otherwise; both are valid until the next reset. Raw
// spans returned by skip are exactly the bytes of one valid JSON value.
type scanner struct {
	data  []byte
	pos   int
	err   error
	depth int
	arena []byte
}

// maxDepth bounds nesting so that hostile input cannot recurse deeply.
const maxDepth = 512

type syntaxError struct {
	msg string
	off int
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.off, e.msg)
}

func (s *scanner) reset(data []byte) {
	s.data, s.pos, s.err, s.depth = data, 0, nil, 0
	s.arena = s.arena[:0]
}

func (s *scanner) fail(msg string) {
	if s.err == nil {
		s.err = &syntaxError{msg: msg, off: s.pos}
	}
	// Park at the end so that every loop stops promptly.
	s.pos = len(s.data)
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// end reports whether only whitespace remains.
func (s *scanner) end() bool {
	s.ws()
	return s.pos >= len(s.data)
}

// peek returns the next significant byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// open consumes c ('{' or '[') or fails.
func (s *scanner) open(c byte) bool {
	if s.err != nil {
		return false
	}
	if s.peek() != c {
		s.fail("expected " + string(c))
		return false
	}
	s.pos++
	return true
}

// null consumes a JSON null if one is next.
func (s *scanner) null() bool {
	if s.peek() == 'n' {
		s.literal("null")
		return true
	}
	return false
}

// next advances an object or array iteration: it reports whether another
// member follows, consuming the separator or the closing byte.
func (s *scanner) next(first *bool, end byte) bool {
	if s.err != nil {
		return false
	}
	c := s.peek()
	if *first {
		*first = false
		if c == end {
			s.pos++
			return false
		}
		return true
	}
	switch c {
	case ',':
		s.pos++
		return true
	case end:
		s.pos++
		return false
	}
	s.fail("expected ',' or '" + string(end) + "'")
	return false
}

// key reads an object key and its colon. It returns the decoded key and
// the raw span of the key including its quotes.
func (s *scanner) key() (k, raw []byte) {
	if s.peek() != '"' {
		s.fail("expected object key")
		return nil, nil
	}
	start := s.pos
	k = s.str()
	raw = s.data[start:s.pos]
	if s.peek() != ':' {
		s.fail("expected ':' after object key")
		return nil, nil
	}
	s.pos++
	return k, raw
}

// str reads a string value and returns its decoded bytes.
func (s *scanner) str() []byte {
	if s.peek() != '"' {
		s.fail("expected string")
		return nil
	}
	s.pos++
	start := s.pos
	d := s.data
	i := nextSpecial(d, start)
	switch {
	case i >= len(d):
		s.fail("unterminated string")
		return nil
	case d[i] == '"':
		s.pos = i + 1
		return d[start:i]
	case d[i] == '\\':
		return s.strEscaped(start, i)
	}
	s.pos = i
	s.fail("control character in string")
	return nil
}

// Constants for scanning eight bytes at a time.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// nextSpecial returns the index of the first byte at or after i that ends
// a run of plain string content: a quote, a backslash or a control
// character; len(d) when there is none. It tests eight bytes per step.
func nextSpecial(d []byte, i int) int {
	for ; i+8 <= len(d); i += 8 {
		x := binary.LittleEndian.Uint64(d[i:])
		q := x ^ (ones * '"')
		b := x ^ (ones * '\\')
		// A byte is flagged when it is below 0x20, or zero after one of the
		// xors (a quote or a backslash); bytes from 0x80 up never are. A
		// borrow can flag a byte above a match, never below one, so the
		// lowest flagged byte is always a true match.
		if m := ((x-ones*0x20)&^x | (q-ones)&^q | (b-ones)&^b) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(d); i++ {
		if c := d[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(d)
}

// strOrNull reads a string, treating null as empty.
func (s *scanner) strOrNull() []byte {
	if s.null() {
		return nil
	}
	return s.str()
}

// strEscaped decodes a string with escapes into the arena; the bytes
// data[start:i] have already been checked.
func (s *scanner) strEscaped(start, i int) []byte {
	d := s.data
	a0 := len(s.arena)
	s.arena = append(s.arena, d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.arena[a0:len(s.arena):len(s.arena)]
		case c < 0x20:
			s.pos = i
			s.fail("control character in string")
			return nil
		case c != '\\':
			j := nextSpecial(d, i+1)
			s.arena = append(s.arena, d[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(d) {
			break
		}
		switch e := d[i+1]; e {
		case '"', '\\', '/':
			s.arena = append(s.arena, e)
		case 'b':
			s.arena = append(s.arena, '\b')
		case 'f':
			s.arena = append(s.arena, '\f')
		case 'n':
			s.arena = append(s.arena, '\n')
		case 'r':
			s.arena = append(s.arena, '\r')
		case 't':
			s.arena = append(s.arena, '\t')
		case 'u':
			r, ok := hex4(d, i+2)
			if !ok {
				s.pos = i
				s.fail("invalid \\u escape")
				return nil
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(d, i+2); ok && i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			s.arena = utf8.AppendRune(s.arena, r)
			continue
		default:
			s.pos = i
			s.fail("invalid escape in string")
			return nil
		}
		i += 2
	}
	s.fail("unterminated string")
	return nil
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skipStr validates a string without decoding it.
func (s *scanner) skipStr() {
	s.pos++ // opening quote, checked by the caller
	d := s.data
	for i := nextSpecial(d, s.pos); i < len(d); i = nextSpecial(d, i+1) {
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return
		case c < 0x20:
			s.pos = i
			s.fail("control character in string")
			return
		case c == '\\':
			if i+1 >= len(d) {
				s.fail("unterminated string")
				return
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					s.pos = i
					s.fail("invalid \\u escape")
					return
				}
				i += 5
			default:
				s.pos = i
				s.fail("invalid escape in string")
				return
			}
		}
	}
	s.fail("unterminated string")
}

// skip validates and passes over one JSON value, returning its raw span.
func (s *scanner) skip() []byte {
	c := s.peek()
	start := s.pos
	switch {
	case c == '"':
		s.skipStr()
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		if s.depth++; s.depth > maxDepth {
			s.fail("nesting too deep")
			return nil
		}
		s.pos++
		first := true
		for s.next(&first, end) {
			if c == '{' {
				s.key()
			}
			s.skip()
		}
		s.depth--
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		s.number()
	default:
		s.fail("expected a value")
	}
	if s.err != nil {
		return nil
	}
	return s.data[start:s.pos]
}

func (s *scanner) literal(lit string) {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		s.fail("invalid literal")
		return
	}
	s.pos += len(lit)
}

// number passes over a number following the JSON grammar.
func (s *scanner) number() []byte {
	d, i := s.data, s.pos
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		s.fail("invalid number")
		return nil
	}
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			s.pos = i
			s.fail("invalid number")
			return nil
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			s.pos = i
			s.fail("invalid number")
			return nil
		}
	}
	s.pos = i
	return d[start:i]
}

// boolean reads true, false or null (as false).
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

// integer reads a token count: a number, a numeric string (as protobuf
// JSON writes 64-bit integers) or null. Fractions are truncated and
// values outside int32 are clamped; counts are never negative.
func (s *scanner) integer() int {
	var raw []byte
	switch c := s.peek(); {
	case c == 'n':
		s.literal("null")
		return 0
	case c == '"':
		raw = s.str()
	default:
		raw = s.number()
	}
	if s.err != nil {
		return 0
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil || f < 0 {
				return 0
			}
			return int(min(f, 1<<31-1))
		}
		if n < 1<<31 {
			n = n*10 + int(c-'0')
		}
	}
	return min(n, 1<<31-1)
}
