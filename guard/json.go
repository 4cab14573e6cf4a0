package guard

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/reinhq/rein/internal/jsonread"
)

// The decision path reads a few top-level members of a call's arguments
// (path, offset, limit, command, action) with a jsontext decoder, without
// decoding the whole object.

// maxDepth bounds nesting for the canonical hasher; deeper input is
// hashed as opaque bytes.
const maxDepth = 64

// decodeOpts are the lenient options of every decode in this package.
var decodeOpts = jsonread.Options

// newDecoder returns a pooled decoder over b; release it with Free.
func newDecoder(b []byte) *jsonread.Decoder { return jsonread.Get(b) }

// field returns the raw value of the top-level member name of obj. The
// value aliases obj.
func field(obj []byte, name string) (jsontext.Value, bool) {
	if len(obj) == 0 {
		return nil, false
	}
	d := newDecoder(obj)
	defer d.Free()
	if tok, err := d.Dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	for d.Dec.PeekKind() == '"' {
		k, err := d.Dec.ReadValue()
		if err != nil {
			return nil, false
		}
		if keyIs(k, name) {
			v, err := d.Dec.ReadValue()
			if err != nil {
				return nil, false
			}
			// ReadValue's result is valid until the next read; obj is
			// the buffer, so a slice of it stays valid.
			off := int(d.Dec.InputOffset())
			return jsontext.Value(obj[off-len(v) : off]), true
		}
		if err := d.Dec.SkipValue(); err != nil {
			return nil, false
		}
	}
	return nil, false
}

// keyIs reports whether the JSON string k (quotes included) is name.
func keyIs(k jsontext.Value, name string) bool {
	if len(k) == len(name)+2 && string(k[1:len(k)-1]) == name {
		return true
	}
	if bytes.IndexByte(k, '\\') < 0 {
		return false
	}
	var s string
	return json.Unmarshal(k, &s, decodeOpts) == nil && s == name
}

// stringValue decodes a JSON string; ok is false when raw is not one.
func stringValue(raw []byte) (string, bool) { return jsonread.String(raw) }

// fieldString returns the top-level string member name of obj, decoded.
func fieldString(obj []byte, name string) (string, bool) {
	raw, ok := field(obj, name)
	if !ok {
		return "", false
	}
	return stringValue(raw)
}

// fieldInt returns the top-level integer member name of obj. Numbers
// written as strings ("10") are accepted, as models often send them.
func fieldInt(obj []byte, name string) (int, bool) {
	raw, ok := field(obj, name)
	if !ok {
		return 0, false
	}
	text := string(raw)
	if s, isStr := stringValue(raw); isStr {
		text = s
	} else if raw.Kind() != '0' {
		return 0, false
	}
	if n, err := strconv.Atoi(text); err == nil {
		return n, n > -1<<40 && n < 1<<40
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f > 1<<40 || f < -1<<40 {
		return 0, false
	}
	return int(f), true
}
