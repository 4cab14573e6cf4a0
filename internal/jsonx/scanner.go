package jsonx

import (
	"math/bits"
	"strconv"
	"strings"
)

// Scanner is a pull reader over one JSON input held in memory. The caller
// walks the shape it expects, one value at a time:
//
//	s.Reset(data)
//	if s.Object() {
//		for n := 0; ; n++ {
//			key, ok := s.Member(n)
//			if !ok {
//				break
//			}
//			switch string(key) {
//			case "name":
//				name = s.Str()
//			default:
//				s.Skip()
//			}
//		}
//	}
//	err := s.End()
//
// Every method is safe on any input. The first problem is recorded as a
// *SyntaxError (see Err) and moves the cursor to the end of the input,
// so that every loop stops promptly; from then on readers return zero
// values and the error stays the first one.
//
// Returned slices alias the input, or the scanner's buffer for strings
// with escapes, and are valid until the next Reset (see the package
// documentation); the input must not change while it is read. A Scanner
// is not safe for concurrent use; its zero value is ready to Reset.
type Scanner struct {
	data []byte
	text string // data, viewed as a string by the core functions
	pos  int
	err  error
	buf  []byte // unescaped strings since the last Reset

	escaped bool // the last string read held escapes

	// Lenient relaxes the checks for servers that bend JSON: control
	// characters are accepted inside strings, and skipped values (Skip,
	// Raw) are checked only for terminated strings, balanced brackets,
	// correctly spelled literals and numbers made of number characters,
	// which also makes skipping faster. Values read are otherwise checked
	// as usual. Reset keeps the setting.
	Lenient bool
}

// Reset starts reading data, forgetting any error. Slices returned before
// may be overwritten from now on.
func (s *Scanner) Reset(data []byte) {
	s.data, s.text, s.pos, s.err = data, unsafeString(data), 0, nil
	s.buf = s.buf[:0]
}

// Err returns the first error, a *SyntaxError, or nil.
func (s *Scanner) Err() error { return s.err }

// Fail records a problem the caller found (a value of the wrong type or
// range) at the current offset, unless an error is already recorded, and
// moves to the end of the input.
func (s *Scanner) Fail(msg string) {
	if s.err == nil {
		s.err = &SyntaxError{Msg: msg, Offset: s.pos}
	}
	s.pos = len(s.data)
}

// failAt records the problem a scanning function reported.
func (s *Scanner) failAt(n int) {
	off, p := failure(n)
	s.pos = off
	s.Fail(p.String())
}

// Input returns the input given to Reset.
func (s *Scanner) Input() []byte { return s.data }

// Offset returns the cursor's offset in the input. Read it after Peek to
// get the start of the next value.
func (s *Scanner) Offset() int { return s.pos }

// SetOffset moves the cursor to off, an offset between values that an
// earlier Offset returned (to read a value again, or to continue after a
// part of the input known to be valid). It does not clear an error.
func (s *Scanner) SetOffset(off int) {
	if s.err == nil {
		s.pos = min(max(off, 0), len(s.data))
	}
}

// End reports the first error, after checking that nothing but
// whitespace follows the value read.
func (s *Scanner) End() error {
	if s.Peek(); s.err == nil && s.pos < len(s.data) {
		s.Fail("unexpected data after the value")
	}
	return s.err
}

// Peek skips whitespace and returns the next byte without consuming it,
// or 0 at the end of the input and after an error (a NUL byte, which
// JSON never holds outside strings, reads as 0 too).
func (s *Scanner) Peek() byte {
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return s.data[s.pos] // the usual case, kept small enough to inline
	}
	return s.peekSlow()
}

