package textcall

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// wireCall is a call object as models write it. Some write "parameters"
// for "arguments", some nest the call under "function", and some send the
// arguments as a JSON string.
type wireCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
	Function   *wireCall       `json:"function"`
}

// decode reads one call object, an array of them, or XML-style calls.
// problem is non-empty when the text is not a well-formed call.
func (p *Parser) decode(body string) ([]Segment, string) {
	if body == "" {
		return nil, "the call is empty"
	}
	if strings.HasPrefix(body, "<") {
		return p.decodeXML(body)
	}
	var list []wireCall
	if strings.HasPrefix(body, "[") {
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			return nil, "its JSON does not parse: " + err.Error()
		}
	} else {
		var one wireCall
		if err := json.Unmarshal([]byte(body), &one); err != nil {
			return nil, "its JSON does not parse: " + err.Error()
		}
		list = []wireCall{one}
	}
	out := make([]Segment, 0, len(list))
	for _, c := range list {
		if c.Function != nil && c.Name == "" {
			c = *c.Function
		}
		if c.Name == "" {
			return nil, `it has no "name"`
		}
		args := c.Arguments
		if len(args) == 0 {
			args = c.Parameters
		}
		args = bytes.TrimSpace(args)
		if len(args) > 0 && args[0] == '"' {
			var s string
			if json.Unmarshal(args, &s) == nil {
				args = json.RawMessage(strings.TrimSpace(s))
			}
		}
		switch {
		case len(args) == 0 || string(args) == "null":
			args = json.RawMessage("{}")
		case args[0] != '{' || !json.Valid(args):
			return nil, `its "arguments" are not a JSON object`
		}
		out = append(out, Segment{Kind: KindCall, Name: c.Name, Args: args})
	}
	return out, ""
}

var nameField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"name"\s*:\s*"([^"\\]{1,128})"`) })

// malformed returns a call segment for text that is not a well-formed
// call: the name when one can be read, the raw text as a JSON string.
func malformed(body, problem string) Segment {
	name := "invalid_tool_call"
	if m := nameField().FindStringSubmatch(body); m != nil {
		name = m[1]
	}
	raw, _ := json.Marshal(body)
	return Segment{Kind: KindCall, Name: name, Args: raw, Problem: problem}
}

var (
	xmlFunction  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<function=([^>\s]+)>`) })
	xmlParameter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<parameter=([^>\s]+)>\n?(.*?)\n?</parameter>`) })
)

// decodeXML reads calls in the XML style of Qwen3-Coder:
// <function=name><parameter=p>value</parameter></function>.
func (p *Parser) decodeXML(body string) ([]Segment, string) {
	locs := xmlFunction().FindAllStringSubmatchIndex(body, -1)
	if len(locs) == 0 {
		return nil, "it is neither a JSON object nor <function=…> markup"
	}
	var out []Segment
	for k, loc := range locs {
		name := body[loc[2]:loc[3]]
		end := len(body)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		part := body[loc[1]:end]
		if !strings.Contains(part, "</function>") {
			return nil, "<function=" + name + "> is not closed with </function>"
		}
		args := map[string]json.RawMessage{}
		for _, m := range xmlParameter().FindAllStringSubmatch(part, -1) {
			args[m[1]] = p.xmlValue(name, m[1], m[2])
		}
		raw, err := marshal(args)
		if err != nil {
			return nil, err.Error()
		}
		out = append(out, Segment{Kind: KindCall, Name: name, Args: raw})
	}
	return out, ""
}

// xmlValue reads a parameter value: a string unless the schema says
// otherwise and the value is valid JSON.
func (p *Parser) xmlValue(tool, param, v string) json.RawMessage {
	typ := ""
	if p.Types != nil {
		typ = p.Types(tool, param)
	}
	if typ != "string" {
		t := strings.TrimSpace(v)
		if typ != "" && json.Valid([]byte(t)) {
			return json.RawMessage(t)
		}
	}
	raw, _ := marshal(v)
	return raw
}

// marshal is json.Marshal without the escaping of <, > and &, which
// models and logs read better.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
