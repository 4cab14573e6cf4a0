package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinhq/rein/llm"
)

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model               string            `json:"model"`
	Messages            []chatMessage     `json:"messages"`
	Tools               []chatTool        `json:"tools,omitempty"`
	Stream              bool              `json:"stream"`
	StreamOptions       *streamOptions    `json:"stream_options,omitempty"`
	MaxCompletionTokens int               `json:"max_completion_tokens,omitempty"`
	MaxTokens           int               `json:"max_tokens,omitempty"`
	Temperature         *float64          `json:"temperature,omitempty"`
	ReasoningEffort     string            `json:"reasoning_effort,omitempty"`
	Reasoning           *effortObject     `json:"reasoning,omitempty"`
	PromptCacheKey      string            `json:"prompt_cache_key,omitempty"`
	Metadata            map[string]string `json:"metadata,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type effortObject struct {
	Effort string `json:"effort"`
}

// chatMessage is one entry of messages. Content is a string, a []chatPart
// or nil (left out).
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// Thinking replayed for servers that want it back
	// (Compat.ReplayReasoningField), under one of the two names in use.
	ReasoningContent string `json:"reasoning_content,omitempty"`
	Reasoning        string `json:"reasoning,omitempty"`
}

type chatPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function chatToolDef `json:"function"`
}

type chatToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// buildChat encodes req as a Chat Completions request body.
func buildChat(req *llm.Request, base string, cp Compat) ([]byte, error) {
	body := chatRequest{
		Model:       req.Model.ID,
		Stream:      true,
		Temperature: req.Temperature,
		Metadata:    req.Options.Metadata,
	}
	if !cp.NoStreamOptions {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	switch cp.MaxTokensField {
	case "", "max_completion_tokens", "max_tokens":
	default:
		return nil, fmt.Errorf("Compat.MaxTokensField is %q; want \"max_completion_tokens\" or \"max_tokens\"", cp.MaxTokensField)
	}
	switch cp.ReplayReasoningField {
	case "", "reasoning_content", "reasoning":
	default:
		return nil, fmt.Errorf("Compat.ReplayReasoningField is %q; want \"reasoning_content\" or \"reasoning\"", cp.ReplayReasoningField)
	}
	if n := maxTokens(req); n > 0 {
		if cp.MaxTokensField == "max_tokens" {
			body.MaxTokens = n
		} else {
			body.MaxCompletionTokens = n
		}
	}
	if req.Model.Reasoning && !cp.NoReasoningEffort {
		eff, err := effort(req.Model.ID, req.Thinking)
		if err != nil {
			return nil, err
		}
		if eff != "" && cp.ReasoningObject {
			body.Reasoning = &effortObject{Effort: eff}
		} else {
			body.ReasoningEffort = eff
		}
	}
	if !cp.NoPromptCacheKey {
		body.PromptCacheKey = req.Options.SessionID
	}
	if sys := llm.SystemText(req.System); sys != "" {
		role := "system"
		if req.Model.Reasoning && !cp.NoDeveloperRole {
			role = "developer"
		}
		body.Messages = append(body.Messages, chatMessage{Role: role, Content: sys})
	}
	body.Messages = appendChatMessages(body.Messages, llm.Sendable(req.Messages, llm.APIOpenAIChat), &req.Model, cp)
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParams
		}
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: chatToolDef{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return marshal(body)
}

// appendChatMessages converts a sendable conversation.
func appendChatMessages(out []chatMessage, msgs []llm.Message, model *llm.Model, cp Compat) []chatMessage {
	images := acceptsImages(model)
	var pending []chatPart // images from a run of tool results
	flush := func() {
		if len(pending) > 0 {
			parts := append([]chatPart{{Type: "text", Text: toolResultImages}}, pending...)
			out = append(out, chatMessage{Role: "user", Content: parts})
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
			out = append(out, chatMessage{Role: "user", Content: userContent(m.Content, images)})
		case llm.RoleAssistant:
			if am, ok := assistantMessage(m, cp); ok {
				out = append(out, am)
			}
		case llm.RoleToolResult:
			var text strings.Builder
			for j := range m.Content {
				c := &m.Content[j]
				switch c.Type {
				case llm.ContentText:
					text.WriteString(c.Text)
				case llm.ContentImage:
					if images {
						pending = append(pending, chatPart{Type: "image_url", ImageURL: &imageURL{URL: dataURL(c)}})
					} else {
						text.WriteString(imageOmitted)
					}
				}
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: toolCallID(m.ToolCallID, cp.MaxToolCallIDLength), Content: text.String()})
		}
	}
	flush()
	return out
}

// userContent is a plain string for text-only messages, parts otherwise.
func userContent(cs []llm.Content, images bool) any {
	if len(cs) == 1 && cs[0].Type == llm.ContentText {
		return cs[0].Text
	}
	parts := make([]chatPart, 0, len(cs))
	for i := range cs {
		c := &cs[i]
		switch c.Type {
		case llm.ContentText:
			parts = append(parts, chatPart{Type: "text", Text: c.Text})
		case llm.ContentImage:
			if images {
				parts = append(parts, chatPart{Type: "image_url", ImageURL: &imageURL{URL: dataURL(c)}})
			} else {
				parts = append(parts, chatPart{Type: "text", Text: imageOmitted})
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return parts
}

// assistantMessage converts an assistant message; ok is false when
// nothing of it is sent (thinking only, say).
func assistantMessage(m *llm.Message, cp Compat) (chatMessage, bool) {
	out := chatMessage{Role: "assistant"}
	var text, reasoning strings.Builder
	for i := range m.Content {
		c := &m.Content[i]
		switch c.Type {
		case llm.ContentText:
			text.WriteString(c.Text)
		case llm.ContentThinking:
			if cp.ReplayReasoningField != "" && m.API == llm.APIOpenAIChat && c.Text != "" {
				if reasoning.Len() > 0 {
					reasoning.WriteString("\n\n")
				}
				reasoning.WriteString(c.Text)
			}
		case llm.ContentToolCall:
			out.ToolCalls = append(out.ToolCalls, chatToolCall{
				ID:       toolCallID(c.ID, cp.MaxToolCallIDLength),
				Type:     "function",
				Function: chatFunction{Name: c.Name, Arguments: c.RawArguments()},
			})
		}
	}
	if text.Len() > 0 {
		out.Content = text.String()
	}
	if reasoning.Len() > 0 {
		if cp.ReplayReasoningField == "reasoning" {
			out.Reasoning = reasoning.String()
		} else {
			out.ReasoningContent = reasoning.String()
		}
		if out.Content == nil {
			out.Content = ""
		}
	}
	return out, out.Content != nil || len(out.ToolCalls) > 0
}
