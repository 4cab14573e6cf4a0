package openai

import (
	"errors"

	"github.com/reinhq/rein/internal/sse"
	"github.com/reinhq/rein/internal/wire"
	"github.com/reinhq/rein/llm"
)

// chatDecoder turns Chat Completions chunks into emitter calls.
type chatDecoder struct {
	e        *llm.Emitter
	provider string
	secrets  []string
	field    string // Compat.ReasoningField

	sc      scanner
	ch      chatChunk
	started bool
	id      string
	model   string
	// reportedID is the response id the emitter knows.
	reportedID string
	// prefix holds the bytes of the last chunk before its "choices"
	// member, and prefixN the number of members in them; a chunk that
	// starts with the same bytes skips reading them again.
	prefix      []byte
	prefixN     int
	prefixID    string // d.id and d.model right after the prefix was read
	prefixModel string
	noPrefix    bool // read every chunk in full (tests compare both ways)
	text        int  // open text block, or -1
	think       int  // open thinking block, or -1
	calls       []openCall
	finish      string // last finish_reason
}

// openCall maps a streamed tool call (keyed by its index) to its block.
type openCall struct {
	key   int
	block int
}

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

// wireUsage is a usage report in either API's field names.
type wireUsage struct {
	prompt, completion, cached, reasoning int
	cacheHit                              int // DeepSeek's prompt_cache_hit_tokens
	hasCached                             bool
}

// apply sets the emitter's usage: cached prompt tokens are CacheRead and
// the rest Input; Output includes reasoning tokens, as both APIs count.
func (u wireUsage) apply(e *llm.Emitter) {
	out := e.Usage()
	cached := u.cached
	if !u.hasCached {
		cached = u.cacheHit
	}
	cached = min(max(cached, 0), max(u.prompt, 0))
	out.Input = max(u.prompt, 0) - cached
	out.CacheRead = cached
	out.Output = max(u.completion, 0)
}

func newChatDecoder(e *llm.Emitter, provider string, cp Compat, secrets ...string) *chatDecoder {
	return &chatDecoder{e: e, provider: provider, secrets: secrets, field: cp.ReasoningField, text: -1, think: -1}
}

func (d *chatDecoder) event(ev sse.Event) {
	data := ev.Data
	if string(data) == "[DONE]" {
		d.end(true)
		return
	}
	if len(data) == 0 {
		return
	}
	if err := d.parse(data); err != nil {
		d.e.Fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider,
			Message: wire.Redact((&sse.Error{Event: "chunk", Data: data, Err: err}).Error(), d.secrets...),
			Err:     &sse.Error{Event: "chunk", Data: append([]byte(nil), data...), Err: err}})
		return
	}
	ch := &d.ch
	if !d.started {
		d.started = true
		d.reportedID = d.id
		if !d.e.Start(llm.Message{ResponseID: d.id, Model: d.model}) {
			return
		}
	} else if d.id != d.reportedID {
		d.reportedID = d.id // a server that sends its id late
		d.e.SetResponseID(d.id)
		d.e.SetModel(d.model)
	}
	if ch.hasUsage {
		ch.usage.apply(d.e)
	}
	if ch.reasoning != "" && !d.reasoning(ch.reasoning) {
		return
	}
	if ch.content != "" && !d.content(ch.content) {
		return
	}
	for i := range ch.calls {
		if !d.toolCall(&ch.calls[i]) {
			return
		}
	}
	if ch.finish != "" {
		d.finish = ch.finish
	}
	if ch.hasError {
		err := streamError(d.provider, ch.errStatus, ch.errCode, ch.errMsg, d.secrets...)
		if err.Code == llm.CodeContextOverflow && d.finish == "length" {
			// OpenRouter restates an exhausted output budget as "Token
			// limit reached"; the prompt itself fit.
			err.Code = llm.CodeUnknown
			err.Message += " (the reply had already stopped at its output token limit)"
		}
		d.e.Fail(err)
	}
}

func (d *chatDecoder) content(s string) bool {
	if d.think >= 0 {
		if !d.e.End(d.think) {
			return false
		}
		d.think = -1
	}
	if d.text < 0 {
		i, ok := d.e.TextStart()
		if !ok {
			return false
		}
		d.text = i
	}
	return d.e.Delta(d.text, s)
}

func (d *chatDecoder) reasoning(s string) bool {
	if d.text >= 0 {
		if !d.e.End(d.text) {
			return false
		}
		d.text = -1
	}
	if d.think < 0 {
		i, ok := d.e.ThinkingStart()
		if !ok {
			return false
		}
		d.think = i
	}
	return d.e.Delta(d.think, s)
}

