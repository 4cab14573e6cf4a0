package openai

import "github.com/reinhq/rein/internal/jsonx"

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
		key, ok := s.Member(n)
		if !ok {
			return s.Err() == nil
		}
		f(key)
	}
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
