package coding

import (
	"encoding/json"
	"strings"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
)

// FinalText is a run's answer: the work_complete summary when the model
// called it (strict mode), else the text of the last assistant message.
func FinalText(res harness.Result) string {
	for i := len(res.Messages) - 1; i >= 0; i-- {
		m := &res.Messages[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		for _, c := range m.Content {
			if c.Type == llm.ContentToolCall && c.Name == harness.WorkCompleteTool {
				var args struct {
					Summary string `json:"summary"`
				}
				if json.Unmarshal(c.Arguments, &args) == nil && strings.TrimSpace(args.Summary) != "" {
					return args.Summary
				}
			}
		}
		break
	}
	return res.Text()
}
