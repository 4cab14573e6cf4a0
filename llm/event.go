package llm

// EventType names a streaming event.
type EventType string

// Streaming event types. A well-formed stream is: start, then any number
// of block events (each block opened, extended and closed with its content
// index), then exactly one of done or error.
const (
	EventStart         EventType = "start"
	EventTextStart     EventType = "text_start"
	EventTextDelta     EventType = "text_delta"
	EventTextEnd       EventType = "text_end"
	EventThinkingStart EventType = "thinking_start"
	EventThinkingDelta EventType = "thinking_delta"
	EventThinkingEnd   EventType = "thinking_end"
	EventToolCallStart EventType = "toolcall_start"
	EventToolCallDelta EventType = "toolcall_delta"
	EventToolCallEnd   EventType = "toolcall_end"
	EventDone          EventType = "done"
	EventError         EventType = "error"
)

// Event is one step of a streamed assistant message.
//
//   - start carries Message with the reply's metadata (provider, model,
//     response id) and no content.
//   - *_start carries Index and, for tool calls, Content with ID and Name.
//   - *_delta carries Index and Delta (text, reasoning, or a fragment of
//     the tool call's JSON arguments).
//   - *_end carries Index and Content, the finished block.
//   - done and error carry Message, the complete final message. For error
//     its StopReason is error or aborted and ErrorMessage says why.
type Event struct {
	Type    EventType `json:"type"`
	Index   int       `json:"index"`
	Delta   string    `json:"delta,omitempty"`
	Content *Content  `json:"content,omitempty"`
	Message *Message  `json:"message,omitempty"`
}

// Final reports whether the event ends the stream.
func (e *Event) Final() bool { return e.Type == EventDone || e.Type == EventError }
