package coding

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/trajectory"
)

// ReadConversation reads a recording as a conversation: a rein session
// log gives its messages (the path to its leaf, compacted parts
// included); other formats give their tool calls and results, one
// assistant message a turn. The second result names the format.
func ReadConversation(path string) ([]llm.Message, string, error) {
	if h, entries, _, err := session.ReadFile(path); err == nil && h.Type == session.HeaderType {
		return reinMessages(entries), "rein", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	s, err := trajectory.Read(f, path)
	if err != nil {
		return nil, "", err
	}
	return callMessages(s), string(s.Format), nil
}

// reinMessages returns the messages on the path from the root to the
// log's leaf, compaction summaries left out: the whole conversation as
// it happened.
func reinMessages(entries []session.Entry) []llm.Message {
	byID := make(map[string]*session.Entry, len(entries))
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
	}
	var path []llm.Message
	for id := session.LastLeaf(entries); id != ""; {
		e, ok := byID[id]
		if !ok {
			break
		}
		if e.Type == session.TypeMessage && e.Message != nil {
			path = append(path, *e.Message)
		}
		id = e.Parent
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// callMessages turns recorded calls into a conversation: a task message,
// then per turn an assistant message with its calls and their results.
func callMessages(s *trajectory.Session) []llm.Message {
	msgs := []llm.Message{llm.UserText("(recorded task)")}
	var cur *llm.Message
	var results []llm.Message
	turn := -1
	flush := func() {
		if cur != nil {
			msgs = append(msgs, *cur)
			msgs = append(msgs, results...)
		}
		cur, results = nil, nil
	}
	for i, c := range s.Calls {
		if c.Turn != turn || cur == nil {
			flush()
			turn = c.Turn
			cur = &llm.Message{Role: llm.RoleAssistant}
		}
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		args := c.Args
		if !json.Valid(args) || len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		cur.Content = append(cur.Content, llm.ToolCall(id, c.Tool, args))
		results = append(results, llm.ToolResult(id, c.Tool, c.IsError, llm.Text(c.Result)))
	}
	flush()
	return append(msgs, llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("(end of recording)")}})
}
