package gemini

import (
	"bytes"

	"github.com/reinhq/rein/internal/jsonx"
)

// A layout lets the parser skip what a Gemini stream resends unchanged in
// every chunk: the same members in the same order, the same unmodelled
// fields, the same model version and response id, only the text, the
// call arguments and the token counts varying. It remembers a stretch of
// the last chunk read member by member as its varying values (holes) and
// the bytes around them (gaps); when the same stretch of a later chunk has
// the same gaps, byte for byte, only its holes are read. The parser keeps
// two: one of a whole chunk and one of the usageMetadata object.
//
// Contract: reading a stretch with a layout gives what reading it member
// by member gives. With the same gaps, each hole holds a value of the same
// kind, read and checked as the member-by-member reading checks it, in the
// same place; so the stretch is well formed exactly when the layout's was
// and everything outside the holes is as it was. The fields rein keeps from
// chunk to chunk (Message.Extra) lie in the gaps and so equal the values
// already kept: a stretch read with a layout adds no extras, as keeping
// them again would change nothing. Chunk fields the gaps hold (the model
// version and response id) point into the layout's copy of the stretch,
// which stays until the next layout is made. A layout is made only of a
// stretch whose results are all holes or fixed by the gaps: not of chunks
// with part-level extras, unmodelled parts or errors, nor of stretches
// with a value the fast paths of scan.go could not read (broken).
type layout struct {
	ok bool
	// text is a copy of the stretch, which started at offset base in its
	// chunk; the offsets of holes are offsets in that chunk.
	text  []byte
	base  int
	holes []hole
}

// layouts holds the parser's layouts and records the holes of the chunk
// being read member by member.
type layouts struct {
	chunk, usage layout
	rec          []hole // in chunk order
	// broken tells that the stretch being read cannot make a layout.
	broken bool
	// set has a bit for each field set in the chunk being read, those of
	// a part for the part setPart only. A field set twice breaks the
	// layout: the later value, a null say, may not be a hole.
	set     uint32
	setPart int
}

// hole is a value of a chunk that a layout reads, and the chunk field it
// goes to.
type hole struct {
	// at and end delimit the value in its chunk.
	at, end int
	kind    holeKind
	to      slot
	part    int // the part, for part fields
}

type holeKind uint8

const (
	holeStr   holeKind = iota // a string read by quoted
	holeCount                 // a token count read by count
	holeRaw                   // any value, kept raw
	holeFixed                 // a string without escapes, left in the gaps
)

// slot names the chunk field a hole sets.
type slot uint8

const (
	toNone slot = iota // read and checked only
	toText
	toSig
	toCallName
	toCallID
	toCallArgs
	toFinish
	toModel
	toResponseID
	toPrompt
	toCandidates
	toThoughts
	toCached
	toToolUse
)

// partSlots are the slots of part fields.
const partSlots = 1<<toText | 1<<toSig | 1<<toCallName | 1<<toCallID | 1<<toCallArgs

// start readies t to record a chunk read member by member.
func (t *layouts) start() {
	t.rec, t.broken, t.set, t.setPart = t.rec[:0], false, 0, -1
}

// mark notes that the field to (of part, for part fields) is set.
func (t *layouts) mark(to slot, part int) {
	if to == toNone {
		return
	}
	if (1<<to)&partSlots != 0 && part != t.setPart {
		t.set &^= partSlots
		t.setPart = part
	}
	if t.set&(1<<to) != 0 {
		t.broken = true
	}
	t.set |= 1 << to
}

// str reads a string like Scanner.Str, into the chunk field to.
func (p *parser) str(to slot) []byte {
	at := p.s.Offset()
	if v, ok := p.quoted(); ok {
		p.record(at, holeStr, to)
		return v
	}
	p.t.broken = true
	return p.s.Str()
}

// strOrNull reads a string or null like Scanner.StrOrNull, into the
// chunk field to. With fixed, the value is expected to be the same in
// every chunk, and a string without escapes is left in the gaps.
func (p *parser) strOrNull(to slot, fixed bool) []byte {
	at := p.s.Offset()
	if v, ok := p.quoted(); ok {
		if fixed && len(v) == p.s.Offset()-at-2 {
			p.record(at, holeFixed, to)
		} else {
			p.record(at, holeStr, to)
		}
		return v
	}
	v := p.s.StrOrNull()
	if v != nil {
		p.t.broken = true
	}
	p.t.mark(to, len(p.c.parts)-1)
	return v
}

// integer reads a token count like the function integer, into the chunk
// field to.
func (p *parser) integer(to slot) int {
	at := p.s.Offset()
	if n, ok := p.count(); ok {
		p.record(at, holeCount, to)
		return n
	}
	p.t.broken = true
	return integer(&p.s)
}

