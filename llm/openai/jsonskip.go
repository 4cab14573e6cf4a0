package openai

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
