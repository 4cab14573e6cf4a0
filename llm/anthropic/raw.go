package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"
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
	sc.data = b.raw
	var out []byte
	err := sc.object(func(key []byte) error {
		v, err := sc.raw()
		if err != nil || modelled(kind, string(key)) {
			return err
		}
		if out == nil {
			out = append(out, '{')
		} else {
			out = append(out, ',')
		}
		out = appendString(out, key)
		out = append(append(out, ':'), v...)
		return nil
	})
	if err != nil || out == nil {
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
		sc := scanner{data: obj}
		err := sc.object(func(k []byte) error {
			v, err := sc.raw()
			if err != nil || string(k) == key {
				return err
			}
			out = appendString(out, k)
			out = append(append(append(out, ':'), v...), ',')
			return nil
		})
		if err != nil {
			out = out[:1]
		}
	}
	out = appendString(out, []byte(key))
	out = append(append(out, ':'), val...)
	return append(out, '}')
}

// marshalNoEscape encodes v like json.Marshal but leaves <, > and & as
// they are, so that raw text passes through byte for byte.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

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

// mergeFields appends to the encoded object obj the fields of extra whose
// keys it does not hold yet, in sorted order.
func mergeFields(obj []byte, extra json.RawMessage, taken func(string) bool) []byte {
	var m map[string]json.RawMessage
	if len(extra) == 0 || json.Unmarshal(extra, &m) != nil || len(m) == 0 {
		return obj
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !taken(k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 || len(obj) < 2 || obj[len(obj)-1] != '}' {
		return obj
	}
	slices.Sort(keys)
	out := append([]byte(nil), obj[:len(obj)-1]...)
	for _, k := range keys {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, []byte(k))
		out = append(append(out, ':'), m[k]...)
	}
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

// appendString appends s as a JSON string. Only what JSON requires is
// escaped, so text passes through unchanged.
func appendString(out, s []byte) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}
