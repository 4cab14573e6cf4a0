package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/reinhq/rein/llm"
)

// payload is the body of a streamGenerateContent request.
type payload struct {
	Contents          []wContent `json:"contents"`
	SystemInstruction *wContent  `json:"systemInstruction,omitempty"`
	Tools             []wTool    `json:"tools,omitempty"`
	GenerationConfig  *genConfig `json:"generationConfig,omitempty"`
}

type wContent struct {
	Role  string  `json:"role,omitempty"`
	Parts []wPart `json:"parts"`
}

type wPart struct {
	Text             *string    `json:"text,omitempty"`
	Thought          bool       `json:"thought,omitempty"`
	ThoughtSignature string     `json:"thoughtSignature,omitempty"`
	InlineData       *blob      `json:"inlineData,omitempty"`
	FunctionCall     *wCall     `json:"functionCall,omitempty"`
	FunctionResponse *wResponse `json:"functionResponse,omitempty"`
	// extra holds fields kept from a part rein did not model; they are
	// sent back beside the modelled ones.
	extra json.RawMessage
}

func (p wPart) MarshalJSON() ([]byte, error) {
	type plain wPart
	b, err := json.Marshal(plain(p))
	if err != nil || len(p.extra) == 0 {
		return b, err
	}
	return mergeExtra(b, p.extra)
}

type blob struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
}

type wCall struct {
	Name  string          `json:"name"`
	Args  json.RawMessage `json:"args"`
	ID    string          `json:"id,omitempty"`
	extra json.RawMessage
}

func (c wCall) MarshalJSON() ([]byte, error) {
	type plain wCall
	b, err := json.Marshal(plain(c))
	if err != nil || len(c.extra) == 0 {
		return b, err
	}
	return mergeExtra(b, c.extra)
}

type wResponse struct {
	ID       string     `json:"id,omitempty"`
	Name     string     `json:"name"`
	Response frResponse `json:"response"`
	// Parts carries images returned by a tool (Gemini 3 and later).
	Parts []frPart `json:"parts,omitempty"`
}

type frResponse struct {
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`
}

type frPart struct {
	InlineData blob `json:"inlineData"`
}

type wTool struct {
	FunctionDeclarations []fnDecl `json:"functionDeclarations"`
}

type fnDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type genConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

// mergeExtra adds the members of the object extra to the object b,
// except those b already has (the modelled fields win). Keys are added in
// sorted order so that the payload is deterministic.
func mergeExtra(b, extra []byte) ([]byte, error) {
	var m, have map[string]json.RawMessage
	if err := json.Unmarshal(extra, &m); err != nil {
		return nil, fmt.Errorf("content extra is not a JSON object: %w", err)
	}
	if err := json.Unmarshal(b, &have); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if _, ok := have[k]; !ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b, nil
	}
	slices.Sort(keys)
	out := bytes.TrimSuffix(bytes.TrimSpace(b), []byte("}"))
	hasMembers := len(bytes.TrimSpace(out)) > 1
	for _, k := range keys {
		if hasMembers {
			out = append(out, ',')
		}
		hasMembers = true
		kb, _ := json.Marshal(k)
		out = append(append(append(out, kb...), ':'), m[k]...)
	}
	return append(out, '}'), nil
}

// skipSignature is the placeholder Gemini accepts on a function call that
// has no signature of its own (one made by another model, or replayed
// from a log that lost it); Gemini 3 rejects such calls in the current
// turn otherwise.
const skipSignature = "skip_thought_signature_validator"

// formatError is a request rein cannot encode.
func formatError(format string, args ...any) error {
	return &llm.Error{Code: llm.CodeFormat, Message: fmt.Sprintf(format, args...)}
}

// buildPayload encodes req as the JSON body of a streamGenerateContent
// call, applying Options.Extra and Options.OnPayload.
func buildPayload(ctx context.Context, req *llm.Request) ([]byte, error) {
	if !req.Thinking.Valid() {
		return nil, formatError("unknown thinking level %q (want one of %v)", req.Thinking, llm.ThinkingLevels())
	}
	var p payload
	if text := llm.SystemText(req.System); text != "" {
		p.SystemInstruction = &wContent{Role: "user", Parts: []wPart{{Text: &text}}}
	}
	enc := encoder{model: &req.Model, gemini3: modelMajor(req.Model.ID) >= 3}
	if err := enc.messages(llm.Sendable(req.Messages, llm.APIGemini)); err != nil {
		return nil, err
	}
	p.Contents = enc.out
	if p.Contents == nil {
		p.Contents = []wContent{}
	}
	if len(req.Tools) > 0 {
		decls := make([]fnDecl, 0, len(req.Tools))
		for _, t := range req.Tools {
			params, err := toolSchema(t.Parameters)
			if err != nil {
				return nil, formatError("tool %q: %v", t.Name, err)
			}
			decls = append(decls, fnDecl{Name: t.Name, Description: t.Description, Parameters: params})
		}
		p.Tools = []wTool{{FunctionDeclarations: decls}}
	}
	gc := genConfig{MaxOutputTokens: req.MaxTokens, Temperature: req.Temperature, ThinkingConfig: thinkingFor(&req.Model, req.Thinking)}
	if gc.MaxOutputTokens <= 0 {
		gc.MaxOutputTokens = max(req.Model.MaxOutput, 0)
	}
	if gc != (genConfig{}) {
		p.GenerationConfig = &gc
	}
	b, err := json.Marshal(&p)
	if err != nil {
		return nil, formatError("encoding the request: %v", err)
	}
	if len(req.Options.Extra) > 0 {
		if b, err = mergeOptions(b, req.Options.Extra); err != nil {
			return nil, err
		}
	}
	if req.Options.OnPayload != nil {
		if b, err = req.Options.OnPayload(ctx, b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// mergeOptions sets the top-level fields of extra over the payload; a
// JSON null deletes the field.
func mergeOptions(b []byte, extra map[string]json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, formatError("merging Options.Extra: %v", err)
	}
	for k, v := range extra {
		if t := bytes.TrimSpace(v); len(t) == 0 || string(t) == "null" {
			delete(m, k)
			continue
		}
		if !json.Valid(v) {
			return nil, formatError("Options.Extra[%q] is not valid JSON", k)
		}
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, formatError("merging Options.Extra: %v", err)
	}
	return out, nil
}

// toolSchema prepares a tool's JSON Schema for parametersJsonSchema,
// which takes standard JSON Schema (additionalProperties included); only
// the top-level "$schema" and "$id" annotations are removed. Empty
// parameters mean the function takes none.
func toolSchema(params json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if !bytes.Contains(t, []byte(`"$schema"`)) && !bytes.Contains(t, []byte(`"$id"`)) {
		if !json.Valid(t) {
			return nil, fmt.Errorf("parameters are not valid JSON")
		}
		return t, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, fmt.Errorf("parameters are not a JSON object: %v", err)
	}
	delete(m, "$schema")
	delete(m, "$id")
	return json.Marshal(m)
}
