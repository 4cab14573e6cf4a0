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
// shape of a GenerateContentResponse without reflection or maps. It
// reuses its buffers from chunk to chunk.
type parser struct {
	s jsonx.Scanner
	c chunk
}

var errNotObject = errors.New("chunk is not a JSON object")

// parse decodes data into p.c.
func (p *parser) parse(data []byte) error {
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
		k, ok := s.Member(n)
		if !ok {
			break
		}
		switch string(k) {
		case "candidates":
			p.candidates()
		case "usageMetadata":
			p.usage()
		case "modelVersion":
			c.modelVersion = s.StrOrNull()
		case "responseId":
			c.responseID = s.StrOrNull()
		case "error":
			c.errRaw = s.Raw()
		default:
			p.extra(scopeResponse)
		}
	}
	return s.End()
}

// extra keeps the member just read, an unmodelled one, in scope.
func (p *parser) extra(scope byte) {
	k := p.s.RawKey()
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
		k, ok := s.Member(n)
		if !ok {
			return
		}
		switch string(k) {
		case "content":
			p.content()
		case "finishReason":
			p.c.finishReason = s.StrOrNull()
		case "index":
			s.Skip()
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
		k, ok := s.Member(n)
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
			s.Skip()
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
		k, ok := s.Member(n)
		if !ok {
			break
		}
		switch string(k) {
		case "text":
			if !s.Null() {
				pt.hasText = true
				pt.text = s.Str()
			}
		case "thought":
			pt.thought = !s.Null() && s.Bool()
		case "thoughtSignature":
			pt.sig = s.StrOrNull()
		case "functionCall":
			if !s.Null() {
				p.functionCall(pt)
			}
		default:
			k := s.RawKey()
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
		k, ok := s.Member(n)
		if !ok {
			return
		}
		switch string(k) {
		case "name":
			pt.callName = s.StrOrNull()
		case "id":
			pt.callID = s.StrOrNull()
		case "args":
			pt.callArgs = s.Raw()
		default:
			k := s.RawKey()
			if v := s.Raw(); s.Err() == nil {
				pt.callExtra = append(pt.callExtra, field{k, v})
			}
		}
	}
}

func (p *parser) usage() {
	s := &p.s
	if !s.Object() {
		return
	}
	u := &p.c.usage
	*u = usageCounts{}
	p.c.hasUsage = true
	for n := 0; ; n++ {
		k, ok := s.Member(n)
		if !ok {
			return
		}
		switch string(k) {
		case "promptTokenCount":
			u.prompt = integer(s)
		case "candidatesTokenCount":
			u.candidates = integer(s)
		case "thoughtsTokenCount":
			u.thoughts = integer(s)
		case "cachedContentTokenCount":
			u.cached = integer(s)
		case "toolUsePromptTokenCount":
			u.toolUse = integer(s)
		case "totalTokenCount":
			s.Skip() // derived: rein recomputes the total
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
