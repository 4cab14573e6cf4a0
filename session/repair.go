package session

import (
	"github.com/reinhq/rein/llm"
)

// InterruptedText is the text of the synthetic error result Open gives a
// tool call that never got one.
const InterruptedText = "interrupted: the process ended before this tool call finished; its effects, if any, are unknown"

// ForkedText is the text of the synthetic error result a fork gives a
// tool call whose result is not on the forked path.
const ForkedText = "not run here: this session was forked at the call, before its result; run it again if it is still needed"

// Repair is one synthetic tool result appended when a session was opened.
type Repair struct {
	// Entry is the new tool_result entry.
	Entry string
	// Assistant is the entry of the assistant message that made the call.
	Assistant string
	// CallID and ToolName identify the call.
	CallID   string
	ToolName string
}

// repair settles what the process died in, as far as the log alone can
// decide (see recoverJournal); in a log without journal entries it
// answers every open call with InterruptedText, as it always has.
func (s *Session) repair() error { return s.recoverJournal() }

// answerOpenCalls answers the tool calls left open at the leaf. It looks at the
// tail of the active branch: the last assistant message, if only tool
// results (and non-message entries) follow it. Each of its calls without
// a result among them gets an error result with text, in the
// order the model made the calls, appended durably under the leaf, so the
// next request is well-formed. Calls left unanswered deeper in the
// branch (followed by a user message) cannot be answered in place in an
// append-only log; llm.Sendable answers them in the request.
func (s *Session) answerOpenCalls(text string) error {
	l := s.log
	answered := map[string]bool{}
	var asst *Entry
	for id := l.leaf; id != ""; {
		e, ok := l.get(id)
		if !ok {
			break
		}
		id = e.Parent
		if e.Type != TypeMessage {
			continue
		}
		if e.Message.Role == llm.RoleToolResult {
			answered[e.Message.ToolCallID] = true
			continue
		}
		if e.Message.Role == llm.RoleAssistant {
			asst = e
		}
		break
	}
	if asst == nil || asst.Message.Failed() {
		// A failed reply is left out of requests with its results.
		return nil
	}
	asstID := asst.ID
	var todo []llm.Content
	for _, c := range asst.Message.ToolCalls() {
		if !answered[c.ID] {
			todo = append(todo, c)
			answered[c.ID] = true
		}
	}
	for _, c := range todo {
		m := llm.ToolResult(c.ID, c.Name, true, llm.Text(text))
		m.Timestamp = s.opts.now().UTC()
		e := Entry{Type: TypeMessage, Message: &m}
		if err := s.fill(&e); err != nil {
			return err
		}
		if err := s.appendLine(&e); err != nil {
			return err
		}
		s.repairs = append(s.repairs, Repair{Entry: e.ID, Assistant: asstID, CallID: c.ID, ToolName: c.Name})
	}
	return nil
}
