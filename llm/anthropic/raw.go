package anthropic

import (
	"encoding/json"

	"github.com/reinhq/rein/internal/jsonx"
)

// unmodelled returns the fields of a content block that rein does not
// model for its kind, as a JSON object, or nil when there are none. They
// are kept in Content.Extra and sent back with the block.
func unmodelled(b *blockFields, kind blockKind) json.RawMessage {
	switch kind {
	case kindText:
		if !b.other && b.thinking == nil && b.signature == nil && b.data == nil && b.id == nil && b.name == nil && b.input == nil {
			return nil
		}
	case kindThinking:
		if !b.other && b.text == nil && b.data == nil && b.id == nil && b.name == nil && b.input == nil && b.citations == nil {
			return nil
		}
	case kindToolCall:
		if !b.other && b.text == nil && b.thinking == nil && b.signature == nil && b.data == nil && b.citations == nil {
			return nil
		}
	}
	var sc scanner
	sc.Reset(b.raw)
	var out []byte
	if sc.Object() {
		for n := 0; ; n++ {
			key, ok := sc.Member(n)
			if !ok {
				break
			}
			if v := sc.Raw(); sc.ok() && !modelled(kind, string(key)) {
				if out == nil {
					out = append(out, '{')
				} else {
					out = append(out, ',')
				}
				out = jsonx.AppendString(out, string(key))
				out = append(append(out, ':'), v...)
			}
		}
	}
	if !sc.ok() || out == nil {
		return nil
	}
	return append(out, '}')
}

func modelled(kind blockKind, key string) bool {
	if key == "type" {
		return true
	}
	switch kind {
	case kindText:
		return key == "text" || key == "citations"
	case kindThinking:
		return key == "thinking" || key == "signature"
	case kindToolCall:
		return key == "id" || key == "name" || key == "input"
	}
	return false
}

// setFields returns the JSON object obj with key set to val, which must
// be valid JSON. Other fields are copied as they are; an empty or invalid
// obj counts as an empty object.
func setFields(obj json.RawMessage, key string, val []byte) json.RawMessage {
	out := []byte{'{'}
	if len(obj) > 0 {
		var sc scanner
		sc.Reset(obj)
		if sc.Object() {
			for n := 0; ; n++ {
				k, ok := sc.Member(n)
				if !ok {
					break
				}
				if v := sc.Raw(); sc.ok() && string(k) != key {
					out = jsonx.AppendString(out, string(k))
					out = append(append(append(out, ':'), v...), ',')
				}
			}
		}
		if !sc.ok() {
			out = out[:1]
		}
	}
	out = jsonx.AppendString(out, key)
	out = append(append(out, ':'), val...)
	return append(out, '}')
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// marshalList joins raw JSON values into an array.
func marshalList(items []json.RawMessage) []byte {
	b := []byte{'['}
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}
