package tool

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// appendSchema appends s as JSON, byte for byte as json.Marshal writes
// it, when s and the schemas inside it use only the keywords
// jsonschema.For fills in (type, properties, items, description,
// minimum, maximum, minItems, maxItems, required, additionalProperties
// and the not of a false schema). It reports false for any other schema,
// and the caller marshals that one with json.Marshal.
//
// The schema's own MarshalJSON walks all of its sixty keywords by
// reflection at every level: for the dozen tools a run offers that cost
// about 2 ms before the first request.
func appendSchema(b []byte, s *jsonschema.Schema) ([]byte, bool) {
	if s == nil {
		return append(b, "null"...), true
	}
	rest := *s
	rest.Type, rest.Types, rest.Properties, rest.PropertyOrder, rest.Items = "", nil, nil, nil, nil
	rest.Description, rest.Minimum, rest.Maximum, rest.MinItems, rest.MaxItems = "", nil, nil, nil, nil
	rest.Required, rest.AdditionalProperties, rest.Not = nil, nil, nil
	if !reflect.ValueOf(&rest).Elem().IsZero() || (s.Type != "" && s.Types != nil) {
		return b, false
	}
	start := len(b)
	b = append(b, '{')
	field := func(name string) {
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
	}
	ok := true
	value := func(v any) {
		j, err := json.Marshal(v)
		ok = ok && err == nil
		b = append(b, j...)
	}
	switch {
	case s.Type != "":
		field("type")
		value(s.Type)
	case s.Types != nil:
		field("type")
		value(s.Types)
	}
	if s.Properties != nil {
		field("properties")
		if b, ok = appendProperties(b, s.Properties, s.PropertyOrder); !ok {
			return b, false
		}
	}
	if s.Items != nil {
		field("items")
		if b, ok = appendSchema(b, s.Items); !ok {
			return b, false
		}
	}
	if s.Description != "" {
		field("description")
		value(s.Description)
	}
	for _, f := range []struct {
		name string
		set  bool
		v    any
	}{
		{"minimum", s.Minimum != nil, s.Minimum},
		{"maximum", s.Maximum != nil, s.Maximum},
		{"minItems", s.MinItems != nil, s.MinItems},
		{"maxItems", s.MaxItems != nil, s.MaxItems},
		{"required", len(s.Required) > 0, s.Required},
	} {
		if f.set {
			field(f.name)
			value(f.v)
		}
	}
	for _, f := range []struct {
		name string
		s    *jsonschema.Schema
	}{{"additionalProperties", s.AdditionalProperties}, {"not", s.Not}} {
		if f.s != nil {
			field(f.name)
			if b, ok = appendSchema(b, f.s); !ok {
				return b, false
			}
		}
	}
	b = append(b, '}')
	// As MarshalJSON: {} is written true and {"not":true} false.
	switch string(b[start:]) {
	case `{}`:
		b = append(b[:start], "true"...)
	case `{"not":true}`:
		b = append(b[:start], "false"...)
	}
	return b, ok
}

// appendProperties appends the properties object: the names of order
// first, then the others sorted, as jsonschema writes them.
func appendProperties(b []byte, props map[string]*jsonschema.Schema, order []string) ([]byte, bool) {
	if len(order) != len(props) {
		return b, false // a name left out or repeated: let the library decide
	}
	seen := make(map[string]bool, len(order))
	b = append(b, '{')
	for i, name := range order {
		p, found := props[name]
		if !found || seen[name] {
			return b, false
		}
		seen[name] = true
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return b, false
		}
		b = append(append(b, k...), ':')
		var ok bool
		if b, ok = appendSchema(b, p); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}
