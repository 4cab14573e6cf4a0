package gemini

import "errors"

// chunk is one decoded GenerateContentResponse. Byte slices alias the SSE
// event data or the scanner's arena and are valid until the next parse.
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

// parser decodes chunks. It reuses its buffers from chunk to chunk.
type parser struct {
	s scanner
	c chunk
}

var errNotObject = errors.New("chunk is not a JSON object")

// parse decodes data into p.c.
func (p *parser) parse(data []byte) error {
	s := &p.s
	s.reset(data)
	c := &p.c
	c.parts = c.parts[:0]
	c.finishReason, c.modelVersion, c.responseID, c.errRaw = nil, nil, nil, nil
	c.hasUsage = false
	c.extras = c.extras[:0]
	if s.peek() != '{' {
		return errNotObject
	}
	s.pos++
	first := true
	for s.next(&first, '}') {
		k, kraw := s.key()
		switch string(k) {
		case "candidates":
			p.candidates()
		case "usageMetadata":
			p.usage()
		case "modelVersion":
			c.modelVersion = s.strOrNull()
		case "responseId":
			c.responseID = s.strOrNull()
		case "error":
			c.errRaw = s.skip()
		default:
			p.extra(scopeResponse, kraw)
		}
	}
	if s.err == nil && !s.end() {
		s.fail("unexpected data after the chunk")
	}
	return s.err
}

func (p *parser) extra(scope byte, key []byte) {
	v := p.s.skip()
	if p.s.err == nil {
		p.c.extras = append(p.c.extras, scopedField{scope, field{key, v}})
	}
}

// candidates decodes the first candidate; rein asks for one (any others,
// requested through Options.Extra, are passed over).
func (p *parser) candidates() {
	s := &p.s
	if s.null() || !s.open('[') {
		return
	}
	first := true
	n := 0
	for s.next(&first, ']') {
		if n == 0 {
			p.candidate()
		} else {
			s.skip()
		}
		n++
	}
}

func (p *parser) candidate() {
	s := &p.s
	if s.null() || !s.open('{') {
		return
	}
	first := true
	for s.next(&first, '}') {
		k, kraw := s.key()
		switch string(k) {
		case "content":
			p.content()
		case "finishReason":
			p.c.finishReason = s.strOrNull()
		case "index":
			s.skip()
		default:
			p.extra(scopeCandidate, kraw)
		}
	}
}

func (p *parser) content() {
	s := &p.s
	if s.null() || !s.open('{') {
		return
	}
	first := true
	for s.next(&first, '}') {
		k, kraw := s.key()
		switch string(k) {
		case "parts":
			if s.null() || !s.open('[') {
				continue
			}
			pf := true
			for s.next(&pf, ']') {
				p.part()
			}
		case "role":
			s.skip()
		default:
			p.extra(scopeContent, kraw)
		}
	}
}

func (p *parser) part() {
	s := &p.s
	c := &p.c
	if s.null() {
		return
	}
	if cap(c.parts) > len(c.parts) {
		c.parts = c.parts[:len(c.parts)+1]
	} else {
		c.parts = append(c.parts, part{})
	}
	pt := &c.parts[len(c.parts)-1]
	*pt = part{extra: pt.extra[:0], callExtra: pt.callExtra[:0]}
	s.ws()
	start := s.pos
	if !s.open('{') {
		return
	}
	first := true
	for s.next(&first, '}') {
		k, kraw := s.key()
		switch string(k) {
		case "text":
			if !s.null() {
				pt.hasText = true
				pt.text = s.str()
			}
		case "thought":
			pt.thought = s.boolean()
		case "thoughtSignature":
			pt.sig = s.strOrNull()
		case "functionCall":
			if !s.null() {
				p.functionCall(pt)
			}
		default:
			if v := s.skip(); s.err == nil {
				pt.extra = append(pt.extra, field{kraw, v})
			}
		}
	}
	pt.raw = s.data[start:s.pos]
}

func (p *parser) functionCall(pt *part) {
	s := &p.s
	if !s.open('{') {
		return
	}
	pt.call = true
	first := true
	for s.next(&first, '}') {
		k, kraw := s.key()
		switch string(k) {
		case "name":
			pt.callName = s.strOrNull()
		case "id":
			pt.callID = s.strOrNull()
		case "args":
			pt.callArgs = s.skip()
		default:
			if v := s.skip(); s.err == nil {
				pt.callExtra = append(pt.callExtra, field{kraw, v})
			}
		}
	}
}

func (p *parser) usage() {
	s := &p.s
	if s.null() || !s.open('{') {
		return
	}
	u := &p.c.usage
	*u = usageCounts{}
	p.c.hasUsage = true
	first := true
	for s.next(&first, '}') {
		k, kraw := s.key()
		switch string(k) {
		case "promptTokenCount":
			u.prompt = s.integer()
		case "candidatesTokenCount":
			u.candidates = s.integer()
		case "thoughtsTokenCount":
			u.thoughts = s.integer()
		case "cachedContentTokenCount":
			u.cached = s.integer()
		case "toolUsePromptTokenCount":
			u.toolUse = s.integer()
		case "totalTokenCount":
			s.skip() // derived: rein recomputes the total
		default:
			p.extra(scopeUsage, kraw)
		}
	}
}
