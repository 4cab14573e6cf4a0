package openai

import (
	"bytes"
	jsonv1 "encoding/json"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

// respDecoder turns Responses API events into emitter calls.
type respDecoder struct {
	e        *llm.Emitter
	provider string
	secrets  []string

	ev      respEvent
	name    string    // the last event name seen,
	named   eventKind // and its kind
	started bool
	items   []respItemState
	unknown []jsonv1.RawMessage // output items rein does not model, verbatim
}

type itemKind uint8

const (
	kindOther itemKind = iota
	kindMessage
	kindCall
	kindReasoning
)

// respItemState tracks one output item of the reply.
type respItemState struct {
	index    int // output_index, or -1
	id       string
	kind     itemKind
	block    int // content block, or -1 until opened
	streamed bool
	part     int // last summary part seen
	done     bool
}

func newRespDecoder(e *llm.Emitter, provider string, secrets ...string) *respDecoder {
	return &respDecoder{e: e, provider: provider, secrets: secrets}
}

// extra returns {"output_items":[{"output_index":n,"item":{…}}]} for the
// output items rein does not model (web_search_call and the like).
func (d *respDecoder) extra() jsonv1.RawMessage {
	b := []byte(`{"output_items":[`)
	for i, it := range d.unknown {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, "]}"...)
}

// unknownItem returns {"output_index":n,"item":raw} as jsonv1.Marshal
// encodes it: raw compacted, with <, > and & and U+2028 and U+2029
// escaped. raw that is not valid JSON is kept, as a string.
func unknownItem(n int, raw []byte) jsonv1.RawMessage {
	var item bytes.Buffer
	if jsonv1.Compact(&item, raw) != nil {
		q, _ := jsonv1.Marshal(string(raw)) // compact and escaped already
		item.Write(q)
	}
	var b bytes.Buffer
	b.WriteString(`{"output_index":` + strconv.Itoa(n) + `,"item":`)
	jsonv1.HTMLEscape(&b, item.Bytes())
	b.WriteByte('}')
	return b.Bytes()
}

func (d *respDecoder) fail(err error) { d.e.Fail(err) }

func (d *respDecoder) event(sev sse.Event) {
	if len(sev.Data) == 0 {
		return
	}
	named := evOther
	if sev.Type != "" {
		if sev.Type != d.name {
			d.name, d.named = sev.Type, eventKindOf(sev.Type)
		}
		named = d.named
		if d.started && named == evOther {
			// The event name (always the payload's type) says that rein
			// has no use for it: in_progress, content_part.*,
			// web_search_call.* and the like are not decoded at all.
			return
		}
	}
	if err := d.parse(sev.Data, named); err != nil {
		name := sev.Type
		if name == "" {
			name = "message"
		}
		d.fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider,
			Message: wire.Redact((&sse.Error{Event: name, Data: sev.Data, Err: err}).Error(), d.secrets...),
			Err:     &sse.Error{Event: name, Data: append([]byte(nil), sev.Data...), Err: err}})
		return
	}
	ev := &d.ev
	if !ev.hasType {
		ev.kind = named
	}
	if ev.hasItem && ev.itemID == "" {
		ev.itemID = ev.item.id
	}
	if !d.started {
		d.started = true
		meta := llm.Message{}
		if ev.hasResp {
			meta.ResponseID, meta.Model = ev.resp.id, ev.resp.model
		}
		if !d.e.Start(meta) {
			return
		}
	} else if ev.hasResp && ev.resp.id != "" {
		d.e.SetResponseID(ev.resp.id)
		d.e.SetModel(ev.resp.model)
	}
	switch ev.kind {
	case evItemAdded:
		if ev.hasItem {
			d.itemAdded()
		}
	case evItemDone:
		if ev.hasItem {
			d.itemDone()
		}
	case evTextDelta:
		if it := d.target(kindMessage); it != nil && d.open(it) {
			it.streamed = true
			d.e.Delta(it.block, ev.delta)
		}
	case evTextDone:
		if it := d.target(kindMessage); it != nil && !it.streamed && d.open(it) {
			it.streamed = true
			d.e.Delta(it.block, ev.text)
		}
	case evReasoningDelta:
		it := d.target(kindReasoning)
		if it == nil || !d.open(it) {
			return
		}
		if it.streamed && ev.summaryIndex != it.part {
			if !d.e.Delta(it.block, "\n\n") {
				return
			}
		}
		it.part, it.streamed = ev.summaryIndex, true
		d.e.Delta(it.block, ev.delta)
	case evArgsDelta:
		if it := d.target(kindCall); it != nil && d.open(it) {
			it.streamed = true
			d.e.Delta(it.block, ev.delta)
		}
	case evArgsDone:
		if it := d.target(kindCall); it != nil && !it.streamed && d.open(it) {
			it.streamed = true
			d.e.Delta(it.block, ev.arguments)
		}
	case evEnd:
		d.complete()
	case evError:
		d.fail(streamError(d.provider, 0, ev.errCode, ev.errMsg, d.secrets...))
	}
}