func (s *Scanner) peekSlow() byte {
	s.pos = skipSpace(s.text, s.pos)
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// Null consumes a null and reports whether there was one.
func (s *Scanner) Null() bool {
	if i := s.pos; i < len(s.text) && s.text[i] != 'n' && s.text[i] > ' ' {
		return false // the usual case: no need to skip whitespace
	}
	return s.null()
}

// null consumes the null at the cursor, or fails on another n... word;
// it returns false on anything else.
func (s *Scanner) null() bool {
	if s.Peek() != 'n' {
		return false
	}
	if i := s.pos; len(s.text)-i >= 4 && s.text[i:i+4] == "null" {
		s.pos += 4
		return true
	}
	s.failAt(fail(s.pos, badLiteral))
	return false
}

// Object consumes the '{' that opens an object and reports whether there
// was one. A null is consumed too and reported as no object, without an
// error (APIs send null for an absent object); anything else is an error.
// Read the members with Member.
func (s *Scanner) Object() bool {
	switch s.Peek() {
	case '{':
		s.pos++
		return true
	case 'n':
		s.null()
		return false
	}
	s.Fail("expected an object")
	return false
}

// Member advances to the next member of the object opened by Object: it
// consumes the ',' before it when n > 0, then the member's name and the
// ':' after it, leaving the cursor on the value, which the caller must
// read or skip. n counts the members read so far. At the closing '}',
// which it consumes, and on malformed input it returns false. The name
// is unescaped like a string read by Str.
func (s *Scanner) Member(n int) ([]byte, bool) {
	c := s.Peek()
	if c == '}' {
		s.pos++
		return nil, false
	}
	if n > 0 {
		if c != ',' {
			s.Fail("expected ',' or '}' after an object member")
			return nil, false
		}
		s.pos++
		c = s.Peek()
	}
	if c != '"' {
		s.Fail("expected a member name")
		return nil, false
	}
	key := s.quoted()
	if s.pos < len(s.data) && s.data[s.pos] == ':' { // compact JSON, the usual case
		s.pos++
		return key, s.err == nil
	}
	if s.Peek() != ':' {
		s.Fail("expected ':' after an object key")
		return nil, false
	}
	s.pos++
	return key, true
}

// RawKey returns the name of the member Member just returned as it is
// written in the input, quotes and escapes included. Call it before
// reading the member's value.
func (s *Scanner) RawKey() []byte {
	// Walk back from the ':' to the closing quote, then to the opening
	// one: the first quote not escaped by an odd run of backslashes.
	end := s.pos - 1
	for end > 0 && s.text[end] != '"' {
		end--
	}
	start := end
	for start > 0 {
		start = strings.LastIndexByte(s.text[:start], '"')
		n := 0
		for k := start - 1; k >= 0 && s.text[k] == '\\'; k-- {
			n++
		}
		if n&1 == 0 {
			break
		}
	}
	return s.data[max(start, 0) : end+1]
}

// Array consumes the '[' that opens an array and reports whether there
// was one. A null is consumed too and reported as no array, without an
// error; anything else is an error. Read the elements with Element.
func (s *Scanner) Array() bool {
	switch s.Peek() {
	case '[':
		s.pos++
		return true
	case 'n':
		s.null()
		return false
	}
	s.Fail("expected an array")
	return false
}

// Element reports whether another element of the array opened by Array
// follows, consuming the ',' before it when n > 0 and leaving the cursor
// on it; the caller must read or skip it. n counts the elements read so
// far. At the closing ']', which it consumes, and on malformed input it
// returns false.
func (s *Scanner) Element(n int) bool {
	c := s.Peek()
	if c == ']' {
		s.pos++
		return false
	}
	if n > 0 {
		if c != ',' {
			s.Fail("expected ',' or ']' after an array element")
			return false
		}
		s.pos++
		if s.Peek() == ']' {
			s.Fail("expected a value")
			return false
		}
	}
	return s.err == nil
}

// Str reads a string and returns its content, unescaped: a slice of the
// input when the string holds no escapes, of the scanner's buffer
// otherwise; see Escaped. UTF-8 is not checked. Anything but a string,
// null included, is an error.
func (s *Scanner) Str() []byte {
	if s.Peek() != '"' {
		s.Fail("expected a string")
		return nil
	}
	return s.quoted()
}

// StrOrNull reads a string like Str, or a null as a nil slice (a string
// is never nil, even when empty).
func (s *Scanner) StrOrNull() []byte {
	switch s.Peek() {
	case '"':
		return s.quoted()
	case 'n':
		s.null()
		return nil
	}
	s.Fail("expected a string")
	return nil
}

// Escaped reports whether the last string or member name read held
// escapes, so that it was returned in the scanner's buffer.
func (s *Scanner) Escaped() bool { return s.escaped }

// quoted reads the string whose opening quote is at the cursor.
func (s *Scanner) quoted() []byte {
	b, start := s.text, s.pos+1
	var j int
	if start+8 <= len(b) {
		// Most names and many values end within the first word.
		x := load8(b, start)
		m := quoteOrBackslashMask(x)
		if !s.Lenient {
			m = special(x)
		}
		if m != 0 {
			if j = start + bits.TrailingZeros64(m)>>3; b[j] == '"' {
				s.pos, s.escaped = j+1, false
				return s.data[start:j:j]
			}
			if b[j] == '\\' || !s.Lenient {
				return s.unescape(start, j)
			}
		}
	}
	if s.Lenient {
		if j = quoteOrBackslash(b[start:]); j < 0 {
			s.failAt(fail(len(b), unexpectedEnd))
			return nil
		}
		j += start
	} else if j = nextSpecial(b, start); j >= len(b) {
		s.failAt(fail(len(b), unexpectedEnd))
		return nil
	}
	if b[j] == '"' {
		s.pos, s.escaped = j+1, false
		return s.data[start:j:j]
	}
	return s.unescape(start, j)
}

// unescape reads the rest of the string that starts at data[start], from
// j, its first quote, backslash or (unless lenient) control character.
func (s *Scanner) unescape(start, j int) []byte {
	off := len(s.buf)
	buf, end, p := unescape(append(s.buf, s.text[start:j]...), s.text, j, s.Lenient)
	s.buf = buf
	if p != fine {
		s.failAt(fail(end, p))
		return nil
	}
	s.pos, s.escaped = end, true
	return buf[off:len(buf):len(buf)]
}

// Bool reads true or false; anything else, null included, is an error.
func (s *Scanner) Bool() bool {
	switch i := s.pos; s.Peek() {
	case 't':
		if i = s.pos; len(s.text)-i >= 4 && s.text[i:i+4] == "true" {
			s.pos += 4
			return true
		}
	case 'f':
		if i = s.pos; len(s.text)-i >= 5 && s.text[i:i+5] == "false" {
			s.pos += 5
			return false
		}
	default:
		s.Fail("expected true or false")
		return false
	}
	s.failAt(fail(s.pos, badLiteral))
	return false
}

// Number reads a number and returns it as written, checked against the
// JSON grammar. Anything else, null included, is an error.
func (s *Scanner) Number() []byte {
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		s.Fail("expected a number")
		return nil
	}
	start := s.pos
	// A short unsigned integer, the usual case, is read here.
	end := start
	for end < len(s.text) && end-start < 8 && '0' <= s.text[end] && s.text[end] <= '9' {
		end++
	}
	if end > start && (s.text[start] != '0' || end == start+1) &&
		(end == len(s.text) || s.text[end] != '.' && s.text[end]|0x20 != 'e' && (s.text[end] < '0' || s.text[end] > '9')) {
		s.pos = end
		return s.data[start:end]
	}
	end = scanNumber(s.text, start)
	if end < 0 {
		s.failAt(end)
		return nil
	}
	s.pos = end
	return s.data[start:end]
}

