package gemini

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinhq/rein/llm"
)

// encoder turns rein messages into Gemini contents.
type encoder struct {
	model   *llm.Model
	gemini3 bool
	out     []wContent
	// calls maps rein call ids to what the next turn sends: the wire id
	// ("" for ids rein generated) and the function name.
	calls map[string]callRef
	// results is the index of the user content collecting the current
	// batch of function responses, or -1.
	results int
	// turn is the index of the first content of the current turn: the
	// contents after the last plain user message.
	turn int
}

type callRef struct{ id, name string }

func (e *encoder) messages(msgs []llm.Message) error {
	e.results = -1
	e.calls = make(map[string]callRef)
	for i := range msgs {
		m := &msgs[i]
		var err error
		switch m.Role {
		case llm.RoleAssistant:
			err = e.assistant(m)
		case llm.RoleToolResult:
			e.toolResult(m)
		default:
			e.user(m)
		}
		if err != nil {
			return err
		}
	}
	if e.gemini3 {
		e.signCurrentTurn()
	}
	return nil
}

func (e *encoder) user(m *llm.Message) {
	e.results = -1
	parts := make([]wPart, 0, len(m.Content))
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentText:
			if c.Text != "" {
				parts = append(parts, textPart(c.Text))
			}
		case llm.ContentImage:
			parts = append(parts, e.image(c))
		}
	}
	if len(parts) == 0 {
		return
	}
	e.out = append(e.out, wContent{Role: "user", Parts: parts})
	e.turn = len(e.out)
}

func textPart(s string) wPart { return wPart{Text: &s} }

// image encodes an image block, or says it was left out when the model
// declares that it takes no images.
func (e *encoder) image(c llm.Content) wPart {
	if len(e.model.Input) > 0 && !e.model.AcceptsImages() {
		return textPart("(image omitted: this model does not accept images)")
	}
	return wPart{InlineData: &blob{MIMEType: c.MIMEType, Data: c.Data}}
}

func (e *encoder) assistant(m *llm.Message) error {
	e.results = -1
	own := m.API == llm.APIGemini
	parts := make([]wPart, 0, len(m.Content))
	for _, c := range m.Content {
		var p wPart
		switch c.Type {
		case llm.ContentText, llm.ContentThinking:
			if c.Redacted {
				continue
			}
			if !own && c.Text == "" {
				continue
			}
			if own && c.Text == "" && c.Signature == "" && len(c.Extra) == 0 {
				continue
			}
			if c.Text != "" || len(c.Extra) == 0 || !own || hasKey(c.Extra, "text") {
				p.Text = &c.Text
			}
			p.Thought = c.Type == llm.ContentThinking
		case llm.ContentImage:
			p = e.image(c)
		case llm.ContentToolCall:
			args := c.Arguments
			if !c.ArgumentsObject() || !validJSON(args) {
				args = json.RawMessage("{}")
			}
			id := c.ID
			if own && strings.HasPrefix(id, GeneratedIDPrefix) {
				id = ""
			}
			e.calls[c.ID] = callRef{id: id, name: c.Name}
			p.FunctionCall = &wCall{Name: c.Name, Args: jsontext.Value(args), ID: id}
		default:
			continue
		}
		if own {
			p.ThoughtSignature = c.Signature
			if len(c.Extra) > 0 {
				if err := p.setExtra(c.Extra); err != nil {
					return err
				}
			}
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		e.out = append(e.out, wContent{Role: "model", Parts: parts})
	}
	return nil
}

// hasKey reports whether the JSON object raw has the top-level key k.
func hasKey(raw json.RawMessage, k string) bool {
	if !bytes.Contains(raw, []byte(`"`+k+`"`)) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, ok := m[k]
	return ok
}

// setExtra attaches kept fields to the part, moving those that belong
// inside functionCall there.
func (p *wPart) setExtra(extra json.RawMessage) error {
	if p.FunctionCall == nil || !bytes.Contains(extra, []byte(`"functionCall"`)) {
		p.extra = extra
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(extra, &m); err != nil {
		return formatError("content extra is not a JSON object: %v", err)
	}
	p.FunctionCall.extra = m["functionCall"]
	delete(m, "functionCall")
	if len(m) > 0 {
		b, err := json.Marshal(m)
		if err != nil {
			return formatError("content extra: %v", err)
		}
		p.extra = b
	}
	return nil
}

// toolResult adds a functionResponse part, grouping the results of one
// batch of calls into one user content as Gemini expects.
func (e *encoder) toolResult(m *llm.Message) {
	ref, ok := e.calls[m.ToolCallID]
	if !ok {
		ref = callRef{id: m.ToolCallID}
	}
	name := m.ToolName
	if name == "" {
		name = ref.name
	}
	var text []string
	var images []blob
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentText:
			text = append(text, c.Text)
		case llm.ContentImage:
			if len(e.model.Input) > 0 && !e.model.AcceptsImages() {
				text = append(text, "(image omitted: this model does not accept images)")
				continue
			}
			images = append(images, blob{MIMEType: c.MIMEType, Data: c.Data})
		}
	}
	out := strings.Join(text, "\n")
	fr := &wResponse{ID: ref.id, Name: name, Response: responseBody{Output: &out}}
	if m.IsError {
		fr.Response = responseBody{Error: &out}
	}
	var extra []wPart
	if e.gemini3 {
		for _, b := range images {
			fr.Parts = append(fr.Parts, inlinePart{InlineData: b})
		}
	} else {
		for _, b := range images {
			extra = append(extra, wPart{InlineData: &blob{MIMEType: b.MIMEType, Data: b.Data}})
		}
	}
	if e.results < 0 {
		e.out = append(e.out, wContent{Role: "user"})
		e.results = len(e.out) - 1
	}
	c := &e.out[e.results]
	// Function responses come first, in call order; images a pre-3 model
	// cannot take inside a response follow them.
	n := 0
	for n < len(c.Parts) && c.Parts[n].FunctionResponse != nil {
		n++
	}
	c.Parts = slices.Insert(c.Parts, n, wPart{FunctionResponse: fr})
	c.Parts = append(c.Parts, extra...)
}

// signCurrentTurn gives the first function call of each model step in
// the current turn a placeholder signature when it has none.
func (e *encoder) signCurrentTurn() {
	for i := e.turn; i < len(e.out); i++ {
		c := &e.out[i]
		if c.Role != "model" {
			continue
		}
		for j := range c.Parts {
			if p := &c.Parts[j]; p.FunctionCall != nil {
				if p.ThoughtSignature == "" {
					p.ThoughtSignature = skipSignature
				}
				break
			}
		}
	}
}
