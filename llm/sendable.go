package llm

// Sendable returns the conversation as a provider for api should send it.
// It never modifies msgs; messages it changes are copies.
//
//   - Assistant messages that failed (stop reason error or aborted) or hold
//     no content are left out, with the tool results answering their calls.
//   - Thinking from another API cannot be verified by this one: its text
//     is kept as a plain text block, and redacted thinking is left out.
//   - A tool call with no result (a process died while it ran) gets a
//     synthetic error result right after the other results of its batch,
//     and a tool result that answers no earlier call is left out, so that
//     every request is well-formed.
func Sendable(msgs []Message, api API) []Message {
	out := make([]Message, 0, len(msgs)+1)
	pending := map[string]string{} // call id -> tool name, awaiting a result
	var order []string
	flush := func() {
		for _, id := range order {
			if name, ok := pending[id]; ok {
				out = append(out, ToolResult(id, name, true, Text("No result was recorded for this tool call; it was interrupted before it finished.")))
				delete(pending, id)
			}
		}
		order = order[:0]
	}
	skipped := map[string]bool{}
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case RoleAssistant:
			flush()
			if m.Failed() || len(m.Content) == 0 {
				for _, c := range m.Content {
					if c.Type == ContentToolCall {
						skipped[c.ID] = true
					}
				}
				continue
			}
			am := *m
			if m.API != api && hasThinking(m) {
				am.Content = make([]Content, 0, len(m.Content))
				for _, c := range m.Content {
					if c.Type == ContentThinking {
						if c.Redacted || c.Text == "" {
							continue
						}
						c = Text(c.Text)
					}
					am.Content = append(am.Content, c)
				}
				if len(am.Content) == 0 {
					continue
				}
			}
			for _, c := range am.Content {
				if c.Type == ContentToolCall {
					pending[c.ID] = c.Name
					order = append(order, c.ID)
				}
			}
			out = append(out, am)
		case RoleToolResult:
			if _, ok := pending[m.ToolCallID]; !ok || skipped[m.ToolCallID] {
				continue
			}
			delete(pending, m.ToolCallID)
			out = append(out, *m)
		default:
			flush()
			out = append(out, *m)
		}
	}
	flush()
	return out
}

func hasThinking(m *Message) bool {
	for _, c := range m.Content {
		if c.Type == ContentThinking {
			return true
		}
	}
	return false
}
