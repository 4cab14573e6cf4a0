package session

import "github.com/reinhq/rein/llm"

// newInterner returns an intern map (see scanner) that knows the values
// of the fields read by istr that this program knows. Interning them as
// the constants they are makes the strings of a loaded log point into
// the program rather than into the heap, which leaves the garbage
// collector less to mark.
func newInterner() map[string]string {
	known := [...]string{
		string(TypeMessage), string(TypeModelChange), string(TypeThinkingChange), string(TypeToolsChange),
		string(TypeCompaction), string(TypeBranchSummary), string(TypeLeaf), string(TypeLabel),
		string(TypeSessionInfo), string(TypeCustom),
		string(llm.RoleUser), string(llm.RoleAssistant), string(llm.RoleToolResult),
		string(llm.ContentText), string(llm.ContentThinking), string(llm.ContentImage), string(llm.ContentToolCall),
		string(llm.StopEnd), string(llm.StopLength), string(llm.StopToolUse), string(llm.StopError), string(llm.StopAborted),
		string(llm.APIAnthropicMessages), string(llm.APIOpenAIChat), string(llm.APIOpenAIResponses), string(llm.APIGemini),
		string(llm.APIFaux),
		string(llm.ThinkingOff), string(llm.ThinkingMinimal), string(llm.ThinkingLow), string(llm.ThinkingMedium),
		string(llm.ThinkingHigh), string(llm.ThinkingXHigh), string(ThinkingDefault),
		string(llm.CodeRateLimit), string(llm.CodeOverloaded), string(llm.CodeAuth), string(llm.CodeBilling),
		string(llm.CodeTimeout), string(llm.CodeContextOverflow), string(llm.CodeModelNotFound), string(llm.CodeFormat),
		string(llm.CodeServerError), string(llm.CodeAborted), string(llm.CodeUnknown),
	}
	m := make(map[string]string, 2*len(known))
	for _, v := range known {
		m[v] = v
	}
	return m
}
