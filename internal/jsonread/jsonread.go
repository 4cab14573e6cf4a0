// Package jsonread holds what guard and guard/replay share to read JSON
// with go-json-experiment: lenient options, a pooled decoder that reads a
// byte slice in place, and string decoding.
package jsonread

import (
	"bytes"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Options accept what models and recordings produce: invalid UTF-8 is
// kept as it is rather than refused, and a repeated key is not an error.
var Options = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// Decoder is a jsontext decoder over a byte slice, read without copying.
type Decoder struct {
	buf bytes.Buffer
	Dec jsontext.Decoder
}

var pool = sync.Pool{New: func() any { return new(Decoder) }}

// Get returns a decoder over b, with Options; release it with Free. b
// must not change while the decoder is in use.
func Get(b []byte) *Decoder {
	d := pool.Get().(*Decoder)
	d.buf = *bytes.NewBuffer(b)
	d.Dec.Reset(&d.buf, Options)
	return d
}

// Free returns d to the pool; d must not be used after.
func (d *Decoder) Free() {
	d.buf = bytes.Buffer{}
	d.Dec.Reset(&d.buf)
	pool.Put(d)
}

// String decodes the JSON string raw; ok is false when raw is not one.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	b, err := jsontext.AppendUnquote(make([]byte, 0, len(raw)), raw)
	if err != nil {
		return "", false
	}
	return string(b), true
}