// Int reads a number written as an integer (no fraction or exponent)
// that fits in an int; anything else is an error.
func (s *Scanner) Int() int {
	raw := s.Number()
	if raw == nil {
		return 0
	}
	neg := raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	if len(digits) <= maxSafeDigits {
		n := 0
		for _, c := range digits {
			if c < '0' || c > '9' {
				s.pos -= len(raw)
				s.Fail("expected an integer")
				return 0
			}
			n = n*10 + int(c-'0')
		}
		if neg {
			n = -n
		}
		return n
	}
	return s.intRange(raw)
}

// maxSafeDigits is the most decimal digits that always fit in an int.
const maxSafeDigits = 9 + 9*(strconv.IntSize/64)

func (s *Scanner) intRange(raw []byte) int {
	n, err := strconv.ParseInt(unsafeString(raw), 10, strconv.IntSize)
	if err != nil {
		s.pos -= len(raw)
		if e, ok := err.(*strconv.NumError); ok && e.Err == strconv.ErrRange {
			s.Fail("integer out of range")
		} else {
			s.Fail("expected an integer")
		}
		return 0
	}
	return int(n)
}

// Float reads a number as a float64; a number out of its range is an
// error.
func (s *Scanner) Float() float64 {
	raw := s.Number()
	if raw == nil {
		return 0
	}
	f, err := strconv.ParseFloat(unsafeString(raw), 64)
	if err != nil {
		s.pos -= len(raw)
		s.Fail("number out of range")
		return 0
	}
	return f
}

// Skip moves past the next value, checking it (see Lenient).
func (s *Scanner) Skip() {
	var end int
	if s.Lenient {
		end = skipLoose(s.text, s.pos)
	} else {
		end = scanValue(s.text, s.pos, 0)
	}
	if end < 0 {
		s.failAt(end)
		return
	}
	s.pos = end
}

// Raw moves past the next value like Skip and returns its bytes, a slice
// of the input without the whitespace around it; nil on error.
func (s *Scanner) Raw() []byte {
	s.Peek()
	start := s.pos
	s.Skip()
	if s.err != nil {
		return nil
	}
	return s.data[start:s.pos]
}
