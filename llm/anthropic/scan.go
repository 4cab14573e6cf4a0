package anthropic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a small validating JSON reader specialised for the
// Messages API's stream events. It never panics on malformed input and
// does not allocate on the common path (strings without escapes).
type scanner struct {
	data    []byte
	pos     int
	scratch []byte
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 512

// errSyntax is wrapped by every error the scanner returns.
var errSyntax = errors.New("invalid JSON")

func (s *scanner) fail(what string) error {
	if s.pos >= len(s.data) {
		return fmt.Errorf("%w: %s at end of input", errSyntax, what)
	}
	return fmt.Errorf("%w: %s at offset %d", errSyntax, what, s.pos)
}

// parse decodes one event payload into f.
func (s *scanner) parse(data []byte, f *frame) error {
	*f = frame{}
	s.data, s.pos, s.scratch = data, 0, s.scratch[:0]
	// The top level and delta are read without callbacks: they are the
	// hot path.
	empty, err := s.enter()
	for more := !empty; more && err == nil; {
		var key []byte
		if key, err = s.key(); err != nil {
			break
		}
		if string(key) == "delta" {
			err = s.delta(f)
		} else {
			err = s.topField(key, f)
		}
		if err == nil {
			more, err = s.next()
		}
	}
	if err != nil {
		return err
	}
	s.ws()
	if s.pos != len(s.data) {
		return s.fail("unexpected data after the object")
	}
	return nil
}

func (s *scanner) ws() {
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return
	}
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// enter consumes the '{' of an object, and its '}' too when the object
// is empty, which it reports.
func (s *scanner) enter() (empty bool, err error) {
	if s.peek() != '{' {
		return false, s.fail("expected an object")
	}
	s.pos++
	if s.peek() == '}' {
		s.pos++
		return true, nil
	}
	return false, nil
}

// key reads an object key and the ':' after it, leaving the scanner at
// the value.
func (s *scanner) key() ([]byte, error) {
	if s.peek() != '"' {
		return nil, s.fail("expected a key")
	}
	key, err := s.str()
	if err != nil {
		return nil, err
	}
	if s.peek() != ':' {
		return nil, s.fail("expected ':'")
	}
	s.pos++
	s.ws()
	return key, nil
}

// next consumes the ',' before another field (more) or the closing '}'.
func (s *scanner) next() (more bool, err error) {
	switch s.peek() {
	case ',':
		s.pos++
		return true, nil
	case '}':
		s.pos++
		return false, nil
	}
	return false, s.fail("expected ',' or '}'")
}

// object reads an object, calling field for each key with the scanner
// positioned at the value; field must consume the value.
func (s *scanner) object(field func(key []byte) error) error {
	empty, err := s.enter()
	for more := !empty; more && err == nil; {
		var key []byte
		if key, err = s.key(); err != nil {
			break
		}
		if err = field(key); err != nil {
			break
		}
		more, err = s.next()
	}
	return err
}

// stringOrNull reads a string; null reads as a nil slice.
func (s *scanner) stringOrNull() ([]byte, error) {
	switch s.peek() {
	case '"':
		b, err := s.str()
		if b == nil && err == nil {
			b = []byte{}
		}
		return b, err
	case 'n':
		return nil, s.null()
	}
	return nil, s.fail("expected a string")
}

func (s *scanner) null() error { return s.literal("null") }

func (s *scanner) literal(lit string) error {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return s.fail("invalid literal")
	}
	s.pos += len(lit)
	return nil
}

// str reads a string at the current position (which holds '"') and
// returns its unescaped bytes.
func (s *scanner) str() ([]byte, error) {
	start := s.pos + 1
	d := s.data
	i := start
	// Skip eight plain bytes at a time: a word holding a quote, a
	// backslash or a control character is left to the byte loop.
	for i+8 <= len(d) {
		x := binary.LittleEndian.Uint64(d[i:])
		if hasLess(x, 0x20)|hasZero(x^(ones*'"'))|hasZero(x^(ones*'\\')) != 0 {
			break
		}
		i += 8
	}
	for ; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return d[start:i:i], nil
		case c == '\\':
			return s.strEscaped(start, i)
		case c < 0x20:
			s.pos = i
			return nil, s.fail("control character in string")
		}
	}
	s.pos = len(d)
	return nil, s.fail("unterminated string")
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// hasZero reports (non-zero) whether a byte of x is zero.
func hasZero(x uint64) uint64 { return (x - ones) &^ x & highs }

// hasLess reports (non-zero) whether a byte of x is below n (n <= 128).
func hasLess(x, n uint64) uint64 { return (x - ones*n) &^ x & highs }

// strEscaped continues a string that holds escapes, from the first
// backslash at i, writing the unescaped bytes to the scratch buffer.
func (s *scanner) strEscaped(start, i int) ([]byte, error) {
	off := len(s.scratch)
	s.scratch = append(s.scratch, s.data[start:i]...)
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.scratch[off:len(s.scratch):len(s.scratch)], nil
		case c < 0x20:
			s.pos = i
			return nil, s.fail("control character in string")
		case c != '\\':
			s.scratch = append(s.scratch, c)
			i++
			continue
		}
		if i+1 >= len(s.data) {
			break
		}
		e := s.data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			s.scratch = append(s.scratch, e)
		case 'b':
			s.scratch = append(s.scratch, '\b')
		case 'f':
			s.scratch = append(s.scratch, '\f')
		case 'n':
			s.scratch = append(s.scratch, '\n')
		case 'r':
			s.scratch = append(s.scratch, '\r')
		case 't':
			s.scratch = append(s.scratch, '\t')
		case 'u':
			r, ok := hex4(s.data, i)
			if !ok {
				s.pos = i
				return nil, s.fail(`invalid \u escape`)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+6 <= len(s.data) && s.data[i] == '\\' && s.data[i+1] == 'u' {
					r2, ok = hex4(s.data, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			s.scratch = utf8.AppendRune(s.scratch, r)
		default:
			s.pos = i - 1
			return nil, s.fail("invalid escape")
		}
	}
	s.pos = len(s.data)
	return nil, s.fail("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// int reads a JSON integer that fits comfortably in an int.
func (s *scanner) int() (int, error) {
	start := s.pos
	if err := s.number(); err != nil {
		return 0, err
	}
	b := s.data[start:s.pos]
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) > 9 {
		s.pos = start
		return 0, s.fail("integer out of range")
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			s.pos = start
			return 0, s.fail("expected an integer")
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// number reads a number as the JSON grammar defines it.
func (s *scanner) number() error {
	d, i := s.data, s.pos
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
		return s.fail("invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			s.pos = i
			return s.fail("invalid number")
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
			return s.fail("invalid number")
		}
	}
	s.pos = i
	return nil
}

// raw validates the value at the current position and returns its bytes.
func (s *scanner) raw() ([]byte, error) {
	s.ws()
	start := s.pos
	if err := s.skip(0); err != nil {
		return nil, err
	}
	return s.data[start:s.pos], nil
}

// skip validates and steps over one value.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.fail("nesting too deep")
	}
	switch s.peek() {
	case '"':
		_, err := s.str()
		return err
	case '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case '[':
		s.pos++
		if s.peek() == ']' {
			s.pos++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.pos++
			case ']':
				s.pos++
				return nil
			default:
				return s.fail("expected ',' or ']'")
			}
		}
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.null()
	}
	return s.number()
}

// text converts scanned bytes to a string, replacing each byte of
// invalid UTF-8 with U+FFFD as encoding/json does.
func text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return string(out)
}
