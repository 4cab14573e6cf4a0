package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

type blockKind uint8

const (
	kindText blockKind = iota
	kindThinking
	kindToolCall
	kindRedacted
	kindOther
)

func (k blockKind) String() string {
	switch k {
	case kindText:
		return "text"
	case kindThinking:
		return "thinking"
	case kindToolCall:
		return "tool_use"
	case kindRedacted:
		return "redacted_thinking"
	}
	return "pass-through"
}

// blockState tracks one content block of the stream.
type blockState struct {
	wire int // the stream's index
	kind blockKind
	// idx is the emitter's content index for text, thinking and tool
	// calls, and the block's position among all blocks otherwise.
	idx     int
	open    bool
	sawArgs bool   // tool_use: a non-empty input_json_delta arrived
	input   []byte // tool_use: the input sent with content_block_start
	// Pass-through blocks: the start block and what deltas added to it.
	raw       []byte
	args      []byte
	text      []byte
	citations []json.RawMessage
}

// decoder turns the events of one Messages API stream into emitter calls.
type decoder struct {
	e        *llm.Emitter
	f        frame
	provider string
	secrets  []string

	blocks   []blockState
	seq      int // blocks started, of every kind
	extra    messageExtra
	stop     string
	finished bool // message_stop was handled
}

func newDecoder(e *llm.Emitter, provider string, secrets ...string) *decoder {
	return &decoder{e: e, provider: provider, secrets: secrets, blocks: make([]blockState, 0, 4)}
}

// run reads events until the stream ends, the consumer stops or an error
// ends it; it always leaves the emitter ended. readErr classifies a
// failed read first (a cancelled context, a stall); when it returns nil
// the decoder classifies the failure itself.
func (d *decoder) run(r *sse.Reader, readErr func(error) error) {
	for {
		ev, err := r.Next()
		if err != nil {
			if le := readErr(err); le != nil {
				d.fail(le)
				return
			}
			switch {
			case errors.Is(err, sse.ErrLineTooLong):
				d.fail(&llm.Error{Code: llm.CodeFormat, Provider: d.provider, Message: "the stream sent a line longer than the reader's limit", Err: err})
			case err == io.EOF || err == io.ErrUnexpectedEOF:
				d.fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider, Message: "the stream ended before message_stop", Err: io.ErrUnexpectedEOF})
			default:
				d.fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider, Message: wire.Redact(err.Error(), d.secrets...), Err: err})
			}
			return
		}
		if !d.handle(ev.Type, ev.Data) {
			return
		}
	}
}

// handle applies one event and reports whether the stream goes on.
func (d *decoder) handle(name string, data []byte) bool {
	if err := parse(data, &d.f); err != nil {
		if name == "error" {
			// An error event whose payload is not JSON still says why.
			d.f = frame{}
			d.streamError(data)
		} else {
			d.fail(d.malformed(name, data, err))
		}
		return false
	}
	typ := name
	if d.f.Type != nil {
		typ = *d.f.Type
	}
	if typ != "message_start" && !d.e.Ended() && !d.e.Start(llm.Message{}) {
		return false
	}
	var err error
	switch typ {
	case "content_block_delta":
		err = d.delta()
	case "ping":
	case "message_start":
		err = d.messageStart()
	case "content_block_start":
		err = d.blockStart()
	case "content_block_stop":
		err = d.blockStop()
	case "message_delta":
		err = d.messageDelta()
	case "message_stop":
		d.finish()
		return false
	case "error":
		d.streamError(data)
		return false
	default:
		if name == "error" {
			d.streamError(data)
			return false
		}
		d.extra.Events = append(d.extra.Events, json.RawMessage(append([]byte(nil), data...)))
	}
	if err != nil {
		d.fail(err)
		return false
	}
	return !d.e.Ended()
}

func (d *decoder) messageStart() error {
	var m messageFields
	if err := jsonv2.Unmarshal(d.f.Message, &m, decodeOpts); err != nil {
		return d.malformed("message_start", d.f.Message, err)
	}
	id, model := str(m.ID), str(m.Model)
	if !d.e.Start(llm.Message{ResponseID: id, Model: model}) {
		return nil
	}
	d.e.SetResponseID(id)
	d.e.SetModel(model)
	return d.usage("message_start", m.Usage)
}

// usage applies a usage object. The API reports cumulative counts, so a
// count in message_delta replaces the one message_start gave; counts an
// event leaves out are kept.
func (d *decoder) usage(event string, raw []byte) error {
	if raw == nil {
		return nil
	}
	var u wireUsage
	if err := jsonv2.Unmarshal(raw, &u, decodeOpts); err != nil {
		return d.malformed(event, raw, err)
	}
	eu := d.e.Usage()
	for _, f := range [...]struct {
		src *wireIndex
		dst *int
	}{{u.Input, &eu.Input}, {u.Output, &eu.Output}, {u.CacheRead, &eu.CacheRead}, {u.CacheWrite, &eu.CacheWrite}} {
		if f.src != nil {
			*f.dst = int(*f.src)
		}
	}
	return nil
}