func (d *chatDecoder) toolCall(c *callDelta) bool {
	var oc *openCall
	switch {
	case c.hasIndex:
		for i := range d.calls {
			if d.calls[i].key == c.index {
				oc = &d.calls[i]
				break
			}
		}
	case c.id != "":
		// No index (some servers): a new id starts a new call.
		for i := range d.calls {
			if b := d.e.Block(d.calls[i].block); b != nil && b.ID == c.id {
				oc = &d.calls[i]
				break
			}
		}
	case len(d.calls) > 0:
		oc = &d.calls[len(d.calls)-1]
	}
	if oc == nil {
		for _, b := range [...]int{d.text, d.think} {
			if b >= 0 && !d.e.End(b) {
				return false
			}
		}
		d.text, d.think = -1, -1
		i, ok := d.e.ToolCallStart(c.id, c.name)
		if !ok {
			return false
		}
		key := c.index
		if !c.hasIndex {
			key = -1 - len(d.calls)
		}
		d.calls = append(d.calls, openCall{key: key, block: i})
		oc = &d.calls[len(d.calls)-1]
	} else if b := d.e.Block(oc.block); b != nil {
		if b.ID == "" {
			b.ID = c.id
		}
		if b.Name == "" {
			b.Name = c.name
		}
	}
	return d.e.Delta(oc.block, c.args)
}

// end finishes the reply; sawDone reports the [DONE] sentinel.
func (d *chatDecoder) end(sawDone bool) {
	if !sawDone && d.finish == "" {
		d.e.Fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider,
			Message: "the stream ended before the reply was complete (no finish_reason and no [DONE])"})
		return
	}
	switch d.finish {
	case "length", "max_tokens": // the latter from some compatible servers
		d.e.Finish(llm.StopLength)
	case "content_filter":
		d.e.Fail(&llm.Error{Code: llm.CodeUnknown, Provider: d.provider,
			Message: "the reply was stopped by the provider's content filter (finish_reason content_filter)"})
	case "error":
		d.e.Fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider, Message: "the server ended the reply with finish_reason error"})
	case "insufficient_system_resource":
		d.e.Fail(&llm.Error{Code: llm.CodeOverloaded, Provider: d.provider,
			Message: "the server ran out of capacity while replying (finish_reason insufficient_system_resource)"})
	default: // stop, tool_calls, function_call, or a server's own word
		d.e.Finish("")
	}
}

func (d *chatDecoder) eof() { d.end(false) }

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
		s.i, n = len(p), d.prefixN
	} else if !s.enter() {
		if err := s.end(); err != nil {
			return err
		}
		return errors.New("chunk is not a JSON object")
	}
	prefixEnd, prefixN := -1, 0
	var prefixID, prefixModel string
	plain := true // no member before "choices" but id, model and ignored ones
	for ; ; n++ {
		end := s.i
		key, ok := s.member(n)
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
			s.skip()
		}
	}
	if err := s.end(); err != nil {
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
	if !s.enter() {
		return
	}
	for n := 0; ; n++ {
		key, ok := s.member(n)
		if !ok {
			break
		}
		switch string(key) {
		case "index":
			index = s.num()
		case "finish_reason":
			finish = internFinish(s.strBytes())
		case "delta", "message":
			d.delta(&content, &reasoning)
		default:
			s.skip()
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
	if !s.enter() {
		return
	}
	for n := 0; ; n++ {
		key, ok := s.member(n)
		if !ok {
			return
		}
		switch k := string(key); k {
		case "content", "refusal":
			*content = appendStr(*content, s.strBytes())
		case "reasoning_content", "reasoning":
			if c := s.peek(); c != '"' && c != 'n' {
				s.skip() // an object on some servers; not text
				continue
			}
			if v := s.strBytes(); d.field != "-" && (d.field == "" || d.field == k) {
				*reasoning = appendStr(*reasoning, v)
			}
		case "tool_calls":
			s.array(func(int) { d.readCallDelta() })
		default:
			if d.field != "" && k == d.field && s.peek() == '"' { // a server's own field name
				*reasoning = appendStr(*reasoning, s.strBytes())
				continue
			}
			s.skip()
		}
	}
}

func (d *chatDecoder) readCallDelta() {
	s, ch := &d.sc, &d.ch
	var c callDelta
	s.object(func(key []byte) {
		switch string(key) {
		case "index":
			if !s.null() {
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
					if p := s.peek(); p == '{' || p == '[' {
						c.args = string(s.raw()) // already-parsed arguments
					} else {
						c.args = s.str()
					}
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
	ch.calls = append(ch.calls, c)
}

// readError reads a top-level error object (OpenRouter, vLLM) or string.
func (d *chatDecoder) readError() {
	s, ch := &d.sc, &d.ch
	if s.peek() == '"' {
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
			switch s.peek() {
			case '"':
				ch.errCode = s.str()
			case 'n':
				s.null()
			default:
				ch.errStatus = s.num()
			}
		case "type":
			if t := s.str(); ch.errCode == "" {
				ch.errCode = t
			}
		default:
			s.skip()
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
