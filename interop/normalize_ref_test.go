package interop

// The in-memory normalisation the import pipeline (stream.go) replaced,
// kept as the reference the pipeline is checked against.

import (
	"fmt"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// normalize makes imported entries a conversation rein can continue:
// calls to tools rein lacks become text (with their results), messages
// of the same role in a row are merged where the tree does not branch,
// and every call gets a result. Entries must come parents first; the
// returned ones do too.
func normalize(entries []session.Entry, r *Report) []session.Entry {
	entries = textifyCalls(entries, r)
	entries = mergeRoles(entries, r)
	entries = answerCalls(entries, r)
	for i := range entries {
		if m := entries[i].Message; m != nil {
			r.Messages++
			r.Calls += len(m.ToolCalls())
		}
	}
	return entries
}

// textifyCalls turns calls to tools rein does not have into text in
// their assistant message, and moves their results there too.
func textifyCalls(entries []session.Entry, r *Report) []session.Entry {
	out := entries[:0]
	index := make(map[string]int, len(entries))
	owner := map[string]int{} // call id -> index in out of the message holding its text
	gone := alias{}
	names := map[string]string{}
	for _, e := range entries {
		e.Parent = gone.resolve(e.Parent)
		if m := e.Message; m != nil && m.Role == llm.RoleToolResult && m.ToolName == "" {
			m.ToolName = names[m.ToolCallID]
		}
		if m := e.Message; m != nil && m.Role == llm.RoleAssistant {
			for _, c := range m.Content {
				if c.Type == llm.ContentToolCall {
					names[c.ID] = c.Name
				}
			}
			changed := false
			for _, c := range m.Content {
				if c.Type == llm.ContentToolCall && !isReinTool(c.Name) {
					changed = true
				}
			}
			if changed {
				nm := m.Clone()
				for i, c := range nm.Content {
					if c.Type == llm.ContentToolCall && !isReinTool(c.Name) {
						nm.Content[i] = llm.Text(fmt.Sprintf("[tool call %s, id %s]\n%s", c.Name, c.ID, c.RawArguments()))
						owner[c.ID] = len(out)
						r.TextCalls++
					}
				}
				e.Message = &nm
			}
		}
		if m := e.Message; m != nil && m.Role == llm.RoleToolResult {
			if at, ok := owner[m.ToolCallID]; ok {
				word := "result"
				if m.IsError {
					word = "error"
				}
				am := out[at].Message
				am.Content = append(am.Content, llm.Text(fmt.Sprintf("[%s of %s, id %s]\n%s", word, m.ToolName, m.ToolCallID, m.Text())))
				delete(owner, m.ToolCallID)
				gone[e.ID] = e.Parent
				continue
			}
		}
		index[e.ID] = len(out)
		out = append(out, e)
	}
	return out
}

// mergeRoles folds a user or assistant message into its parent when the
// parent is a message of the same role with no other child.
func mergeRoles(entries []session.Entry, r *Report) []session.Entry {
	children := make(map[string]int, len(entries))
	for _, e := range entries {
		if e.IsTree() {
			children[e.Parent]++
		}
	}
	out := entries[:0]
	index := make(map[string]int, len(entries))
	gone := alias{}
	for _, e := range entries {
		e.Parent = gone.resolve(e.Parent)
		if m := e.Message; m != nil && (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) && e.Parent != "" {
			if at, ok := index[e.Parent]; ok && children[e.Parent] == 1 {
				if pm := out[at].Message; pm != nil && pm.Role == m.Role && !pm.Failed() && !m.Failed() {
					merged := *pm
					merged.Content = append(append([]llm.Content(nil), pm.Content...), m.Content...)
					if m.Usage != nil {
						merged.Usage = m.Usage
					}
					if m.StopReason != "" {
						merged.StopReason = m.StopReason
					}
					out[at].Message = &merged
					gone[e.ID] = e.Parent
					children[e.Parent] = children[e.ID]
					r.Merged++
					continue
				}
			}
		}
		index[e.ID] = len(out)
		out = append(out, e)
	}
	return out
}

// answerCalls gives every call a result: where a branch goes on (or
// ends) after an assistant message without results for all its calls,
// error results saying they were not recorded are put in between. A
// result that answers no open call is dropped and reported.
func answerCalls(entries []session.Entry, r *Report) []session.Entry {
	type call struct{ id, name string }
	open := make(map[string][]call, len(entries)) // entry id -> calls still open after it
	hasChild := make(map[string]bool, len(entries))
	used := make(map[string]bool, len(entries))
	for _, e := range entries {
		used[e.ID] = true
	}
	synth := map[string]string{} // entry id -> end of the synthetic results after it
	stamps := make(map[string]time.Time, len(entries))
	out := make([]session.Entry, 0, len(entries))
	gone := alias{}
	fill := func(parent string) string {
		if end, ok := synth[parent]; ok {
			return end
		}
		at := parent
		ts := stamps[parent]
		for i, c := range open[parent] {
			id := fmt.Sprintf("%s.r%d", parent, i)
			for used[id] {
				id += "x"
			}
			used[id] = true
			m := llm.ToolResult(c.id, c.name, true, llm.Text(NotRecorded))
			m.Timestamp = ts
			out = append(out, session.Entry{Type: session.TypeMessage, ID: id, Parent: at, Timestamp: ts, Message: &m})
			r.Synthetic++
			at = id
		}
		synth[parent] = at
		return at
	}
	for _, e := range entries {
		e.Parent = gone.resolve(e.Parent)
		pending := open[e.Parent]
		if m := e.Message; m != nil && m.Role == llm.RoleToolResult {
			k := -1
			for i, c := range pending {
				if c.id == m.ToolCallID {
					k = i
				}
			}
			if k < 0 {
				r.drop("", "tool result "+m.ToolCallID, "it answers no call of the assistant message before it")
				gone[e.ID] = e.Parent
				continue
			}
			rest := append(append([]call(nil), pending[:k]...), pending[k+1:]...)
			if len(rest) > 0 {
				open[e.ID] = rest
			}
		} else if e.IsTree() {
			if len(pending) > 0 {
				e.Parent = fill(e.Parent)
			}
			if m := e.Message; m != nil && m.Role == llm.RoleAssistant {
				var calls []call
				for _, c := range m.ToolCalls() {
					calls = append(calls, call{c.ID, c.Name})
				}
				if len(calls) > 0 {
					open[e.ID] = calls
				}
			}
		}
		if e.IsTree() {
			hasChild[e.Parent] = true
		}
		stamps[e.ID] = e.Timestamp
		out = append(out, e)
	}
	// Branches that end with calls still open.
	for i, n := 0, len(out); i < n; i++ {
		if id := out[i].ID; len(open[id]) > 0 && !hasChild[id] {
			fill(id)
		}
	}
	return out
}

// orphans re-attaches entries whose parent is not among the entries
// before them (a skipped line, a side file) to the tree entry before
// them, and reports it.
func orphans(entries []session.Entry, r *Report, name string) []session.Entry {
	seen := make(map[string]bool, len(entries))
	prev := ""
	out := entries[:0]
	for _, e := range entries {
		if seen[e.ID] {
			r.drop(name, "entry "+e.ID, "its id repeats an earlier entry's")
			continue
		}
		if e.Parent != "" && !seen[e.Parent] {
			r.drop(name, "the parent link of entry "+e.ID, fmt.Sprintf("its parent %s is not in the file; attached to the entry before it", e.Parent))
			e.Parent = prev
		}
		seen[e.ID] = true
		if e.IsTree() {
			prev = e.ID
		}
		out = append(out, e)
	}
	return out
}
