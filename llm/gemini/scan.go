package gemini

import (
	"bytes"
	"encoding/binary"
	"github.com/reinhq/rein/internal/jsonx"
	"math/bits"
)

// Words of eight bytes, handled as one: ones*c repeats the byte c in
// every lane, highs is each lane's high bit.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Fast paths over jsonx.Scanner for what Gemini sends: compact objects
// (`{"key": value,"key": value}`), short member names, strings with few
// escapes and small integers. Each reads only input it recognises
// completely, checked as the Scanner would check it, and leaves the
// cursor where the Scanner method it stands for would (or past whitespace
// that method would skip); on anything else it leaves the input to that
// method. So what is accepted, what is read and every error stay the
// Scanner's.

// member reads the next member's name like Scanner.Member, and records
// where the name is written (quotes included) in p.key, or zeros when
// the scanner read it itself (then Scanner.RawKey gives it).
func (p *parser) member(n int) ([]byte, bool) {
	in, i := p.s.Input(), p.s.Offset()
	if i+1 < len(in) {
		c := in[i]
		if c == '}' {
			p.s.SetOffset(i + 1)
			return nil, false
		}
		if n > 0 && c == ',' {
			i++
			c = in[i]
		} else if n > 0 {
			c = 0
		}
		if c == '"' {
			if j := plainEnd(in, i+1); j >= 0 && j+1 < len(in) && in[j+1] == ':' {
				next := j + 2
				if next < len(in) && in[next] == ' ' {
					next++
				}
				p.s.SetOffset(next)
				p.key = [2]int{i, j + 1}
				return in[i+1 : j : j], true
			}
		}
	}
	p.key = [2]int{}
	return p.s.Member(n)
}

// rawKey returns the name of the member just read, as written.
func (p *parser) rawKey() []byte {
	if p.key[1] > 0 {
		return p.s.Input()[p.key[0]:p.key[1]]
	}
	return p.s.RawKey()
}

// skip moves past the next value like Scanner.Skip. The value is left in
// the gaps of a layout.
func (p *parser) skip() {
	if _, ok := p.quoted(); !ok {
		p.s.Skip()
	}
}

// quoted reads the string at the cursor, reporting whether it did: it
// does when the string is well formed and its escapes are all of one
// character (\n, \" …); others (\u…) are left to the Scanner. The content
// is a slice of the input when there are no escapes, of p.buf otherwise.
func (p *parser) quoted() ([]byte, bool) {
	v, end := p.quotedAt(p.s.Input(), p.s.Offset())
	if end < 0 {
		return nil, false
	}
	p.s.SetOffset(end)
	return v, true
}

// quotedAt reads the string whose opening quote is at b[i] like quoted,
// returning its content and the offset after it, or an offset of -1.
func (p *parser) quotedAt(b []byte, i int) ([]byte, int) {
	if i >= len(b) || b[i] != '"' {
		return nil, -1
	}
	i++
	start := i
	q := bytes.IndexByte(b[i:], '"')
	if q < 0 {
		return nil, -1
	}
	q += i
	e := bytes.IndexByte(b[i:q], '\\')
	if e < 0 {
		if hasControl(b[i:q]) {
			return nil, -1
		}
		return b[i:q:q], q + 1
	}
	// Copy the runs between escapes to p.buf. The quote found is looked
	// for again only when an escape consumed it, so that the work stays
	// linear in the string's length.
	buf := p.buf
	off := len(buf)
	for e += i; ; {
		c := unescaped(b[e+1]) // b[e+1] exists: b[q] is a quote
		if c == 0 {
			return nil, -1
		}
		buf = append(append(buf, b[i:e]...), c)
		if i = e + 2; i > q {
			if q = bytes.IndexByte(b[i:], '"'); q < 0 {
				return nil, -1
			}
			q += i
		}
		if i < q && b[i] == '\\' { // escapes often come in a row ("\n\n")
			e = i
		} else if e = bytes.IndexByte(b[i:q], '\\'); e >= 0 {
			e += i
		} else {
			break
		}
	}
	if hasControl(b[start:q]) {
		return nil, -1
	}
	p.buf = append(buf, b[i:q]...)
	return p.buf[off:len(p.buf):len(p.buf)], q + 1
}

// unescaped returns the byte the one-character escape \e stands for, or
// 0 for anything else.
func unescaped(e byte) byte {
	switch e {
	case '"', '\\', '/':
		return e
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// count reads a token count written as a short unsigned integer
// followed by ',' or '}', the usual case, and reports whether it did.
// integer would read the same number.
func (p *parser) count() (int, bool) {
	n, end := countAt(p.s.Input(), p.s.Offset())
	if end < 0 {
		return 0, false
	}
	p.s.SetOffset(end)
	return n, true
}

// countAt reads the token count at b[i] like count, after a space if
// there is one, returning it and the offset after it, or an offset of -1.
func countAt(b []byte, i int) (int, int) {
	if i < len(b) && b[i] == ' ' {
		i++
	}
	n, j := 0, i
	for end := min(i+9, len(b)); j < end; j++ {
		d := b[j] - '0'
		if d > 9 {
			break
		}
		n = n*10 + int(d)
	}
	if j == i || j >= len(b) || b[j] != ',' && b[j] != '}' || b[i] == '0' && j > i+1 {
		return 0, -1
	}
	return n, j
}

// load reads the eight bytes at b[i:], little-endian.
func load(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// hasControl reports whether b holds a control character, which JSON
// strings may not. It reads b a word at a time, four words in a row.
func hasControl(b []byte) bool {
	const c = ones * 0x20
	if len(b) < 8 {
		for _, x := range b {
			if x < 0x20 {
				return true
			}
		}
		return false
	}
	// The last word, overlapping the others, stands for the bytes after
	// the last whole one.
	x := binary.LittleEndian.Uint64(b[len(b)-8:])
	m := (x - c) &^ x
	for ; len(b) >= 32; b = b[32:] {
		x0 := binary.LittleEndian.Uint64(b)
		x1 := binary.LittleEndian.Uint64(b[8:])
		x2 := binary.LittleEndian.Uint64(b[16:])
		x3 := binary.LittleEndian.Uint64(b[24:])
		m |= (x0-c)&^x0 | (x1-c)&^x1 | (x2-c)&^x2 | (x3-c)&^x3
	}
	for ; len(b) >= 8; b = b[8:] {
		x := binary.LittleEndian.Uint64(b)
		m |= (x - c) &^ x
	}
	return m&highs != 0
}

// plainEnd returns the index of the quote that ends the string whose
// content starts at b[i], or -1 when a backslash or a control character
// comes first or the quote is missing. Short strings are read a word at
// a time; past 32 bytes a vectorised search finds the quote.
func plainEnd(b []byte, i int) int {
	for end := min(i+32, len(b)); i+8 <= end; i += 8 {
		if m := jsonx.StopMask(load(b, i)); m != 0 {
			if j := i + bits.TrailingZeros64(m)>>3; b[j] == '"' {
				return j
			}
			return -1
		}
	}
	q := bytes.IndexByte(b[i:], '"')
	if q < 0 {
		return -1
	}
	if q += i; bytes.IndexByte(b[i:q], '\\') >= 0 || hasControl(b[i:q]) {
		return -1
	}
	return q
}
