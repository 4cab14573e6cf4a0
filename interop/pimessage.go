package interop

import (
	"encoding/json"

	"github.com/reinhq/rein/llm"
)

// PiMessage writes m as pi's AgentMessage JSON (a user, assistant or
// toolResult message, with pi's tool names and block types), the shape
// of pi's session files and of its RPC mode's events.
func PiMessage(m *llm.Message) (json.RawMessage, error) {
	var pm piMessageOut
	if _, err := piFromMessage(m, nil, &pm, nil); err != nil {
		return nil, err
	}
	return json.Marshal(&pm)
}
