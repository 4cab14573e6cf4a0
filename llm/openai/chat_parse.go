package openai

import "errors"

// chatChunk is the part of one chunk the decoder reads; it is reused.
type chatChunk struct {
	content   string
	reasoning string
	finish    string
	calls     []callDelta
	usage     wireUsage
	hasUsage  bool
	hasError  bool
	errStatus int
	errCode   string
	errMsg    string
}

type callDelta struct {
	index    int
	hasIndex bool
	id       string
	name     string
	args     string
}

// parse reads one chunk into d.ch.
func (d *chatDecoder) parse(data []byte) error {
	ch := &d.ch
	ch.content, ch.reasoning, ch.finish = "", "", ""
	ch.calls = ch.calls[:0]
	ch.hasUsage, ch.hasError = false, false
	s := &d.sc
	s.reset(data)
	n := 0
	if p := d.prefix; len(p) > 0 && !d.noPrefix && len(data) > len(p) && data[len(p)] == ',' &&
		string(data[:len(p)]) == string(p) && d.id == d.prefixID && d.model == d.prefixModel {
		// The members before "choices" are byte for byte those of an
		// earlier chunk (id, object, created, model, fingerprint…), and
		// reading them again would leave the state as it is: continue
		// after them.
		s.SetOffset(len(p))
		n = d.prefixN
	} else if !s.Object() {
		if err := s.End(); err != nil {
			return err
		}
		return errors.New("chunk is not a JSON object")
	}
	prefixEnd, prefixN := -1, 0
	var prefixID, prefixModel string
	plain := true // no member before "choices" but id, model and ignored ones
	for ; ; n++ {
		end := s.Offset()
		key, ok := s.Member(n)
		if !ok {
			break
		}
		switch string(key) {
		case "id":
			s.setStr(&d.id)
		case "model":
			s.setStr(&d.model)
		case "choices":
			if n > 0 && prefixEnd < 0 && plain {
				prefixEnd, prefixN = end, n
				prefixID, prefixModel = d.id, d.model // the state the prefix leads to
			}
			s.array(func(int) { d.choice() })
		case "usage":
			plain = plain && prefixEnd >= 0
			ch.usage = wireUsage{}
			ch.hasUsage = s.object(func(key []byte) { readUsage(s, key, &ch.usage) })
		case "error":
			plain = plain && prefixEnd >= 0
			d.readError()
		default:
			s.Skip()
		}
	}
	if err := s.End(); err != nil {
		return err
	}
	if prefixEnd > 0 && !ch.hasError {
		d.prefix = append(d.prefix[:0], data[:prefixEnd]...)
		d.prefixN, d.prefixID, d.prefixModel = prefixN, prefixID, prefixModel
	}
	return nil
}

// readUsage reads one member of a usage object of either API.
func readUsage(s *scanner, key []byte, u *wireUsage) {
	switch string(key) {
	case "prompt_tokens", "input_tokens":
		u.prompt = s.num()
	case "completion_tokens", "output_tokens":
		u.completion = s.num()
	case "prompt_cache_hit_tokens":
		u.cacheHit = s.num()
	case "prompt_tokens_details", "input_tokens_details":
		s.object(func(key []byte) {
			if string(key) == "cached_tokens" {
				u.cached, u.hasCached = s.num(), true
			} else {
				s.skip()
			}
		})
	case "completion_tokens_details", "output_tokens_details":
		s.object(func(key []byte) {
			if string(key) == "reasoning_tokens" {
				u.reasoning = s.num()
			} else {
				s.skip()
			}
		})
	default:
		s.skip()
	}
}

// choice reads one element of choices; only choice 0 is kept.
func (d *chatDecoder) choice() {
	s, ch := &d.sc, &d.ch
	index := 0
	var content, reasoning, finish string
	mark := len(ch.calls)
	if !s.Object() {
		return
	}
	for n := 0; ; n++ {
		key, ok := s.Member(n)
		if !ok {
			break
		}
		switch string(key) {
		case "index":
			index = s.num()
		case "finish_reason":
			finish = internFinish(s.StrOrNull())
		case "delta", "message":
			d.delta(&content, &reasoning)
		default:
			s.Skip()
		}
	}
	if index != 0 {
		ch.calls = ch.calls[:mark]
		return
	}
	ch.content = joinStr(ch.content, content)
	ch.reasoning = joinStr(ch.reasoning, reasoning)
	if finish != "" {
		ch.finish = finish
	}
}

// delta reads a choice's delta (or, in a whole reply, its message).
func (d *chatDecoder) delta(content, reasoning *string) {
	s := &d.sc
	if !s.Object() {
		return
	}
	for n := 0; ; n++ {
		key, ok := s.Member(n)
		if !ok {
			return
		}
		switch k := string(key); k {
		case "content", "refusal":
			*content = appendStr(*content, s.StrOrNull())
		case "reasoning_content", "reasoning":
			if c := s.Peek(); c != '"' && c != 'n' {
				s.Skip() // an object on some servers; not text
				continue
			}
			if v := s.StrOrNull(); d.field != "-" && (d.field == "" || d.field == k) {
				*reasoning = appendStr(*reasoning, v)
			}
		case "tool_calls":
			s.array(func(int) { d.readCallDelta() })
		default:
			if d.field != "" && k == d.field && s.Peek() == '"' { // a server's own field name
				*reasoning = appendStr(*reasoning, s.StrOrNull())
				continue
			}
			s.Skip()
		}
	}
}

func (d *chatDecoder) readCallDelta() {
	s, ch := &d.sc, &d.ch
	var c callDelta
	s.object(func(key []byte) {
		switch string(key) {
		case "index":
			if !s.Null() {
				c.index, c.hasIndex = s.num(), true
			}
		case "id":
			c.id = s.str()
		case "function":
			s.object(func(key []byte) {
				switch string(key) {
				case "name":
					c.name = s.str()
				case "arguments":
					if p := s.Peek(); p == '{' || p == '[' {
						c.args = string(s.Raw()) // already-parsed arguments
					} else {
						c.args = s.str()
					}
				default:
					s.Skip()
				}
			})
		default:
			s.Skip()
		}
	})
	ch.calls = append(ch.calls, c)
}

// readError reads a top-level error object (OpenRouter, vLLM) or string.
func (d *chatDecoder) readError() {
	s, ch := &d.sc, &d.ch
	if s.Peek() == '"' {
		ch.errMsg, ch.errCode, ch.errStatus = s.str(), "", 0
		ch.hasError = true
		return
	}
	ch.errMsg, ch.errCode, ch.errStatus = "", "", 0
	ch.hasError = s.object(func(key []byte) {
		switch string(key) {
		case "message":
			ch.errMsg = s.str()
		case "code":
			switch s.Peek() {
			case '"':
				ch.errCode = s.str()
			case 'n':
				s.Null()
			default:
				ch.errStatus = s.num()
			}
		case "type":
			if t := s.str(); ch.errCode == "" {
				ch.errCode = t
			}
		default:
			s.Skip()
		}
	})
}

// appendStr returns s followed by b, allocating only for what is new.
func appendStr(s string, b []byte) string {
	switch {
	case len(b) == 0:
		return s
	case s == "":
		return string(b)
	}
	return s + string(b)
}

// joinStr returns a followed by b without a runtime call when either is
// empty, the usual case.
func joinStr(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + b
}

// internFinish returns finish_reason values as constants, so that the
// common ones do not allocate.
func internFinish(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "tool_calls":
		return "tool_calls"
	case "content_filter":
		return "content_filter"
	case "function_call":
		return "function_call"
	}
	return string(b)
}
