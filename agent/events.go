package agent

import (
	"encoding/json"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// EventType names a loop event.
type EventType string

// Loop events. A run is: agent_start, then per turn turn_start, the
// messages of the turn (each message_start, for assistant messages any
// number of message_update, message_end), the tool executions
// (tool_start, tool_update…, tool_end) and turn_end; and last agent_end.
const (
	EventAgentStart    EventType = "agent_start"
	EventAgentEnd      EventType = "agent_end"
	EventTurnStart     EventType = "turn_start"
	EventTurnEnd       EventType = "turn_end"
	EventMessageStart  EventType = "message_start"
	EventMessageUpdate EventType = "message_update"
	EventMessageEnd    EventType = "message_end"
	EventToolStart     EventType = "tool_start"
	EventToolUpdate    EventType = "tool_update"
	EventToolEnd       EventType = "tool_end"
)

// StopReason says why a run ended.
type StopReason string

// Run stop reasons.
const (
	// StopCompleted: the model gave its final answer.
	StopCompleted StopReason = "completed"
	// StopLength: the model's final reply was cut at its output limit.
	StopLength StopReason = "length"
	// StopMaxTurns: the turn cap was reached while the model wanted more.
	StopMaxTurns StopReason = "max_turns"
	// StopEmptyReply: the model kept replying with nothing (or thinking
	// only) after every nudge.
	StopEmptyReply StopReason = "empty_reply"
	// StopToolStop: a tool result asked to end the run (a guard's circuit
	// breaker, say); Event.Detail says why.
	StopToolStop StopReason = "tool_stop"
	// StopError: the model call failed; Event.Err is the classified cause.
	StopError StopReason = "error"
	// StopAborted: the context was cancelled.
	StopAborted StopReason = "aborted"
)

// Event is one step of a run. Fields are set according to Type:
//
//   - message_start, message_update, message_end: Message. During
//     message_start and message_update of an assistant message it is the
//     partial message, owned by the loop and valid only until the next
//     event; at message_end it is final and never changed again.
//     message_update also carries Delta, the provider event.
//   - tool_start, tool_update, tool_end: Call; tool_update and tool_end
//     carry Result (partial, then final after all middleware).
//   - turn_end: Message (the turn's assistant message) and ToolResults.
//   - agent_end: Stop, Detail, Err (for StopError), Messages (every
//     message the run added, in order) and Usage (the sum over the run).
type Event struct {
	Type        EventType
	Turn        int
	Message     *llm.Message
	Delta       *llm.Event
	Call        *llm.Content
	Result      *tool.Result
	ToolResults []llm.Message
	Stop        StopReason
	Detail      string
	Err         error
	Messages    []llm.Message
	Usage       llm.Usage
}

// eventJSON is the wire form of an Event, as written by `rein run
// --output stream-json` and other event consumers.
type eventJSON struct {
	Type        EventType     `json:"type"`
	Turn        int           `json:"turn,omitempty"`
	Message     *llm.Message  `json:"message,omitempty"`
	Delta       *llm.Event    `json:"delta,omitempty"`
	Call        *llm.Content  `json:"call,omitempty"`
	Result      *resultJSON   `json:"result,omitempty"`
	ToolResults []llm.Message `json:"tool_results,omitempty"`
	Stop        StopReason    `json:"stop,omitempty"`
	Detail      string        `json:"detail,omitempty"`
	Error       string        `json:"error,omitempty"`
	ErrorCode   llm.ErrorCode `json:"error_code,omitempty"`
	Usage       *llm.Usage    `json:"usage,omitempty"`
}

type resultJSON struct {
	Content []llm.Content `json:"content"`
	IsError bool          `json:"is_error,omitempty"`
	Stop    string        `json:"stop,omitempty"`
	Notes   []string      `json:"notes,omitempty"`
}

// MarshalJSON writes the event as one self-contained JSON object.
// message_update events carry only their delta, not the partial message,
// so that a stream of events stays linear in the size of the reply; the
// agent_end event carries the usage but not the messages, which were all
// reported by their own message_end events.
func (e Event) MarshalJSON() ([]byte, error) {
	j := eventJSON{Type: e.Type, Turn: e.Turn, Call: e.Call, ToolResults: e.ToolResults, Stop: e.Stop, Detail: e.Detail}
	switch e.Type {
	case EventMessageUpdate:
		j.Delta = e.Delta
	case EventAgentEnd:
		u := e.Usage
		j.Usage = &u
	default:
		j.Message = e.Message
	}
	if e.Result != nil {
		j.Result = &resultJSON{Content: e.Result.Content, IsError: e.Result.IsError, Stop: e.Result.Stop, Notes: e.Result.Notes}
	}
	if e.Err != nil {
		j.Error = e.Err.Error()
		j.ErrorCode = llm.CodeOf(e.Err)
	}
	return json.Marshal(j)
}
