package openai

import (
	"errors"
	"strconv"
)

// respEvent is the part of one event the decoder reads; it is reused.
type respEvent struct {
	kind         eventKind
	hasType      bool
	delta        string
	itemID       []byte // aliases respDecoder.idBuf or template.data
	outputIndex  int
	hasIndex     bool
	summaryIndex int
	text         []byte // output_text.done; aliases the data unless escaped
	arguments    []byte // function_call_arguments.done, likewise
	item         respItem
	hasItem      bool
	resp         respResponse
	hasResp      bool
	errCode      string
	errMsg       string
}

// respItem is an output item as sent in output_item events. The byte
// fields alias the event's data (strings with escapes are copies).
type respItem struct {
	kind             itemKind
	id, callID, name []byte
	arguments        []byte
	encrypted        []byte
	summary, content []byte // raw JSON arrays of parts
	raw              []byte
}

type respResponse struct {
	id, model, incomplete string
	status                []byte // aliases the data unless escaped
	errCode, errMsg       string
	usage                 wireUsage
	hasUsage              bool
	output                []byte
}

// parse reads one event into d.ev. named is the kind its name gives
// (evOther when it has none); delta events are read with the help of
// d.tmpl (see template).
func (d *respDecoder) parse(data []byte, named eventKind) error {
	d.clear()
	s, t := &d.sc, &d.tmpl
	s.reset(data)
	memo := !d.noMemo && isDelta(named)
	if memo && t.kind == named {
		if d.fill() {
			return nil
		}
		d.clear()
		s.reset(data)
	}
	if !s.Object() {
		if err := s.End(); err != nil {
			return err
		}
		return errors.New("event data is not a JSON object")
	}
	if memo {
		t.begin()
	}
	for n := 0; ; n++ {
		key, ok := s.member(n)
		if !ok {
			break
		}
		k, vs := respKeyOf(key), s.Offset()
		d.value(k)
		if memo {
			t.note(s, k, vs)
		}
	}
	if err := s.End(); err != nil {
		return err
	}
	if memo {
		t.commit(named, data, &d.ev)
	}
	return nil
}

// clear makes d.ev ready for the next event.
func (d *respDecoder) clear() {
	ev := &d.ev
	if ev.hasItem {
		ev.item = respItem{}
	}
	if ev.hasResp {
		ev.resp = respResponse{}
	}
	ev.kind, ev.hasType, ev.hasItem, ev.hasResp, ev.hasIndex = evOther, false, false, false, false
	ev.delta, ev.itemID, ev.outputIndex, ev.summaryIndex = "", nil, 0, 0
	ev.text, ev.arguments, ev.errCode, ev.errMsg = nil, nil, "", ""
}

// value reads the value of the top-level member k of an event into d.ev.
func (d *respDecoder) value(k respKey) {
	s, ev := &d.sc, &d.ev
	switch k {
	case keyType:
		ev.kind, ev.hasType = d.named, true
		if t := s.StrOrNull(); string(t) != d.name { // the type is the event's name
			ev.kind = eventKindOf(t)
		}
	case keyDelta:
		ev.delta = d.strs.of(s.StrOrNull())
	case keyItemID:
		d.idBuf = append(d.idBuf[:0], s.StrOrNull()...)
		ev.itemID = d.idBuf
	case keyOutputIndex:
		if !s.Null() {
			ev.outputIndex, ev.hasIndex = s.num(), true
		}
	case keySummaryIndex:
		ev.summaryIndex = s.num()
	case keyText:
		ev.text = s.stableBytes()
	case keyArguments:
		ev.arguments = s.stableBytes()
	case keyItem:
		ev.hasItem = d.readItem()
	case keyResponse:
		ev.hasResp = d.readResponse()
	case keyCode:
		ev.errCode = scalarString(s)
	case keyMessage:
		ev.errMsg = s.str()
	case keyError:
		d.readError()
	default:
		s.skip()
	}
}

// respKey names the top-level members of an event that the decoder reads.
type respKey uint8

const (
	keyOther respKey = iota // skipped
	keyType
	keyDelta
	keyItemID
	keyOutputIndex
	keySummaryIndex
	keyText // text, or refusal: output_text.done, refusal.done
	keyArguments
	keyItem
	keyResponse
	keyCode
	keyMessage
	keyError
	keySequence    // sequence_number: skipped, but new in every event
	keyObfuscation // obfuscation: skipped, but new in every event
)

func respKeyOf(key []byte) respKey {
	switch string(key) {
	case "type":
		return keyType
	case "delta":
		return keyDelta
	case "item_id":
		return keyItemID
	case "output_index":
		return keyOutputIndex
	case "summary_index":
		return keySummaryIndex
	case "text", "refusal":
		return keyText
	case "arguments":
		return keyArguments
	case "item":
		return keyItem
	case "response":
		return keyResponse
	case "code":
		return keyCode
	case "message":
		return keyMessage
	case "error":
		return keyError
	case "sequence_number":
		return keySequence
	case "obfuscation":
		return keyObfuscation
	}
	return keyOther
}