// find returns the state of the item an event refers to, by item id or
// output index, adding one of kind when the item was never announced.
func (d *respDecoder) find(kind itemKind) *respItemState {
	ev := &d.ev
	if len(ev.itemID) > 0 {
		for i := range d.items {
			if d.items[i].id == ev.itemID {
				return &d.items[i]
			}
		}
	}
	if ev.hasIndex {
		for i := range d.items {
			if it := &d.items[i]; it.index == ev.outputIndex && (it.id == "" || len(ev.itemID) == 0) {
				return it
			}
		}
	}
	idx := -1
	if ev.hasIndex {
		idx = ev.outputIndex
	}
	d.items = append(d.items, respItemState{index: idx, id: ev.itemID, kind: kind, block: -1})
	return &d.items[len(d.items)-1]
}

// target returns the item a delta event refers to, or nil when that item
// is of another kind or already finished.
func (d *respDecoder) target(kind itemKind) *respItemState {
	it := d.find(kind)
	if it.kind != kind || it.done {
		return nil
	}
	return it
}

// open makes sure the item has an open content block.
func (d *respDecoder) open(it *respItemState) bool {
	if it.block >= 0 {
		return !d.e.Ended()
	}
	var ok bool
	switch it.kind {
	case kindMessage:
		it.block, ok = d.e.TextStart()
	case kindReasoning:
		it.block, ok = d.e.ThinkingStart()
	case kindCall:
		it.block, ok = d.e.ToolCallStart("", "")
	default:
		return false
	}
	return ok
}

func kindOf(typ string) itemKind {
	switch typ {
	case "message":
		return kindMessage
	case "function_call":
		return kindCall
	case "reasoning":
		return kindReasoning
	}
	return kindOther
}

func (d *respDecoder) itemAdded() {
	ev := &d.ev
	it := d.find(ev.item.kind)
	if it.id == "" {
		it.id = string(ev.item.id)
	}
	it.kind = ev.item.kind
	switch it.kind {
	case kindCall:
		if it.block < 0 {
			i, ok := d.e.ToolCallStart(string(ev.item.callID), string(ev.item.name))
			if !ok {
				return
			}
			it.block = i
		}
		d.setItemExtra(it, nil)
	case kindReasoning:
		d.open(it)
	}
}

func (d *respDecoder) setItemExtra(it *respItemState, annotations []byte) {
	b := d.e.Block(it.block)
	if b == nil || it.id == "" && len(annotations) == 0 {
		return
	}
	if len(annotations) > 0 && !jsonv1.Valid(annotations) {
		annotations = nil // never store JSON that does not parse
	}
	b.Extra = appendItemExtra(make([]byte, 0, len(it.id)+len(annotations)+24), it.id, annotations)
}

// appendItemExtra encodes an itemExtra: {"id":…,"annotations":[…]}, with
// either part left out when empty. annotations must be a valid JSON array.
func appendItemExtra(dst []byte, id string, annotations []byte) []byte {
	dst = append(dst, '{')
	if id != "" {
		dst = append(dst, `"id":`...)
		dst = appendJSONString(dst, id)
	}
	if len(annotations) > 0 {
		if id != "" {
			dst = append(dst, ',')
		}
		dst = append(dst, `"annotations":`...)
		dst = append(dst, annotations...)
	}
	return append(dst, '}')
}

