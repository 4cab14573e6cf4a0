package llm

import (
	"encoding/json"
	"strings"
	"time"
)

// Role says who produced a message.
type Role string

// The three roles a conversation holds.
const (
	RoleUser       Role = "user"
	RoleAssistant  Role = "assistant"
	RoleToolResult Role = "tool_result"
)

// ContentType discriminates the variants of Content.
type ContentType string

// Content block kinds.
const (
	ContentText     ContentType = "text"
	ContentThinking ContentType = "thinking"
	ContentImage    ContentType = "image"
	ContentToolCall ContentType = "tool_call"
)

// Content is one block of a message. It is a tagged union: Type says which
// fields are meaningful.
//
//   - text:      Text (and Signature when a provider signs text, as Gemini does)
//   - thinking:  Text is the reasoning shown to the user; Signature is the
//     provider's opaque signature that must be sent back unchanged on later
//     turns; Redacted marks a block whose reasoning is encrypted, in which
//     case Signature holds the opaque data and Text is empty
//   - image:     Data (base64) and MIMEType
//   - tool_call: ID, Name and Arguments
//
// Provider-specific data that rein does not model is kept verbatim in
// Extra so that it can be sent back or inspected, never dropped.
type Content struct {
	Type      ContentType     `json:"type"`
	Text      string          `json:"text,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Redacted  bool            `json:"redacted,omitempty"`
	Data      string          `json:"data,omitempty"`
	MIMEType  string          `json:"mime_type,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Extra     json.RawMessage `json:"extra,omitempty"`
}

// Text returns a text block.
func Text(s string) Content { return Content{Type: ContentText, Text: s} }

// Thinking returns a thinking block with an optional signature.
func Thinking(text, signature string) Content {
	return Content{Type: ContentThinking, Text: text, Signature: signature}
}

// Image returns an image block from base64 data.
func Image(base64Data, mimeType string) Content {
	return Content{Type: ContentImage, Data: base64Data, MIMEType: mimeType}
}

// ToolCall returns a tool-call block. Arguments must be valid JSON; nil
// arguments are stored as an empty object.
func ToolCall(id, name string, args json.RawMessage) Content {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return Content{Type: ContentToolCall, ID: id, Name: name, Arguments: args}
}

// ArgumentsObject reports whether a tool call's arguments are a JSON
// object. When a model streams arguments that do not parse, the
// accumulator keeps the raw text as a JSON string so nothing is lost; such
// a call is not an object and must be answered with an error result.
func (c Content) ArgumentsObject() bool {
	for _, b := range c.Arguments {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}

// RawArguments returns the arguments as the model wrote them: the object
// text when they parsed, or the unparsed text otherwise.
func (c Content) RawArguments() string {
	if c.ArgumentsObject() {
		return string(c.Arguments)
	}
	var s string
	if json.Unmarshal(c.Arguments, &s) == nil {
		return s
	}
	return string(c.Arguments)
}

// StopReason says why a model stopped producing an assistant message.
type StopReason string

// Stop reasons of an assistant message.
const (
	StopEnd     StopReason = "stop"
	StopLength  StopReason = "length"
	StopToolUse StopReason = "tool_use"
	StopError   StopReason = "error"
	StopAborted StopReason = "aborted"
)

// Message is one entry of a conversation. Which fields are meaningful
// depends on Role:
//
//   - user: Content (text and images)
//   - assistant: Content plus the provider metadata below
//   - tool_result: ToolCallID, ToolName, Content, IsError
type Message struct {
	Role    Role      `json:"role"`
	Content []Content `json:"content"`

	// Tool results.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	// Notes are the labels middleware gave the result to say what it did
	// ("guard:block:cascade", "guard:cached", "truncated"). They are kept
	// in session logs, so that a replay knows which results the guard
	// wrote, and never sent to a model.
	Notes []string `json:"notes,omitempty"`

	// Assistant messages.
	Provider     string     `json:"provider,omitempty"`
	Model        string     `json:"model,omitempty"`
	API          API        `json:"api,omitempty"`
	ResponseID   string     `json:"response_id,omitempty"`
	Usage        *Usage     `json:"usage,omitempty"`
	StopReason   StopReason `json:"stop_reason,omitempty"`
	ErrorCode    ErrorCode  `json:"error_code,omitempty"`
	ErrorMessage string     `json:"error_message,omitempty"`

	Timestamp time.Time `json:"timestamp,omitzero"`

	// Extra carries provider-specific message data verbatim.
	Extra json.RawMessage `json:"extra,omitempty"`
}

// UserText returns a user message holding one text block.
func UserText(s string) Message {
	return Message{Role: RoleUser, Content: []Content{Text(s)}}
}

// ToolResult returns a tool-result message answering the call with id.
func ToolResult(callID, toolName string, isError bool, content ...Content) Message {
	return Message{Role: RoleToolResult, ToolCallID: callID, ToolName: toolName, IsError: isError, Content: content}
}

// Text concatenates the message's text blocks.
func (m *Message) Text() string {
	var n int
	var only string
	for _, c := range m.Content {
		if c.Type == ContentText {
			n++
			only = c.Text
		}
	}
	if n <= 1 {
		return only
	}
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == ContentText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the message's tool-call blocks in the order the model
// issued them.
func (m *Message) ToolCalls() []Content {
	var calls []Content
	for _, c := range m.Content {
		if c.Type == ContentToolCall {
			if calls == nil {
				calls = make([]Content, 0, 2)
			}
			calls = append(calls, c)
		}
	}
	return calls
}

// HasVisibleOutput reports whether an assistant message contains text or
// tool calls, as opposed to nothing or thinking only.
func (m *Message) HasVisibleOutput() bool {
	for _, c := range m.Content {
		switch c.Type {
		case ContentToolCall:
			return true
		case ContentText:
			if strings.TrimSpace(c.Text) != "" {
				return true
			}
		}
	}
	return false
}

// Failed reports whether an assistant message ended in an error or abort.
// Such messages are kept in logs but providers do not send them back.
func (m *Message) Failed() bool {
	return m.StopReason == StopError || m.StopReason == StopAborted
}

// Clone returns a deep copy of the message's slices so that the copy can
// be changed without affecting the original. Raw JSON is shared, as it is
// never modified in place.
func (m *Message) Clone() Message {
	c := *m
	if m.Content != nil {
		c.Content = append([]Content(nil), m.Content...)
	}
	if m.Usage != nil {
		u := *m.Usage
		c.Usage = &u
	}
	if m.Notes != nil {
		c.Notes = append([]string(nil), m.Notes...)
	}
	return c
}
