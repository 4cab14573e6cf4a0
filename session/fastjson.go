package session

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unsafe"
)

// scanner is a small JSON reader over one line, used by the fast path of
// the entry decoder. Every method reports failure by returning false; the
// fast path then gives up and the line is decoded by encoding/json, which
// has the final word on what a line means. The fast path therefore only
// needs to be right when it succeeds: it accepts a subset of JSON (no
// null values except a null message content, no duplicate or unknown
// keys, no escaped keys, no invalid UTF-8 in strings) and decodes it
// exactly as encoding/json would.
type scanner struct {
	b []byte
	i int
	// intern shares the memory of short values that repeat across lines
	// (roles, block types, model names…).
	intern map[string]string
	// recent caches interned values by a hash of their bytes.
	recent [64]string
	// block is where keep copies strings.
	block []byte
	// scratch is reused for unescaping strings.
	scratch []byte
}

const maxDepth = 512

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips whitespace and reports whether the next byte is c, consuming
// it if so.
func (s *scanner) next(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c { // compact JSON, the usual case
		s.i++
		return true
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return s.b[s.i]
	}
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// strSpan reads a string token and returns its content (between the
// quotes), whether it has escapes and whether it has non-ASCII bytes.
func (s *scanner) strSpan() (raw []byte, esc, nonASCII, ok bool) {
	if !s.next('"') {
		return nil, false, false, false
	}
	start := s.i
	for s.i < len(s.b) {
		// Skip plain bytes eight at a time, up to the first byte that
		// needs a look.
		for s.i+8 <= len(s.b) {
			m := special(binary.LittleEndian.Uint64(s.b[s.i:]))
			if m != 0 {
				s.i += bits.TrailingZeros64(m) >> 3
				break
			}
			s.i += 8
		}
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, esc, nonASCII, true
		case c == '\\':
			esc = true
			s.i++
			if s.i >= len(s.b) {
				return nil, false, false, false
			}
			if s.b[s.i] == 'u' {
				if s.i+4 >= len(s.b) {
					return nil, false, false, false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if hexVal(h) < 0 {
						return nil, false, false, false
					}
				}
				s.i += 4
			} else {
				switch s.b[s.i] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				default:
					return nil, false, false, false
				}
			}
			s.i++
		case c < 0x20:
			return nil, false, false, false
		case c >= 0x80:
			nonASCII = true
			s.i++
		default:
			s.i++
		}
	}
	return nil, false, false, false
}

// special marks, with its high bit, each of the eight bytes of w (little
// endian) that needs a look inside a string: a quote, a backslash, a
// control byte or a non-ASCII byte. The lowest marked byte is always a
// special one; bytes above it may be marked wrongly (a borrow), which is
// harmless as scanning restarts after the lowest.
func special(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := w ^ (lo * '"')
	bs := w ^ (lo * '\\')
	return ((q-lo)&^q | (bs-lo)&^bs | (w-lo*0x20)&^w | w) & hi
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// numSpan reads a number token, checking the JSON grammar, and reports
// whether it is a plain integer (no fraction or exponent).
func (s *scanner) numSpan() (raw []byte, integer, ok bool) {
	s.ws()
	start := s.i
	integer = true
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
			s.i++
		}
	default:
		return nil, false, false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		integer = false
		s.i++
		if !s.digits() {
			return nil, false, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		integer = false
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return nil, false, false
		}
	}
	return s.b[start:s.i], integer, true
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// bytesString views b as a string for parsing calls that do not keep it.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func (s *scanner) int() (int, bool) {
	raw, integer, ok := s.numSpan()
	if !ok || !integer {
		return 0, false
	}
	n, err := strconv.ParseInt(bytesString(raw), 10, strconv.IntSize)
	return int(n), err == nil
}

func (s *scanner) float() (float64, bool) {
	raw, _, ok := s.numSpan()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(bytesString(raw), 64)
	return f, err == nil
}

func (s *scanner) bool() (bool, bool) {
	s.ws()
	switch {
	case s.lit("true"):
		return true, true
	case s.lit("false"):
		return false, true
	}
	return false, false
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// raw reads any JSON value except a top-level null and returns a copy of
// its bytes, as encoding/json fills a json.RawMessage.
func (s *scanner) raw() (json.RawMessage, bool) {
	s.ws()
	start := s.i
	if s.lit("null") || !s.skip(0) {
		return nil, false
	}
	return append(json.RawMessage(nil), s.b[start:s.i]...), true
}

// skip reads and validates any JSON value.
func (s *scanner) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch s.peek() {
	case '{':
		s.i++
		if s.next('}') {
			return true
		}
		for {
			if _, _, _, ok := s.strSpan(); !ok || !s.next(':') || !s.skip(depth+1) {
				return false
			}
			if s.next('}') {
				return true
			}
			if !s.next(',') {
				return false
			}
		}
	case '[':
		s.i++
		if s.next(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.next(']') {
				return true
			}
			if !s.next(',') {
				return false
			}
		}
	case '"':
		// encoding/json copies strings inside raw values as they are,
		// invalid UTF-8 included, so only the grammar is checked.
		_, _, _, ok := s.strSpan()
		return ok
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	default:
		_, _, ok := s.numSpan()
		return ok
	}
}

// strings reads an array of strings; [] gives an empty, non-nil slice.
func (s *scanner) strings() ([]string, bool) {
	if !s.next('[') {
		return nil, false
	}
	out := []string{}
	if s.next(']') {
		return out, true
	}
	for {
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if s.next(']') {
			return out, true
		}
		if !s.next(',') {
			return nil, false
		}
	}
}

// key reads an object key and the colon after it. Keys with escapes,
// control or non-ASCII bytes are left to the slow path.
func (s *scanner) key() ([]byte, bool) {
	if !s.next('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			k := s.b[start:s.i]
			s.i++
			return k, s.next(':')
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// object reads an object, calling field for each key; field reads the
// value and returns the key's bit (for duplicate detection) or 0 for an
// unknown key or a bad value. Value readers fail on null, except where
// noted, so null values go to the slow path.
func (s *scanner) object(field func(key []byte) uint32) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	var seen uint32
	for {
		k, ok := s.key()
		if !ok {
			return false
		}
		bit := field(k)
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}
