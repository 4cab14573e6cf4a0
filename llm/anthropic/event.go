package anthropic

import (
	"encoding/json"

	"github.com/reinhq/rein/internal/jsonx"
)

// frame is one decoded stream event: the fields of the Messages API's
// events that rein uses, extracted in one validating pass without
// encoding/json. Every byte slice points into the event's data or into
// the scanner's buffer and is valid until the next call to parse.
type frame struct {
	typ      []byte
	index    int
	hasIndex bool

	// delta
	deltaType  []byte
	text       []byte
	thinking   []byte
	partial    []byte
	signature  []byte
	stopReason []byte
	stopSeq    []byte
	hasStopSeq bool
	citation   []byte

	// content_block (raw is the whole object)
	block blockFields

	// message (message_start)
	msgID, msgModel []byte
	msgUsage        []byte

	usage []byte // message_delta's usage object

	// error
	hasError         bool
	errType, errText []byte
}

// blockFields are the fields of content_block_start's block.
type blockFields struct {
	raw                       []byte
	typ, text, thinking       []byte
	signature, data, id, name []byte
	input, citations          []byte // raw values
	other                     bool   // the block has a field not listed above
}

// scanner reads the Messages API's stream events with jsonx: strictly,
// as encoding/json would accept them.
type scanner struct{ jsonx.Scanner }

// parse decodes one event payload into f.
func (s *scanner) parse(data []byte, f *frame) error {
	*f = frame{}
	s.Reset(data)
	if s.object() {
		for n := 0; ; n++ {
			key, ok := s.Member(n)
			if !ok {
				break
			}
			s.topField(key, f)
		}
	}
	return s.End()
}

func (s *scanner) ok() bool { return s.Err() == nil }

// object opens an object, which must not be null.
func (s *scanner) object() bool {
	if s.Peek() != '{' {
		s.Fail("expected an object")
		return false
	}
	return s.Object()
}

func (s *scanner) topField(key []byte, f *frame) {
	switch string(key) {
	case "type":
		f.typ = s.StrOrNull()
	case "index":
		f.index = s.int()
		f.hasIndex = s.ok()
	case "delta":
		s.delta(f)
	case "content_block":
		s.Peek()
		start := s.Offset()
		if s.object() {
			for n := 0; ; n++ {
				k, ok := s.Member(n)
				if !ok {
					break
				}
				s.blockField(k, &f.block)
			}
		}
		if s.ok() {
			f.block.raw = s.Input()[start:s.Offset()]
		}
	case "message":
		if s.object() {
			for n := 0; ; n++ {
				k, ok := s.Member(n)
				if !ok {
					break
				}
				s.messageField(k, f)
			}
		}
	case "usage":
		f.usage = s.Raw()
	case "error":
		f.hasError = true
		if s.Peek() != '{' {
			s.Skip()
			return
		}
		s.Object()
		for n := 0; ; n++ {
			k, ok := s.Member(n)
			if !ok {
				break
			}
			switch string(k) {
			case "type":
				f.errType = s.StrOrNull()
			case "message":
				f.errText = s.StrOrNull()
			default:
				s.Skip()
			}
		}
	default:
		s.Skip()
	}
}

func (s *scanner) blockField(key []byte, b *blockFields) {
	switch string(key) {
	case "type":
		b.typ = s.StrOrNull()
	case "text":
		b.text = s.StrOrNull()
	case "thinking":
		b.thinking = s.StrOrNull()
	case "signature":
		b.signature = s.StrOrNull()
	case "data":
		b.data = s.StrOrNull()
	case "id":
		b.id = s.StrOrNull()
	case "name":
		b.name = s.StrOrNull()
	case "input":
		b.input = s.Raw()
	case "citations":
		b.citations = s.Raw()
	default:
		b.other = true
		s.Skip()
	}
}

func (s *scanner) messageField(key []byte, f *frame) {
	switch string(key) {
	case "id":
		f.msgID = s.StrOrNull()
	case "model":
		f.msgModel = s.StrOrNull()
	case "usage":
		f.msgUsage = s.Raw()
	default:
		s.Skip()
	}
}

// int reads a JSON integer that fits comfortably in an int (nine digits).
func (s *scanner) int() int {
	s.Peek()
	start := s.Offset()
	n := s.Int()
	if s.ok() && (n > 999_999_999 || n < -999_999_999) {
		s.SetOffset(start)
		s.Fail("integer out of range")
		return 0
	}
	return n
}

// usage reads a usage object; counts that are absent or null stay nil.
func (s *scanner) usage(raw []byte, u *wireUsage) error {
	s.Reset(raw)
	if !s.Object() {
		return s.Err()
	}
	for n := 0; ; n++ {
		key, ok := s.Member(n)
		if !ok {
			break
		}
		var dst **int
		switch string(key) {
		case "input_tokens":
			dst = &u.Input
		case "output_tokens":
			dst = &u.Output
		case "cache_read_input_tokens":
			dst = &u.CacheRead
		case "cache_creation_input_tokens":
			dst = &u.CacheWrite
		default:
			s.Skip()
			continue
		}
		if s.Null() {
			continue
		}
		if v := s.int(); s.ok() {
			*dst = &v
		}
	}
	return s.Err()
}

// elements returns the values of a JSON array, copied.
func (s *scanner) elements(raw []byte) []json.RawMessage {
	s.Reset(raw)
	if s.Peek() != '[' {
		return nil
	}
	s.Array()
	var out []json.RawMessage
	for n := 0; s.Element(n); n++ {
		v := s.Raw()
		if !s.ok() {
			return out
		}
		out = append(out, append(json.RawMessage(nil), v...))
	}
	return out
}

// delta reads the delta object of content_block_delta and message_delta.
func (s *scanner) delta(f *frame) {
	if !s.Object() {
		return
	}
	for n := 0; ; n++ {
		key, ok := s.Member(n)
		if !ok {
			return
		}
		switch string(key) {
		case "type":
			f.deltaType = s.StrOrNull()
		case "text":
			f.text = s.StrOrNull()
		case "thinking":
			f.thinking = s.StrOrNull()
		case "partial_json":
			f.partial = s.StrOrNull()
		case "signature":
			f.signature = s.StrOrNull()
		case "stop_reason":
			f.stopReason = s.StrOrNull()
		case "stop_sequence":
			f.stopSeq = s.StrOrNull()
			f.hasStopSeq = s.ok() && f.stopSeq != nil
		case "citation":
			f.citation = s.Raw()
		default:
			s.Skip()
		}
	}
}