func (d *decoder) blockStart() error {
	raw := d.f.ContentBlock
	if raw == nil || d.f.Index == nil {
		return d.protocol("content_block_start without an index or a content_block")
	}
	var b blockFields
	if err := jsonv2.Unmarshal(raw, &b, decodeOpts); err != nil {
		return d.malformed("content_block_start", raw, err)
	}
	st := blockState{wire: int(*d.f.Index), open: true}
	switch str(b.Type) {
	case "text":
		st.kind = kindText
		st.idx, _ = d.e.TextStart()
		d.e.Delta(st.idx, str(b.Text))
		if b.Citations != nil {
			st.citations = elements(b.Citations)
		}
	case "thinking":
		st.kind = kindThinking
		st.idx, _ = d.e.ThinkingStart()
		d.e.Delta(st.idx, str(b.Thinking))
		if blk := d.e.Block(st.idx); blk != nil {
			blk.Signature = str(b.Signature)
		}
	case "redacted_thinking":
		st.kind, st.open = kindRedacted, false
		st.idx, _ = d.e.Whole(llm.Content{Type: llm.ContentThinking, Redacted: true, Signature: str(b.Data)})
	case "tool_use":
		st.kind = kindToolCall
		st.idx, _ = d.e.ToolCallStart(str(b.ID), str(b.Name))
		if in := trimSpace(b.Input); len(in) > 0 && string(in) != "{}" && string(in) != "null" {
			st.input = append([]byte(nil), in...)
		}
	default:
		st.kind, st.idx = kindOther, d.seq
		st.raw = append([]byte(nil), trimSpace(raw)...)
	}
	if st.kind == kindText || st.kind == kindThinking || st.kind == kindToolCall {
		if x := unmodelled(&b, raw, st.kind); x != nil {
			if blk := d.e.Block(st.idx); blk != nil {
				blk.Extra = x
			}
		}
	}
	d.seq++
	d.blocks = append(d.blocks, st)
	return nil
}

func (d *decoder) find(wire int) *blockState {
	for i := len(d.blocks) - 1; i >= 0; i-- {
		if d.blocks[i].wire == wire {
			return &d.blocks[i]
		}
	}
	return nil
}

func (d *decoder) delta() error {
	f := &d.f
	var st *blockState
	if f.Index != nil {
		st = d.find(int(*f.Index))
	}
	if st == nil || !st.open {
		return d.protocol(fmt.Sprintf("content_block_delta for block %d, which is not open", d.index()))
	}
	if f.Delta == nil {
		return nil
	}
	dl := f.Delta
	mismatch := func() error {
		return d.protocol(fmt.Sprintf("%s for the %s block at index %d", dl.Type, st.kind, d.index()))
	}
	switch dl.Type {
	case "text_delta":
		switch st.kind {
		case kindText:
			d.e.Delta(st.idx, dl.Text)
		case kindOther:
			st.text = append(st.text, dl.Text...)
		default:
			return mismatch()
		}
	case "thinking_delta":
		if st.kind != kindThinking {
			return mismatch()
		}
		d.e.Delta(st.idx, dl.Thinking)
	case "signature_delta":
		if st.kind != kindThinking {
			return mismatch()
		}
		if blk := d.e.Block(st.idx); blk != nil {
			blk.Signature += dl.Signature
		}
	case "input_json_delta":
		switch st.kind {
		case kindToolCall:
			if p := dl.PartialJSON; p != "" {
				st.sawArgs = true
				d.e.Delta(st.idx, p)
			}
		case kindOther:
			st.args = append(st.args, dl.PartialJSON...)
		default:
			return mismatch()
		}
	case "citations_delta":
		if dl.Citation != nil && (st.kind == kindText || st.kind == kindOther) {
			st.citations = append(st.citations, append(json.RawMessage(nil), dl.Citation...))
		}
	}
	// Unknown delta types carry nothing rein can place; they are skipped.
	return nil
}

// index is the event's block index, zero when it has none.
func (d *decoder) index() int {
	if d.f.Index == nil {
		return 0
	}
	return int(*d.f.Index)
}

func (d *decoder) blockStop() error {
	var st *blockState
	if d.f.Index != nil {
		st = d.find(int(*d.f.Index))
	}
	if st == nil {
		return d.protocol(fmt.Sprintf("content_block_stop for block %d, which was never started", d.index()))
	}
	if !st.open {
		return nil
	}
	d.close(st)
	return nil
}

func (d *decoder) close(st *blockState) {
	st.open = false
	switch st.kind {
	case kindText:
		if len(st.citations) > 0 {
			if blk := d.e.Block(st.idx); blk != nil {
				blk.Extra = setFields(blk.Extra, "citations", marshalList(st.citations))
			}
		}
		d.e.End(st.idx)
	case kindThinking:
		d.e.End(st.idx)
	case kindToolCall:
		if !st.sawArgs && st.input != nil {
			d.e.Delta(st.idx, string(st.input))
		}
		d.e.End(st.idx)
	case kindOther:
		raw := st.raw
		if len(st.args) > 0 {
			raw = setFields(raw, "input", llm.FinishArguments(string(st.args)))
		}
		if len(st.text) > 0 {
			var start struct {
				Text string `json:"text"`
			}
			_ = jsonv2.Unmarshal(st.raw, &start, decodeOpts)
			text, _ := jsontext.AppendQuote(nil, start.Text+string(st.text))
			raw = setFields(raw, "text", text)
		}
		if len(st.citations) > 0 {
			raw = setFields(raw, "citations", marshalList(st.citations))
		}
		d.extra.Blocks = append(d.extra.Blocks, passBlock{At: st.idx, Block: raw})
	}
}

func (d *decoder) messageDelta() error {
	if dl := d.f.Delta; dl != nil {
		if dl.StopReason != nil {
			d.stop = *dl.StopReason
		}
		if dl.StopSequence != nil {
			s := *dl.StopSequence
			d.extra.StopSequence = &s
		}
	}
	return d.usage("message_delta", d.f.Usage)
}

func (d *decoder) fail(err error) {
	if d.e.Ended() {
		return
	}
	d.closeAll()
	d.e.Fail(err)
}
