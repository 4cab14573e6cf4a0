package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/reinhq/rein/llm"
)

// payload is the body of a streamGenerateContent request, encoded with
// go-json-experiment/json (encodeOpts). Raw JSON (arguments, schemas,
// kept fields) is embedded as jsontext.Value; the encoder checks it and
// writes it compact.
type payload struct {
	// Contents is nil only when Options.Extra replaces it; an empty
	// conversation is sent as [].
	Contents          []wContent `json:"contents,omitzero"`
	SystemInstruction *wContent  `json:"systemInstruction,omitzero"`
	Tools             []toolSet  `json:"tools,omitzero"`
	GenerationConfig  *genConfig `json:"generationConfig,omitzero"`
	// Extra holds the top-level fields of Options.Extra (nulls removed);
	// a modelled field named there is left zero so that Extra wins.
	Extra map[string]jsontext.Value `json:",embed"`
}

type wContent struct {
	Role  string  `json:"role,omitzero"`
	Parts []wPart `json:"parts"`
}

type wPart struct {
	Text             *string    `json:"text,omitzero"`
	Thought          bool       `json:"thought,omitzero"`
	ThoughtSignature string     `json:"thoughtSignature,omitzero"`
	InlineData       *blob      `json:"inlineData,omitzero"`
	FunctionCall     *wCall     `json:"functionCall,omitzero"`
	FunctionResponse *wResponse `json:"functionResponse,omitzero"`
	// extra holds fields kept from a part rein did not model; keepExtra
	// turns it into Kept, which is sent beside the modelled fields.
	extra json.RawMessage
	Kept  map[string]jsontext.Value `json:",embed"`
}

type blob struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
}

type wCall struct {
	Name  string                    `json:"name"`
	Args  jsontext.Value            `json:"args"`
	ID    string                    `json:"id,omitzero"`
	extra json.RawMessage           // see wPart.extra
	Kept  map[string]jsontext.Value `json:",embed"`
}

type wResponse struct {
	ID       string       `json:"id,omitzero"`
	Name     string       `json:"name"`
	Response responseBody `json:"response"`
	// Parts carries images returned by a tool (Gemini 3 and later).
	Parts []inlinePart `json:"parts,omitzero"`
}

// responseBody is {"output": text}, or {"error": text} for a failed call.
type responseBody struct {
	Output *string `json:"output,omitzero"`
	Error  *string `json:"error,omitzero"`
}

type inlinePart struct {
	InlineData blob `json:"inlineData"`
}

// toolSet is the one entry of "tools": every function declaration.
type toolSet struct {
	FunctionDeclarations []fnDecl `json:"functionDeclarations"`
}

type fnDecl struct {
	Name        string `json:"name"`
	Description string `json:"description,omitzero"`
	// Parameters is a JSON Schema, sent as parametersJsonSchema.
	Parameters jsontext.Value `json:"parametersJsonSchema,omitzero"`
}

type genConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitzero"`
	Temperature     *float64        `json:"temperature,omitzero"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitzero"`
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
	if len(req.Tools) > 0 {
		decls := make([]fnDecl, 0, len(req.Tools))
		for _, t := range req.Tools {
			params, err := toolSchema(t.Parameters)
			if err != nil {
				return nil, formatError("tool %q: %v", t.Name, err)
			}
			decls = append(decls, fnDecl{Name: t.Name, Description: t.Description, Parameters: jsontext.Value(params)})
		}
		p.Tools = []toolSet{{FunctionDeclarations: decls}}
	}
	if req.Temperature != nil && !validFloat(*req.Temperature) {
		return nil, formatError("temperature %v is not a finite number", *req.Temperature)
	}
	gc := genConfig{MaxOutputTokens: req.MaxTokens, Temperature: req.Temperature, ThinkingConfig: thinkingFor(&req.Model, req.Thinking)}
	if gc.MaxOutputTokens <= 0 {
		gc.MaxOutputTokens = max(req.Model.MaxOutput, 0)
	}
	if gc != (genConfig{}) {
		p.GenerationConfig = &gc
	}
	b, err := p.encode(req.Options.Extra)
	if err != nil {
		return nil, err
	}
	if req.Options.OnPayload != nil {
		if b, err = req.Options.OnPayload(ctx, b); err != nil {
			return nil, err
		}
	}
	return b, nil
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
		if !validJSON(t) {
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
