package openai

import (
	"encoding/json"
	"strings"

	"github.com/reinhq/rein/llm"
)

// respRequest is the body of POST /responses.
type respRequest struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions,omitempty"`
	Input           []any             `json:"input"`
	Tools           []respTool        `json:"tools,omitempty"`
	Stream          bool              `json:"stream"`
	Store           bool              `json:"store"`
	Include         []string          `json:"include,omitempty"`
	Reasoning       *respReasoning    `json:"reasoning,omitempty"`
	MaxOutputTokens int               `json:"max_output_tokens,omitempty"`
	Temperature     *float64          `json:"temperature,omitempty"`
	PromptCacheKey  string            `json:"prompt_cache_key,omitempty"`
	Metadata        map[string]string `json:"metadata,omitempty"`
}

type respReasoning struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is sent as false: the API's default of true demands schemas
	// that list every property as required.
	Strict bool `json:"strict"`
}

// Input items.
type (
	respMessage struct {
		Type    string `json:"type,omitempty"`
		ID      string `json:"id,omitempty"`
		Role    string `json:"role"`
		Content any    `json:"content"`
		Status  string `json:"status,omitempty"`
	}
	respPart struct {
		Type        string          `json:"type"`
		Text        *string         `json:"text,omitempty"`
		ImageURL    string          `json:"image_url,omitempty"`
		Annotations json.RawMessage `json:"annotations,omitempty"`
	}
	respFunctionCall struct {
		Type      string `json:"type"`
		ID        string `json:"id,omitempty"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	respFunctionOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
	respReasoningItem struct {
		Type             string        `json:"type"`
		ID               string        `json:"id"`
		Summary          []respSummary `json:"summary"`
		EncryptedContent string        `json:"encrypted_content,omitempty"`
	}
	respSummary struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
)

// itemExtra is what this package keeps in Content.Extra for blocks that
// came from Responses output items: the item id, and a message's
// annotations (citations).
type itemExtra struct {
	ID          string          `json:"id,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

func readItemExtra(raw json.RawMessage) itemExtra {
	var x itemExtra
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &x)
	}
	return x
}

// buildResponses encodes req as a Responses request body.
func buildResponses(req *llm.Request, base string, cp Compat) ([]byte, error) {
	body := respRequest{
		Model:           req.Model.ID,
		Instructions:    llm.SystemText(req.System),
		Input:           []any{},
		Stream:          true,
		MaxOutputTokens: maxTokens(req),
		Temperature:     req.Temperature,
		Metadata:        req.Options.Metadata,
	}
	if req.Model.Reasoning {
		body.Include = []string{"reasoning.encrypted_content"}
		if !cp.NoReasoningEffort {
			eff, err := effort(req.Model.ID, req.Thinking)
			if err != nil {
				return nil, err
			}
			if eff != "" {
				body.Reasoning = &respReasoning{Effort: eff, Summary: "auto"}
			}
		}
	}
	if !cp.NoPromptCacheKey {
		body.PromptCacheKey = req.Options.SessionID
	}
	body.Input = appendRespInput(body.Input, llm.Sendable(req.Messages, llm.APIOpenAIResponses), &req.Model, cp)
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParams
		}
		body.Tools = append(body.Tools, respTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	return marshal(body)
}

func textPart(typ, s string) respPart { return respPart{Type: typ, Text: &s} }

func appendRespInput(out []any, msgs []llm.Message, model *llm.Model, cp Compat) []any {
	images := acceptsImages(model)
	var pending []respPart
	flush := func() {
		if len(pending) > 0 {
			parts := append([]respPart{textPart("input_text", toolResultImages)}, pending...)
			out = append(out, respMessage{Role: "user", Content: parts})
			pending = nil
		}
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Role != llm.RoleToolResult {
			flush()
		}
		switch m.Role {
		case llm.RoleUser:
			parts := make([]respPart, 0, len(m.Content))
			for j := range m.Content {
				c := &m.Content[j]
				switch c.Type {
				case llm.ContentText:
					parts = append(parts, textPart("input_text", c.Text))
				case llm.ContentImage:
					if images {
						parts = append(parts, respPart{Type: "input_image", ImageURL: dataURL(c)})
					} else {
						parts = append(parts, textPart("input_text", imageOmitted))
					}
				}
			}
			out = append(out, respMessage{Role: "user", Content: parts})
		case llm.RoleAssistant:
			out = appendRespAssistant(out, m, cp)
		case llm.RoleToolResult:
			var text strings.Builder
			for j := range m.Content {
				c := &m.Content[j]
				switch c.Type {
				case llm.ContentText:
					text.WriteString(c.Text)
				case llm.ContentImage:
					if images {
						pending = append(pending, respPart{Type: "input_image", ImageURL: dataURL(c)})
					} else {
						text.WriteString(imageOmitted)
					}
				}
			}
			out = append(out, respFunctionOutput{Type: "function_call_output", CallID: toolCallID(m.ToolCallID, cp.MaxToolCallIDLength), Output: text.String()})
		}
	}
	flush()
	return out
}

// appendRespAssistant replays an assistant message as output items.
// Reasoning items go back with their encrypted content so the model keeps
// its chain of thought across tool calls. The API pairs an item id with
// the reasoning item that preceded it, so when any reasoning item of the
// message cannot be replayed (no encrypted content), item ids are left
// out altogether.
func appendRespAssistant(out []any, m *llm.Message, cp Compat) []any {
	own := m.API == llm.APIOpenAIResponses
	keepIDs := own
	if own {
		for i := range m.Content {
			if c := &m.Content[i]; c.Type == llm.ContentThinking && c.Signature == "" {
				keepIDs = false
			}
		}
	}
	for i := range m.Content {
		c := &m.Content[i]
		switch c.Type {
		case llm.ContentThinking:
			// Thinking of this API without encrypted content cannot be
			// verified by the server; thinking of other APIs was made text
			// by llm.Sendable.
			if !own || c.Signature == "" {
				continue
			}
			x := readItemExtra(c.Extra)
			if x.ID == "" {
				continue
			}
			item := respReasoningItem{Type: "reasoning", ID: x.ID, Summary: []respSummary{}, EncryptedContent: c.Signature}
			if c.Text != "" {
				item.Summary = append(item.Summary, respSummary{Type: "summary_text", Text: c.Text})
			}
			out = append(out, item)
		case llm.ContentText:
			if c.Text == "" {
				continue
			}
			part := textPart("output_text", c.Text)
			part.Annotations = json.RawMessage("[]")
			msg := respMessage{Type: "message", Role: "assistant", Status: "completed"}
			if own {
				x := readItemExtra(c.Extra)
				if len(x.Annotations) > 0 {
					part.Annotations = x.Annotations
				}
				if keepIDs {
					msg.ID = x.ID
				}
			}
			msg.Content = []respPart{part}
			out = append(out, msg)
		case llm.ContentToolCall:
			fc := respFunctionCall{Type: "function_call", CallID: toolCallID(c.ID, cp.MaxToolCallIDLength), Name: c.Name, Arguments: c.RawArguments()}
			if keepIDs {
				fc.ID = readItemExtra(c.Extra).ID
			}
			out = append(out, fc)
		}
	}
	return out
}
