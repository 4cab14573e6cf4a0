package prompt

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reinhq/rein/llm"
)

// Shown is a first request's fixed part in the JSON form `rein prompt
// show --json` prints: the system parts, the tool specs and their sizes.
type Shown struct {
	System      []llm.SystemPart `json:"system"`
	Tools       []llm.ToolSpec   `json:"tools"`
	StableBytes int              `json:"stable_bytes"`
	SystemBytes int              `json:"system_bytes"`
	ToolBytes   int              `json:"tool_bytes"`
	TotalBytes  int              `json:"total_bytes"`
	Tokens      int              `json:"estimated_tokens"`
}

// Show measures a system prompt and tool specs (see Measure).
func Show(system []llm.SystemPart, tools []llm.ToolSpec) Shown {
	size := Measure(system, tools)
	return Shown{system, tools, size.StableBytes, size.SystemBytes, size.ToolBytes, size.Total(), size.Tokens()}
}

// WriteText writes s for people: the system prompt by tier (see
// Render), each tool with its size, the first line of its description
// and its parameters, then a line of the sizes.
func (s Shown) WriteText(w io.Writer) error {
	if err := Render(w, s.System); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n──── tools (%d) ────\n", len(s.Tools))
	for _, t := range s.Tools {
		b, _ := json.Marshal(t)
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(w, "%s (%d bytes): %s\n  parameters: %s\n", t.Name, len(b), desc, t.Parameters)
	}
	_, err := fmt.Fprintf(w, "\nsystem prompt %d bytes (%d above the cache boundary) + %d tool schemas %d bytes = %d bytes, about %d tokens\n",
		s.SystemBytes, s.StableBytes, len(s.Tools), s.ToolBytes, s.TotalBytes, s.Tokens)
	return err
}