// readError reads the error member of an error event: a string or an
// object with code, type and message.
func (d *respDecoder) readError() {
	s, ev := &d.sc, &d.ev
	if s.Peek() == '"' {
		ev.errMsg = s.str()
		return
	}
	s.object(func(key []byte) {
		switch string(key) {
		case "code":
			ev.errCode = scalarString(s)
		case "type":
			if t := s.str(); ev.errCode == "" {
				ev.errCode = t
			}
		case "message":
			ev.errMsg = s.str()
		default:
			s.skip()
		}
	})
}

// scalarString reads a string or number as a string.
func scalarString(s *scanner) string {
	switch s.Peek() {
	case '"', 'n':
		return s.str()
	}
	return strconv.Itoa(s.num())
}

// readItem reads an output item into d.ev.item. Large fields are kept as
// bytes, aliasing the event, and decoded only when needed.
func (d *respDecoder) readItem() bool {
	s, it := &d.sc, &d.ev.item
	s.Peek()
	start := s.Offset()
	ok := s.object(func(key []byte) {
		switch string(key) {
		case "type":
			it.kind = kindOf(s.StrOrNull())
		case "id":
			it.id = s.stableBytes()
		case "call_id":
			it.callID = s.stableBytes()
		case "name":
			it.name = s.stableBytes()
		case "arguments":
			it.arguments = s.stableBytes()
		case "encrypted_content":
			it.encrypted = s.stableBytes()
		case "summary":
			it.summary = s.Raw()
		case "content":
			it.content = s.Raw()
		default:
			s.skip()
		}
	})
	if ok {
		it.raw = s.Input()[start:s.Offset()]
	}
	return ok
}

// partsText decodes an array of content or summary parts (raw JSON) and
// returns their texts (or refusals) joined by sep, when wantText is set;
// a non-empty annotations array is copied to *ann. It reuses d.sc, so it
// must not run while an event is being parsed.
func (d *respDecoder) partsText(raw []byte, sep string, wantText bool, ann *[]byte) string {
	if len(raw) == 0 {
		return ""
	}
	s := &d.sc
	s.reset(raw)
	var text string
	s.array(func(int) {
		var part string
		s.object(func(key []byte) {
			switch string(key) {
			case "text", "refusal":
				if wantText {
					part += s.str()
				} else {
					s.skip()
				}
			case "annotations":
				a := s.Raw()
				if ann != nil && s.Err() == nil && hasElements(a) {
					*ann = append([]byte(nil), a...)
				}
			default:
				s.skip()
			}
		})
		if text != "" && part != "" {
			text += sep
		}
		text += part
	})
	return text
}

// hasElements reports whether raw is a JSON array with at least one
// element.
func hasElements(raw []byte) bool {
	var t scanner
	t.reset(raw)
	n := 0
	t.array(func(int) { n++; t.Skip() })
	return n > 0 && t.Err() == nil
}

// readResponse reads the response object of response.* events.
func (d *respDecoder) readResponse() bool {
	s, r := &d.sc, &d.ev.resp
	return s.object(func(key []byte) {
		switch string(key) {
		case "id":
			s.setStr(&d.respID) // the same in every response object
			r.id = d.respID
		case "model":
			s.setStr(&d.model)
			r.model = d.model
		case "status":
			r.status = s.stableBytes()
		case "output":
			r.output = s.Raw()
		case "incomplete_details":
			s.object(func(key []byte) {
				if string(key) == "reason" {
					r.incomplete = s.str()
				} else {
					s.skip()
				}
			})
		case "error":
			if s.Peek() == '"' {
				r.errMsg = s.str()
				return
			}
			s.object(func(key []byte) {
				switch string(key) {
				case "code":
					r.errCode = scalarString(s)
				case "message":
					r.errMsg = s.str()
				default:
					s.skip()
				}
			})
		case "usage":
			r.usage = wireUsage{}
			r.hasUsage = s.object(func(key []byte) { readUsage(s, key, &r.usage) })
		default:
			s.skip()
		}
	})
}

// eventKind is an event type the decoder acts on.
type eventKind uint8

const (
	evOther eventKind = iota
	evItemAdded
	evItemDone
	evTextDelta
	evTextDone
	evReasoningDelta
	evArgsDelta
	evArgsDone
	evEnd
	evError
)

// eventKindOf classifies an event type without allocating.
func eventKindOf[T string | []byte](b T) eventKind {
	switch string(b) {
	case "response.output_item.added":
		return evItemAdded
	case "response.output_item.done":
		return evItemDone
	case "response.output_text.delta", "response.refusal.delta":
		return evTextDelta
	case "response.output_text.done", "response.refusal.done":
		return evTextDone
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return evReasoningDelta
	case "response.function_call_arguments.delta":
		return evArgsDelta
	case "response.function_call_arguments.done":
		return evArgsDone
	case "response.completed", "response.incomplete", "response.failed":
		return evEnd
	case "error":
		return evError
	}
	return evOther
}
