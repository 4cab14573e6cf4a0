package session

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/reinhq/rein/internal/jsonx"
	"github.com/reinhq/rein/llm"
)

// scanner is the JSON reader of the fast path of the entry decoder. Every
// method reports failure by returning false; the fast path then gives up
// and the line is decoded by encoding/json, which has the final word on
// what a line means. The fast path therefore only needs to be right when
// it succeeds: it accepts a subset of JSON (no null values except a null
// message content, no duplicate, unknown or escaped keys, no invalid
// UTF-8 or lone surrogates in strings) and decodes it exactly as
// encoding/json would.
type scanner struct {
	jsonx.Scanner
	// intern shares the memory of short values that repeat across lines
	// (roles, block types, model names…).
	intern map[string]string
	// recent caches interned values by a hash of their bytes.
	recent [64]string
	// block is where keep copies strings.
	block []byte
	// Where messages, their content blocks and usages are allocated.
	messageSlab slab[llm.Message]
	contentSlab slab[llm.Content]
	usageSlab   slab[llm.Usage]
}

func (s *scanner) ok() bool { return s.Err() == nil }

// str reads a string value into the scanner's block (see unquote).
func (s *scanner) str() (string, bool) {
	if s.Peek() != '"' {
		return "", false
	}
	in, i := s.Input(), s.Offset()
	room := len(in) - i // what unquote may write
	if room >= ownBlockAt {
		return s.strLong()
	}
	if cap(s.block)-len(s.block) < room {
		s.newBlock(room)
	}
	free := s.block[len(s.block):cap(s.block)]
	n, end, high, ok := unquote(free, in, i)
	if !ok || high && !utf8.Valid(free[:n]) {
		return "", false
	}
	s.SetOffset(end)
	if n == 0 {
		return "", true
	}
	s.block = s.block[:len(s.block)+n]
	return unsafe.String(&free[0], n), true
}

// strLong reads a string value near the start of a long line, where
// reserving room for the rest of the line in the block would waste it.
func (s *scanner) strLong() (string, bool) {
	start := s.Offset()
	b := s.Str()
	if !s.exact(b, start) {
		return "", false
	}
	return s.keep(b), true
}

// exact reports whether b, the string just read from the input at
// start, is what encoding/json decodes it to, and not a replacement:
// encoding/json turns invalid UTF-8 and lone surrogates into U+FFFD, and
// lines holding them are left to it, so that they are kept verbatim.
func (s *scanner) exact(b []byte, start int) bool {
	if !s.ok() || !utf8.Valid(b) {
		return false
	}
	// Only an escape can make a lone surrogate, which then decodes to
	// U+FFFD; checking for that first is much cheaper than looking for
	// the escape.
	return !s.Escaped() || !bytes.Contains(b, []byte("\uFFFD")) || !loneSurrogate(s.Input()[start:s.Offset()])
}

// loneSurrogate reports whether the valid JSON string raw (quotes
// included) has a \u escape of a UTF-16 surrogate that is not half of a
// pair.
func loneSurrogate(raw []byte) bool {
	for i := bytes.IndexByte(raw, '\\'); i >= 0; {
		if raw[i+1] == 'u' {
			if r := hex4(raw[i+2:]); utf16.IsSurrogate(r) {
				if raw[i+6] != '\\' || raw[i+7] != 'u' || utf16.DecodeRune(r, hex4(raw[i+8:])) == utf8.RuneError {
					return true
				}
				i += 6
			}
		}
		i += 2
		k := bytes.IndexByte(raw[i:], '\\')
		if k < 0 {
			break
		}
		i += k
	}
	return false
}

// hex4 decodes the four hex digits that start b, known to be valid.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r = r<<4 | rune(c&0xf)
		if c > '9' {
			r += 9 // 'a' and 'A' end in 1
		}
	}
	return r
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
		s.newBlock(len(b))
	}
	start := len(s.block)
	s.block = append(s.block, b...)
	return unsafe.String(&s.block[start], len(b))
}

// newBlock starts a block with room for at least need bytes. Blocks grow
// with use, so that decoding a single line allocates little.
func (s *scanner) newBlock(need int) {
	size := min(max(2*cap(s.block), minBlock), maxBlock)
	s.block = make([]byte, 0, max(size, need))
}

// istr reads a string value that is likely to repeat, sharing its memory.
func (s *scanner) istr() (string, bool) {
	s.Peek()
	start := s.Offset()
	raw := s.Str()
	if s.Escaped() || len(raw) > 64 || len(raw) == 0 {
		if !s.exact(raw, start) {
			return "", false
		}
		return s.keep(raw), true
	}
	if !s.ok() || !ascii(raw) && !utf8.Valid(raw) {
		return "", false
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

// ascii reports whether the short string b is plain ASCII, more cheaply
// than utf8.Valid does.
func ascii(b []byte) bool {
	var acc byte
	for _, c := range b {
		acc |= c
	}
	return acc < utf8.RuneSelf
}

func (s *scanner) int() (int, bool) {
	n := s.Int()
	return n, s.ok()
}

func (s *scanner) float() (float64, bool) {
	f := s.Float()
	return f, s.ok()
}

func (s *scanner) bool() (bool, bool) {
	b := s.Bool()
	return b, s.ok()
}

// raw reads any JSON value except a top-level null and returns a copy of
// its bytes, as encoding/json fills a json.RawMessage. Short values are
// copied into the block, in a slice whose capacity ends with the value.
func (s *scanner) raw() (json.RawMessage, bool) {
	if s.Peek() == 'n' {
		return nil, false
	}
	v := s.Raw()
	if !s.ok() {
		return nil, false
	}
	if len(v) >= ownBlockAt {
		return append(json.RawMessage(nil), v...), true
	}
	if cap(s.block)-len(s.block) < len(v) {
		s.newBlock(len(v))
	}
	start := len(s.block)
	s.block = append(s.block, v...)
	return json.RawMessage(s.block[start:len(s.block):len(s.block)]), true
}

// strings reads an array of strings; [] gives an empty, non-nil slice.
func (s *scanner) strings() ([]string, bool) {
	if !s.Array() {
		return nil, false
	}
	out := []string{}
	for n := 0; s.Element(n); n++ {
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, s.ok()
}

// object reads an object, calling field for each key; field reads the
// value and returns the key's bit (for duplicate detection) or 0 for an
// unknown key or a bad value. Value readers fail on null, except where
// noted, so null values go to the slow path. Escaped keys go there too.
func (s *scanner) object(field func(key []byte) uint32) bool {
	if !s.Object() {
		return false
	}
	var seen uint32
	for n := 0; ; n++ {
		k, ok := s.Member(n)
		if !ok {
			return s.ok()
		}
		if s.Escaped() {
			return false
		}
		bit := field(k)
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}
