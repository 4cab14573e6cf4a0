package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// sample writes a rein session with a branch, tool calls of several
// tools, thinking, a failing call and a name, and returns its path.
//
//	u1 → a1(read+bash) → r1 → r2 → a2(text) → u2 → a3(edit) → r3 → a4
//	                                   ↘ u3 → a5 (the other branch; the leaf is a4)
func sample(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	clock := time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)
	n := 0
	s, err := session.Create(session.Options{Dir: dir, Cwd: "/home/ana/shop", Now: func() time.Time {
		clock = clock.Add(time.Second)
		return clock
	}, NewID: func() string { n++; return "e" + string(rune('a'+n/26)) + string(rune('a'+n%26)) + "0000" }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := func(m llm.Message) string {
		t.Helper()
		e, err := s.AppendMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	asst := func(content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: content, Provider: "anthropic", Model: "claude-sonnet-4-5",
			API: llm.APIAnthropicMessages, ResponseID: "msg_01", Usage: &llm.Usage{Input: 100, Output: 20, CacheRead: 5, Total: 125}, StopReason: llm.StopToolUse}
	}
	add(llm.UserText("Why does TestPage fail?"))
	add(asst(llm.Thinking("Read the file first.", "EqQBCkYIBxgCKkDx"), llm.Text("Let me look."),
		llm.ToolCall("toolu_01", "read", json.RawMessage(`{"path":"store/page.go","offset":3}`)),
		llm.ToolCall("toolu_02", "bash", json.RawMessage(`{"command":"go test ./store","timeout":30}`))))
	add(llm.ToolResult("toolu_01", "read", false, llm.Text("1\tpackage store\n")))
	add(llm.ToolResult("toolu_02", "bash", true, llm.Text("--- FAIL: TestPage\nexit status 1")))
	m := asst(llm.Text("The slice end is wrong."))
	m.StopReason = llm.StopEnd
	fork := add(m)
	add(llm.UserText("Fix it."))
	add(asst(llm.ToolCall("toolu_03", "edit", json.RawMessage(`{"path":"store/page.go","edits":[{"old_text":"end := i","new_text":"end := i+1"}]}`))))
	add(llm.ToolResult("toolu_03", "edit", false, llm.Text("edited store/page.go")))
	m = asst(llm.Text("Fixed."))
	m.StopReason = llm.StopEnd
	leaf := add(m)
	if err := s.Navigate(fork); err != nil {
		t.Fatal(err)
	}
	add(llm.UserText("Try cursors instead."))
	m = asst(llm.ToolCall("toolu_04", "grep", json.RawMessage(`{"pattern":"func Page","ignore_case":true}`)))
	add(m)
	add(llm.ToolResult("toolu_04", "grep", false, llm.Text("store/page.go:7:func Page(")))
	if err := s.Navigate(leaf); err != nil {
		t.Fatal(err)
	}
	if err := s.SetName("fix pagination"); err != nil {
		t.Fatal(err)
	}
	return s.Path()
}

// shape is what a round trip must keep of a conversation: per message
// its role, texts, calls and results, and the parent of each message
// (as an index), so that tree shape is compared too.
type shapeMsg struct {
	Role    string
	Texts   []string
	Calls   []string // name + canonical arguments
	Result  string
	IsError bool
	Parent  int
}

func shapeOf(t testing.TB, entries []session.Entry, tree bool) []shapeMsg {
	t.Helper()
	var out []shapeMsg
	index := map[string]int{}
	parentOf := map[string]string{}
	for _, e := range entries {
		parentOf[e.ID] = e.Parent
	}
	list := entries
	if !tree {
		c := session.BuildContext(entries, session.LastLeaf(entries))
		list = nil
		for i := range c.Messages {
			list = append(list, session.Entry{Type: session.TypeMessage, ID: c.EntryIDs[i], Message: &c.Messages[i]})
		}
	}
	for _, e := range list {
		if e.Type != session.TypeMessage {
			continue
		}
		m := e.Message
		sm := shapeMsg{Role: string(m.Role), Parent: -1, IsError: m.IsError}
		if tree {
			p := parentOf[e.ID]
			for p != "" {
				if i, ok := index[p]; ok {
					sm.Parent = i
					break
				}
				p = parentOf[p]
			}
		}
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentText, llm.ContentThinking:
				if m.Role == llm.RoleToolResult {
					sm.Result += c.Text
				} else {
					sm.Texts = append(sm.Texts, string(c.Type)+":"+c.Text)
				}
			case llm.ContentToolCall:
				var v any
				_ = json.Unmarshal(c.Arguments, &v)
				b, _ := json.Marshal(v)
				sm.Calls = append(sm.Calls, c.ID+" "+c.Name+" "+string(b))
			}
		}
		if m.Role == llm.RoleToolResult {
			sm.Calls = []string{m.ToolCallID + " " + m.ToolName}
		}
		index[e.ID] = len(out)
		out = append(out, sm)
	}
	return out
}

// treeKeys describes a tree of messages independently of the order of
// siblings: one line per message, its path of descriptions from the
// root, sorted.
func treeKeys(msgs []shapeMsg) []string {
	keys := make([]string, len(msgs))
	for i, m := range msgs {
		own := fmt.Sprintf("%s%q%q%q%v", m.Role, m.Texts, m.Calls, m.Result, m.IsError)
		if m.Parent >= 0 {
			own = keys[m.Parent] + " / " + own
		}
		keys[i] = own
	}
	out := slices.Clone(keys)
	slices.Sort(out)
	return out
}

// roundTrip exports the session at path in format f, imports the export
// and returns the imported conversation and the exported bytes.
func roundTrip(t testing.TB, path string, f Format) (*Conversation, []byte) {
	t.Helper()
	s, err := LoadSession(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Export(&buf, s, f, Options{}); err != nil {
		t.Fatalf("export %s: %v", f, err)
	}
	c, err := Read(bytes.NewReader(buf.Bytes()), "export."+string(f), "")
	if err != nil {
		t.Fatalf("import of the %s export: %v\n%s", f, err, buf.String())
	}
	if c.Source.Format != string(f) {
		t.Fatalf("the %s export was detected as %s", f, c.Source.Format)
	}
	return c, buf.Bytes()
}

func testdata(name string) string { return filepath.Join("testdata", name) }
