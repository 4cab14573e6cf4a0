package gemini

import (
	"errors"
	"strconv"

	"github.com/reinhq/rein/internal/jsonx"
)

// chunk is one decoded GenerateContentResponse. Byte slices alias the SSE
// event data or the scanner's buffer and are valid until the next parse.
type chunk struct {
	parts        []part
	finishReason []byte
	modelVersion []byte
	responseID   []byte
	// errRaw is the raw "error" object of a chunk that reports a failure.
	errRaw   []byte
	hasUsage bool
	usage    usageCounts
	// extras are fields rein does not model, outside the parts.
	extras []scopedField
}

type usageCounts struct {
	prompt, candidates, thoughts, cached, toolUse int
}

// part is one element of candidates[0].content.parts.
type part struct {
	raw      []byte // the whole part, as sent
	hasText  bool
	text     []byte
	thought  bool
	sig      []byte
	call     bool
	callName []byte
	callID   []byte
	callArgs []byte // raw JSON, nil when absent
	// extra holds part-level fields rein does not model; callExtra those
	// inside functionCall.
	extra     []field
	callExtra []field
}

// field is an unmodelled object member: the raw key (with quotes) and
// the raw value.
type field struct{ key, val []byte }

// Scopes of fields kept in Message.Extra.
const (
	scopeResponse byte = iota
	scopeCandidate
	scopeContent
	scopeUsage
)

type scopedField struct {
	scope byte
	field
}

// parser decodes chunks with a strict jsonx.Scanner, walking the known
// shape of a GenerateContentResponse without reflection or maps, with
// fast paths for Gemini's usual output (scan.go) and layouts that skip
// what a chunk repeats of the one before (layout.go). It reuses its
// buffers from chunk to chunk.
type parser struct {
	s jsonx.Scanner
	c chunk
	// key is where the name of the member just read is written, quotes
	// included, when member found it (see rawKey); it is kept as offsets
	// rather than as a slice, as storing pointers costs a write barrier
	// while the collector runs.
	key [2]int
	// buf holds the strings with escapes read since the last parse.
	buf []byte
	// t are the layouts learnt from the chunks before.
	t layouts
}

var errNotObject = errors.New("chunk is not a JSON object")

// parse decodes data into p.c, with the chunk layout if it fits, member
// by member otherwise, making a new layout of it.
func (p *parser) parse(data []byte) error {
	p.buf = p.buf[:0]
	if p.reuse(data) {
		return nil
	}
	p.buf = p.buf[:0] // drop what reuse left there
	p.t.start()
	s := &p.s
	s.Reset(data)
	c := &p.c
	c.parts = c.parts[:0]
	c.finishReason, c.modelVersion, c.responseID, c.errRaw = nil, nil, nil, nil
	c.hasUsage = false
	c.extras = c.extras[:0]
	if s.Peek() != '{' {
		return errNotObject
	}
	s.Object()
	for n := 0; ; n++ {
		k, ok := p.member(n)
		if !ok {
			break
		}
		switch string(k) {
		case "candidates":
			p.candidates()
		case "usageMetadata":
			p.usage()
		case "modelVersion":
			c.modelVersion = p.strOrNull(toModel, true)
		case "responseId":
			c.responseID = p.strOrNull(toResponseID, true)
		case "error":
			c.errRaw = s.Raw()
		default:
			p.extra(scopeResponse)
		}
	}
	if err := s.End(); err != nil {
		p.t.chunk.ok = false
		return err
	}
	p.t.buildChunk(data, c)
	return nil
}

// forget drops what the parser learnt from the stream before.
func (p *parser) forget() { p.t.chunk.ok, p.t.usage.ok = false, false }

// extra keeps the member just read, an unmodelled one, in scope.
func (p *parser) extra(scope byte) {
	k := p.rawKey()
	if v := p.s.Raw(); p.s.Err() == nil {
		p.c.extras = append(p.c.extras, scopedField{scope, field{k, v}})
	}
}

// candidates decodes the first candidate; rein asks for one (any others,
// requested through Options.Extra, are passed over).
func (p *parser) candidates() {
	s := &p.s
	if !s.Array() {
		return
	}
	for n := 0; s.Element(n); n++ {
		if n == 0 {
			p.candidate()
		} else {
			s.Skip()
		}
	}
}

func (p *parser) candidate() {
	s := &p.s
	if !s.Object() {
		return
	}
	for n := 0; ; n++ {
		k, ok := p.member(n)
		if !ok {
			return
		}
		switch string(k) {
		case "content":
			p.content()
		case "finishReason":
			p.c.finishReason = p.strOrNull(toFinish, false)
		case "index":
			p.skip()
		default:
			p.extra(scopeCandidate)
		}
	}
}