// appendJSONString appends s as a JSON string; ids are plain ASCII, for
// which no escaping is needed.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := jsonv1.Marshal(s)
			return append(dst, q...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

func (d *respDecoder) itemDone() {
	ev := &d.ev
	item := &ev.item
	kind := item.kind
	it := d.find(kind)
	if it.done {
		return
	}
	it.done = true
	if it.id == "" {
		it.id = string(item.id)
	}
	it.kind = kind
	switch kind {
	case kindOther:
		d.unknown = append(d.unknown, unknownItem(ev.outputIndex, item.raw))
		d.e.SetExtra(d.extra())
		return
	case kindMessage:
		var annotations []byte
		text := partsText(item.content, "", !it.streamed, &annotations)
		if !it.streamed && text == "" {
			return // an empty message item holds nothing to keep
		}
		if !d.open(it) {
			return
		}
		if !it.streamed && !d.e.Delta(it.block, text) {
			return
		}
		d.setItemExtra(it, annotations)
	case kindCall:
		if !d.open(it) {
			return
		}
		if b := d.e.Block(it.block); b != nil {
			if b.ID == "" {
				b.ID = string(item.callID)
			}
			if b.Name == "" {
				b.Name = string(item.name)
			}
		}
		if !it.streamed && !d.e.Delta(it.block, string(item.arguments)) {
			return
		}
		d.setItemExtra(it, nil)
	case kindReasoning:
		if !d.open(it) {
			return
		}
		if !it.streamed {
			text := partsText(item.summary, "\n\n", true, nil)
			if text == "" {
				text = partsText(item.content, "", true, nil) // raw reasoning
			}
			if text != "" && !d.e.Delta(it.block, text) {
				return
			}
		}
		d.setItemExtra(it, nil)
		if b := d.e.Block(it.block); b != nil {
			b.Signature = string(item.encrypted)
			b.Redacted = b.Text == "" && len(item.encrypted) > 0
		}
	}
	it.streamed = true
	d.e.End(it.block)
}

// complete ends the reply from a response.completed, .incomplete or
// .failed event.
func (d *respDecoder) complete() {
	r := &d.ev.resp
	if r.hasUsage {
		r.usage.apply(d.e)
	}
	if len(d.items) == 0 && len(r.output) > 0 {
		if !d.replayOutput(r.output) {
			return
		}
	}
	status := r.status
	if status == "" && (r.errMsg != "" || r.errCode != "") {
		status = "failed"
	}
	switch status {
	case "failed":
		if r.errMsg == "" && r.errCode == "" {
			r.errMsg = "the response failed without an error message"
		}
		d.fail(streamError(d.provider, 0, r.errCode, r.errMsg, d.secrets...))
	case "incomplete":
		switch r.incomplete {
		case "max_output_tokens":
			d.e.Finish(llm.StopLength)
		case "content_filter":
			d.fail(&llm.Error{Code: llm.CodeUnknown, Provider: d.provider,
				Message: "the reply was stopped by the provider's content filter (incomplete_details.reason content_filter)"})
		default:
			reason := r.incomplete
			if reason == "" {
				reason = "no reason given"
			}
			d.fail(&llm.Error{Code: llm.CodeUnknown, Provider: d.provider, Message: "the response is incomplete: " + reason})
		}
	case "cancelled":
		d.fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider, Message: "the response was cancelled by the server"})
	default:
		d.e.Finish("")
	}
}

// replayOutput treats the output of a final response as item events, for
// servers that send the finished response without streaming its items.
func (d *respDecoder) replayOutput(output []byte) bool {
	var items []jsontext.Value
	if json.Unmarshal(output, &items, decodeOpts) != nil {
		return true
	}
	for n, raw := range items {
		if readItem(raw, &d.ev.item) != nil {
			continue
		}
		d.ev.itemID, d.ev.outputIndex, d.ev.hasIndex = d.ev.item.id, n, true
		d.itemDone()
		if d.e.Ended() {
			return false
		}
	}
	return true
}

func (d *respDecoder) eof() {
	d.fail(&llm.Error{Code: llm.CodeServerError, Provider: d.provider,
		Message: "the stream ended before the response was complete (no response.completed event)"})
}
