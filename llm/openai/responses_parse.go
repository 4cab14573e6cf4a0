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
	itemID       []byte // aliases respDecoder.idBuf
	outputIndex  int
	hasIndex     bool
	summaryIndex int
	text         string // output_text.done
	arguments    string // function_call_arguments.done
	item         respItem
	hasItem      bool
	resp         respResponse
	hasResp      bool
	errCode      string
	errMsg       string
}

// respItem is an output item as sent in output_item events. The byte
// fields alias the event's data.
type respItem struct {
	kind             itemKind
	id, callID, name string
	arguments        []byte
	encrypted        []byte
	summary, content []byte // raw JSON arrays of parts
	raw              []byte
}

type respResponse struct {
	id, model, status, incomplete string
	errCode, errMsg               string
	usage                         wireUsage
	hasUsage                      bool
	output                        []byte
}

// parse reads one event into d.ev.
func (d *respDecoder) parse(data []byte) error {
	ev := &d.ev
	if ev.hasItem {
		ev.item = respItem{}
	}
	if ev.hasResp {
		ev.resp = respResponse{}
	}
	ev.kind, ev.hasType, ev.hasItem, ev.hasResp, ev.hasIndex = evOther, false, false, false, false
	ev.delta, ev.itemID, ev.outputIndex, ev.summaryIndex = "", nil, 0, 0
	ev.text, ev.arguments, ev.errCode, ev.errMsg = "", "", "", ""
	s := &d.sc
	s.reset(data)
	if !s.Object() {
		if err := s.End(); err != nil {
			return err
		}
		return errors.New("event data is not a JSON object")
	}
	for n := 0; ; n++ {
		key, ok := s.Member(n)
		if !ok {
			break
		}
		switch string(key) {
		case "type":
			ev.kind, ev.hasType = eventKindOf(s.StrOrNull()), true
		case "delta":
			ev.delta = s.str()
		case "item_id":
			d.idBuf = append(d.idBuf[:0], s.StrOrNull()...)
			ev.itemID = d.idBuf
		case "output_index":
			if !s.Null() {
				ev.outputIndex, ev.hasIndex = s.num(), true
			}
		case "summary_index":
			ev.summaryIndex = s.num()
		case "text", "refusal": // output_text.done, refusal.done
			ev.text = s.str()
		case "arguments":
			ev.arguments = s.str()
		case "item":
			ev.hasItem = d.readItem()
		case "response":
			ev.hasResp = d.readResponse()
		case "code":
			ev.errCode = scalarString(s)
		case "message":
			ev.errMsg = s.str()
		case "error":
			d.readError()
		default:
			s.Skip()
		}
	}
	return s.End()
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
			s.Skip()
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
			it.id = s.str()
		case "call_id":
			it.callID = s.str()
		case "name":
			it.name = s.str()
		case "arguments":
			it.arguments = s.stableBytes()
		case "encrypted_content":
			it.encrypted = s.stableBytes()
		case "summary":
			it.summary = s.Raw()
		case "content":
			it.content = s.Raw()
		default:
			s.Skip()
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
					s.Skip()
				}
			case "annotations":
				a := s.Raw()
				if ann != nil && s.Err() == nil && hasElements(a) {
					*ann = append([]byte(nil), a...)
				}
			default:
				s.Skip()
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
			r.id = s.str()
		case "model":
			r.model = s.str()
		case "status":
			r.status = s.str()
		case "output":
			r.output = s.Raw()
		case "incomplete_details":
			s.object(func(key []byte) {
				if string(key) == "reason" {
					r.incomplete = s.str()
				} else {
					s.Skip()
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
					s.Skip()
				}
			})
		case "usage":
			r.usage = wireUsage{}
			r.hasUsage = s.object(func(key []byte) { readUsage(s, key, &r.usage) })
		default:
			s.Skip()
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
