package openai

import (
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

// chatDecoder turns Chat Completions chunks into emitter calls.
type chatDecoder struct {
	e        *llm.Emitter
	provider string
	secrets  []string
	field    string // Compat.ReasoningField

	ch      chatChunk
	started bool
	id      string
	model   string
	// reportedID is the response id the emitter knows.
	reportedID string
	text       int // open text block, or -1
	think      int // open thinking block, or -1
	calls      []openCall
	finish     string // last finish_reason
}

// openCall maps a streamed tool call (keyed by its index) to its block.
type openCall struct {
	key   int
	block int
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
	out.Reasoning = min(max(u.reasoning, 0), out.Output)
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
