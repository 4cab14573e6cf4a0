package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// unknownFields walks a config document and reports every object key
// that no field of Config accepts, with its position and, when one is
// close, the field that was probably meant. It assumes data is valid JSON.
func unknownFields(name string, data []byte) []Warning {
	w := &fieldWalker{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	w.value(reflect.TypeFor[Config](), "")
	return w.warns
}

type fieldWalker struct {
	name  string
	data  []byte
	dec   *json.Decoder
	warns []Warning
	err   error
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// value consumes one JSON value, checking object keys against t; a nil t
// skips the value unchecked.
func (w *fieldWalker) value(t reflect.Type, path string) {
	if w.err != nil {
		return
	}
	tok, err := w.dec.Token()
	if err != nil {
		w.err = err
		return
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType)) {
		t = nil
	}
	switch tok {
	case json.Delim('{'):
		w.object(t, path)
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; w.err == nil && w.dec.More(); i++ {
			w.value(elem, fmt.Sprintf("%s[%d]", path, i))
		}
		w.closing()
	}
}

func (w *fieldWalker) object(t reflect.Type, path string) {
	var fields map[string]reflect.Type
	var mapElem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = jsonFields(t)
		case reflect.Map:
			mapElem = t.Elem()
		}
	}
	for w.err == nil && w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			w.err = err
			return
		}
		key, _ := tok.(string)
		end := int(w.dec.InputOffset())
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		switch {
		case fields != nil:
			ft, ok := lookupField(fields, key)
			if !ok {
				w.unknown(key, path, end, fields)
			}
			w.value(ft, sub)
		case mapElem != nil:
			w.value(mapElem, sub)
		default:
			w.value(nil, sub)
		}
	}
	w.closing()
}

func (w *fieldWalker) closing() {
	if w.err != nil {
		return
	}
	if _, err := w.dec.Token(); err != nil {
		w.err = err
	}
}

func (w *fieldWalker) unknown(key, path string, end int, fields map[string]reflect.Type) {
	// The key's text ends at end; find its opening quote.
	start := end - 1
	for start > 0 {
		start--
		if w.data[start] == '"' && (start == 0 || w.data[start-1] != '\\') {
			break
		}
	}
	line, col := lineCol(w.data, start)
	where := "at the top level"
	if path != "" {
		where = "in " + path
	}
	msg := fmt.Sprintf("unknown field %q %s is ignored", key, where)
	if s := closest(key, fields); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	w.warns = append(w.warns, Warning{File: w.name, Line: line, Col: col, Message: msg})
}

// jsonFields returns the JSON names a struct accepts, embedded structs
// flattened, as encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// lookupField matches a key exactly, then case-insensitively, as
// encoding/json does.
func lookupField(fields map[string]reflect.Type, key string) (reflect.Type, bool) {
	if t, ok := fields[key]; ok {
		return t, true
	}
	for k, t := range fields {
		if strings.EqualFold(k, key) {
			return t, true
		}
	}
	return nil, false
}

// closest returns the known field nearest to key by edit distance, if it
// is close enough to be a likely typo.
func closest(key string, fields map[string]reflect.Type) string {
	best, bestD := "", len(key)/2+2
	for _, k := range sortedKeys(fields) {
		if d := editDistance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