func (p *parser) content() {
	s := &p.s
	if !s.Object() {
		return
	}
	for n := 0; ; n++ {
		k, ok := p.member(n)
		if !ok {
			return
		}
		switch string(k) {
		case "parts":
			if !s.Array() {
				continue
			}
			for i := 0; s.Element(i); i++ {
				p.part()
			}
		case "role":
			p.skip()
		default:
			p.extra(scopeContent)
		}
	}
}

func (p *parser) part() {
	s := &p.s
	c := &p.c
	if s.Null() {
		return
	}
	if cap(c.parts) > len(c.parts) {
		c.parts = c.parts[:len(c.parts)+1]
	} else {
		c.parts = append(c.parts, part{})
	}
	pt := &c.parts[len(c.parts)-1]
	*pt = part{extra: pt.extra[:0], callExtra: pt.callExtra[:0]}
	s.Peek()
	start := s.Offset()
	if !s.Object() {
		return
	}
	for n := 0; ; n++ {
		k, ok := p.member(n)
		if !ok {
			break
		}
		switch string(k) {
		case "text":
			if !s.Null() {
				pt.hasText = true
				pt.text = p.str(toText)
			}
		case "thought":
			pt.thought = !s.Null() && s.Bool()
		case "thoughtSignature":
			pt.sig = p.strOrNull(toSig, false)
		case "functionCall":
			if !s.Null() {
				p.functionCall(pt)
			}
		default:
			k := p.rawKey()
			if v := s.Raw(); s.Err() == nil {
				pt.extra = append(pt.extra, field{k, v})
			}
		}
	}
	pt.raw = s.Input()[start:s.Offset()]
}

func (p *parser) functionCall(pt *part) {
	s := &p.s
	if !s.Object() {
		return
	}
	pt.call = true
	for n := 0; ; n++ {
		k, ok := p.member(n)
		if !ok {
			return
		}
		switch string(k) {
		case "name":
			pt.callName = p.strOrNull(toCallName, false)
		case "id":
			pt.callID = p.strOrNull(toCallID, false)
		case "args":
			pt.callArgs = p.raw(toCallArgs)
		default:
			k := p.rawKey()
			if v := s.Raw(); s.Err() == nil {
				pt.callExtra = append(pt.callExtra, field{k, v})
			}
		}
	}
}

// usage reads the usageMetadata object: with the usage layout when the
// chunk has no other (the layout adds no extras, which is right only if
// the chunk adds none of that scope elsewhere), and member by member
// otherwise, making the layout of it.
func (p *parser) usage() {
	s := &p.s
	if p.c.hasUsage {
		p.t.broken = true // the counts start again from zero: no hole can say so
	}
	s.Peek()
	from, rec, broken := s.Offset(), len(p.t.rec), p.t.broken
	obj := from < len(s.Input()) && s.Input()[from] == '{'
	if obj && !p.c.hasUsage && p.t.usage.ok {
		p.c.usage, p.c.hasUsage = usageCounts{}, true
		if end := p.match(&p.t.usage, from, true); end >= 0 {
			s.SetOffset(end)
			return
		}
		p.t.rec = p.t.rec[:rec]
		s.SetOffset(from)
	}
	p.t.broken = false
	p.usageMembers()
	if obj && !p.t.broken && s.Err() == nil {
		p.t.usage.build(s.Input(), from, s.Offset(), append(p.t.usage.holes[:0], p.t.rec[rec:]...), &p.c)
	} else {
		p.t.usage.ok = false
	}
	p.t.broken = p.t.broken || broken
}

// usageMembers reads the usageMetadata object member by member.
func (p *parser) usageMembers() {
	s := &p.s
	if !s.Object() {
		return
	}
	u := &p.c.usage
	*u = usageCounts{}
	p.c.hasUsage = true
	for n := 0; ; n++ {
		k, ok := p.member(n)
		if !ok {
			return
		}
		switch string(k) {
		case "promptTokenCount":
			u.prompt = p.integer(toPrompt)
		case "candidatesTokenCount":
			u.candidates = p.integer(toCandidates)
		case "thoughtsTokenCount":
			u.thoughts = p.integer(toThoughts)
		case "cachedContentTokenCount":
			u.cached = p.integer(toCached)
		case "toolUsePromptTokenCount":
			u.toolUse = p.integer(toToolUse)
		case "totalTokenCount":
			p.skipCount() // derived: rein recomputes the total
		default:
			p.extra(scopeUsage)
		}
	}
}

// integer reads a token count: a number, a numeric string (as protobuf
// JSON writes 64-bit integers) or null. Fractions are truncated and
// values outside int32 are clamped; counts are never negative.
func integer(s *jsonx.Scanner) int {
	var raw []byte
	switch s.Peek() {
	case 'n':
		s.Null()
		return 0
	case '"':
		raw = s.Str()
	default:
		raw = s.Number()
	}
	if s.Err() != nil {
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
