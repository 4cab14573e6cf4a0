package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// jsonOut writes JSON values to w one at a time through one reused
// buffer, so that a writer streams a document or a file of lines
// without building it in memory or copying each value twice. HTML
// characters are not escaped.
type jsonOut struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

func newJSONOut(w *bufio.Writer) *jsonOut {
	o := &jsonOut{w: w}
	o.enc = json.NewEncoder(&o.buf)
	o.enc.SetEscapeHTML(false)
	return o
}

// indent sets the prefix and indent of the values written next (see
// json.Encoder.SetIndent).
func (o *jsonOut) indent(prefix, indent string) { o.enc.SetIndent(prefix, indent) }

// value writes v without a newline after it.
func (o *jsonOut) value(v any) error {
	o.buf.Reset()
	if err := o.enc.Encode(v); err != nil {
		return err
	}
	b := o.buf.Bytes()
	_, err := o.w.Write(b[:len(b)-1])
	return err
}

// line writes v and a newline: a line of a JSONL file.
func (o *jsonOut) line(v any) error {
	o.buf.Reset()
	if err := o.enc.Encode(v); err != nil {
		return err
	}
	_, err := o.w.Write(o.buf.Bytes())
	return err
}

// str writes s as it is.
func (o *jsonOut) str(s string) error {
	_, err := o.w.WriteString(s)
	return err
}