// skipCount moves past the next value like Scanner.Skip, for a value that
// is usually a token count, then a hole.
func (p *parser) skipCount() {
	at := p.s.Offset()
	if _, ok := p.count(); ok {
		p.record(at, holeCount, toNone)
		return
	}
	p.s.Skip()
}

// raw reads any value like Scanner.Raw, into the chunk field to.
func (p *parser) raw(to slot) []byte {
	at := p.s.Offset()
	v := p.s.Raw()
	p.record(at, holeRaw, to)
	return v
}

// record notes the value read from at as a hole.
func (p *parser) record(at int, kind holeKind, to slot) {
	part := len(p.c.parts) - 1
	p.t.rec = append(p.t.rec, hole{at: at, end: p.s.Offset(), kind: kind, to: to, part: part})
	p.t.mark(to, part)
}

// build makes data[from:to], just read member by member, the layout;
// rec are the holes recorded there, which build may keep. Fixed strings
// of c are pointed into the layout's copy.
func (l *layout) build(data []byte, from, to int, rec []hole, c *chunk) {
	l.text, l.base, l.holes = append(l.text[:0], data[from:to]...), from, rec
	for _, h := range rec {
		if h.kind == holeFixed {
			c.setStr(h.to, 0, l.text[h.at-from+1:h.end-from-1])
		}
	}
	l.ok = true
}

// match reads the input from the offset from with l, setting the fields
// of p.c its holes go to, and returns where the stretch ends, or -1 when
// the input does not match. With record, the holes read are recorded.
// It leaves the scanner alone.
func (p *parser) match(l *layout, from int, record bool) int {
	c := &p.c
	data := p.s.Input()
	i, prev := from, 0 // prev: where the gap starts in l.text
	for k := range l.holes {
		h := &l.holes[k]
		if h.kind == holeFixed {
			continue
		}
		gap := l.text[prev : h.at-l.base]
		if !bytes.HasPrefix(data[i:], gap) {
			return -1
		}
		i += len(gap)
		prev = h.end - l.base
		var end int
		switch h.kind {
		case holeStr:
			var v []byte
			if v, end = p.quotedAt(data, i); end >= 0 {
				c.setStr(h.to, h.part, v)
			}
		case holeCount:
			var n int
			if n, end = countAt(data, i); end >= 0 {
				c.setCount(h.to, n)
			}
		case holeRaw:
			j := jsonx.SkipSpace(data, i)
			if end = jsonx.SkipValue(data, j, 0); end >= 0 {
				c.setStr(h.to, h.part, data[j:end])
			}
		}
		if end < 0 {
			return -1
		}
		if record {
			p.t.rec = append(p.t.rec, hole{at: i, end: end, kind: h.kind, to: h.to, part: h.part})
		}
		i = end
	}
	if gap := l.text[prev:]; bytes.HasPrefix(data[i:], gap) {
		return i + len(gap)
	}
	return -1
}

// reuse reads data with the chunk layout into p.c, which still holds the
// chunk the layout was made of, and reports whether it could. When it
// cannot, p.c is left partly changed, for parse to start again.
func (p *parser) reuse(data []byte) bool {
	if !p.t.chunk.ok {
		return false
	}
	p.s.Reset(data)
	if p.match(&p.t.chunk, 0, false) != len(data) {
		return false
	}
	p.c.extras = p.c.extras[:0]
	return true
}

// buildChunk makes data, just read member by member into c, the chunk
// layout, unless it is unfit.
func (t *layouts) buildChunk(data []byte, c *chunk) {
	t.chunk.ok = false
	if t.broken || c.errRaw != nil {
		return
	}
	for i := range c.parts {
		pt := &c.parts[i]
		if !pt.hasText && !pt.call || len(pt.extra) > 0 || len(pt.callExtra) > 0 {
			return
		}
	}
	// The layout takes the record; the old holes are recorded into next.
	rec := t.rec
	t.rec = t.chunk.holes[:0]
	t.chunk.build(data, 0, len(data), rec, c)
}

// setStr sets the string field to (of part, for part fields).
func (c *chunk) setStr(to slot, part int, v []byte) {
	switch to {
	case toText:
		c.parts[part].text = v
	case toSig:
		c.parts[part].sig = v
	case toCallName:
		c.parts[part].callName = v
	case toCallID:
		c.parts[part].callID = v
	case toCallArgs:
		c.parts[part].callArgs = v
	case toFinish:
		c.finishReason = v
	case toModel:
		c.modelVersion = v
	case toResponseID:
		c.responseID = v
	}
}

// setCount sets the token count to.
func (c *chunk) setCount(to slot, n int) {
	switch to {
	case toPrompt:
		c.usage.prompt = n
	case toCandidates:
		c.usage.candidates = n
	case toThoughts:
		c.usage.thoughts = n
	case toCached:
		c.usage.cached = n
	case toToolUse:
		c.usage.toolUse = n
	}
}
