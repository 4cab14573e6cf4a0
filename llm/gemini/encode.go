package gemini

import (
	"bytes"
	"encoding/json"
	"math"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// encodeOpts write the payload as the API expects it: map keys (kept
// fields) in sorted order so that the body is deterministic, text
// verbatim (no HTML escaping; invalid UTF-8 becomes U+FFFD), and raw JSON
// from models and users accepted as encoding/json accepts it.
var encodeOpts = jsonv2.JoinOptions(
	jsonv2.Deterministic(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// encode writes the payload, with the top-level fields of extra set over
// it (a JSON null deletes the field).
func (p *payload) encode(extra map[string]json.RawMessage) ([]byte, error) {
	if p.Contents == nil {
		p.Contents = []wContent{}
	}
	for k, v := range extra {
		t := bytes.TrimSpace(v)
		if len(t) > 0 && string(t) != "null" {
			if !validJSON(t) {
				return nil, formatError("Options.Extra[%q] is not valid JSON", k)
			}
			if p.Extra == nil {
				p.Extra = make(map[string]jsontext.Value, len(extra))
			}
			p.Extra[k] = t
		}
		switch k {
		case "contents":
			p.Contents = nil
		case "systemInstruction":
			p.SystemInstruction = nil
		case "tools":
			p.Tools = nil
		case "generationConfig":
			p.GenerationConfig = nil
		}
	}
	for i := range p.Contents {
		for j := range p.Contents[i].Parts {
			if err := p.Contents[i].Parts[j].keepExtra(); err != nil {
				return nil, err
			}
		}
	}
	return jsonv2.Marshal(p, encodeOpts)
}

// keepExtra turns the kept fields of the part, and of its function call,
// into the maps sent beside the modelled fields, leaving out those the
// part already has: the modelled fields win.
func (p *wPart) keepExtra() error {
	var err error
	if len(p.extra) > 0 {
		p.Kept, err = kept(p.extra, func(k string) bool {
			switch k {
			case "text":
				return p.Text != nil
			case "thought":
				return p.Thought
			case "thoughtSignature":
				return p.ThoughtSignature != ""
			case "inlineData":
				return p.InlineData != nil
			case "functionCall":
				return p.FunctionCall != nil
			case "functionResponse":
				return p.FunctionResponse != nil
			}
			return false
		})
		if err != nil {
			return err
		}
	}
	if c := p.FunctionCall; c != nil && len(c.extra) > 0 {
		c.Kept, err = kept(c.extra, func(k string) bool {
			return k == "name" || k == "args" || k == "id" && c.ID != ""
		})
	}
	return err
}

// kept decodes the JSON object extra, without the members has names.
func kept(extra json.RawMessage, has func(string) bool) (map[string]jsontext.Value, error) {
	var m map[string]jsontext.Value
	if err := jsonv2.Unmarshal(extra, &m, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)); err != nil {
		return nil, formatError("content extra is not a JSON object: %v", err)
	}
	for k := range m {
		if has(k) {
			delete(m, k)
		}
	}
	return m, nil
}

func validFloat(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// validJSON reports whether b is one JSON value, as encoding/json would
// accept it.
func validJSON(b []byte) bool {
	return jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}
