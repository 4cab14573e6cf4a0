package anthropic

import "encoding/json"

// frame is one decoded stream event: the fields of the Messages API's
// events that rein uses, extracted in one validating pass without
// encoding/json. Every byte slice points into the event's data or into
// the scanner's scratch buffer and is valid until the next call to parse.
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

func (s *scanner) topField(key []byte, f *frame) error {
	var err error
	switch string(key) {
	case "type":
		f.typ, err = s.stringOrNull()
	case "index":
		f.index, err = s.int()
		f.hasIndex = err == nil
	case "delta":
		return s.delta(f)
	case "content_block":
		start := s.pos
		if err = s.object(func(k []byte) error { return s.blockField(k, &f.block) }); err == nil {
			f.block.raw = s.data[start:s.pos]
		}
	case "message":
		err = s.object(func(k []byte) error { return s.messageField(k, f) })
	case "usage":
		f.usage, err = s.raw()
	case "error":
		f.hasError = true
		if s.peek() != '{' {
			return s.skip(0)
		}
		err = s.object(func(k []byte) error {
			var err error
			switch string(k) {
			case "type":
				f.errType, err = s.stringOrNull()
			case "message":
				f.errText, err = s.stringOrNull()
			default:
				err = s.skip(0)
			}
			return err
		})
	default:
		err = s.skip(0)
	}
	return err
}

func (s *scanner) blockField(key []byte, b *blockFields) error {
	var err error
	switch string(key) {
	case "type":
		b.typ, err = s.stringOrNull()
	case "text":
		b.text, err = s.stringOrNull()
	case "thinking":
		b.thinking, err = s.stringOrNull()
	case "signature":
		b.signature, err = s.stringOrNull()
	case "data":
		b.data, err = s.stringOrNull()
	case "id":
		b.id, err = s.stringOrNull()
	case "name":
		b.name, err = s.stringOrNull()
	case "input":
		b.input, err = s.raw()
	case "citations":
		b.citations, err = s.raw()
	default:
		b.other = true
		err = s.skip(0)
	}
	return err
}

func (s *scanner) messageField(key []byte, f *frame) error {
	var err error
	switch string(key) {
	case "id":
		f.msgID, err = s.stringOrNull()
	case "model":
		f.msgModel, err = s.stringOrNull()
	case "usage":
		f.msgUsage, err = s.raw()
	default:
		err = s.skip(0)
	}
	return err
}

// usage reads a usage object; counts that are absent or null stay nil.
func (s *scanner) usage(raw []byte, u *wireUsage) error {
	s.data, s.pos = raw, 0
	if s.peek() == 'n' {
		return s.null()
	}
	return s.object(func(key []byte) error {
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
			return s.skip(0)
		}
		if s.peek() == 'n' {
			return s.null()
		}
		n, err := s.int()
		if err == nil {
			*dst = &n
		}
		return err
	})
}

// elements returns the values of a JSON array, copied.
func (s *scanner) elements(raw []byte) []json.RawMessage {
	s.data, s.pos = raw, 0
	if s.peek() != '[' {
		return nil
	}
	s.pos++
	var out []json.RawMessage
	for s.peek() != ']' {
		v, err := s.raw()
		if err != nil {
			return out
		}
		out = append(out, append(json.RawMessage(nil), v...))
		if s.peek() == ',' {
			s.pos++
		}
	}
	return out
}

// delta reads the delta object of content_block_delta and message_delta.
func (s *scanner) delta(f *frame) error {
	if s.peek() == 'n' {
		return s.null()
	}
	empty, err := s.enter()
	for more := !empty; more && err == nil; {
		var key []byte
		if key, err = s.key(); err != nil {
			break
		}
		if err = s.deltaField(key, f); err == nil {
			more, err = s.next()
		}
	}
	return err
}

func (s *scanner) deltaField(key []byte, f *frame) error {
	var err error
	switch string(key) {
	case "type":
		f.deltaType, err = s.stringOrNull()
	case "text":
		f.text, err = s.stringOrNull()
	case "thinking":
		f.thinking, err = s.stringOrNull()
	case "partial_json":
		f.partial, err = s.stringOrNull()
	case "signature":
		f.signature, err = s.stringOrNull()
	case "stop_reason":
		f.stopReason, err = s.stringOrNull()
	case "stop_sequence":
		f.stopSeq, err = s.stringOrNull()
		f.hasStopSeq = err == nil && f.stopSeq != nil
	case "citation":
		f.citation, err = s.raw()
	default:
		err = s.skip(0)
	}
	return err
}
