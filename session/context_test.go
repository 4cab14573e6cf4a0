package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

// describe renders a context's messages compactly: "user:text",
// "assistant:text", "tool:call-id", "compaction:summary", "branch:summary".
func describe(c Context) []string {
	var out []string
	for _, m := range c.Messages {
		text := m.Text()
		switch {
		case strings.HasPrefix(text, CompactionPrefix):
			out = append(out, "compaction:"+strings.TrimSuffix(strings.TrimPrefix(text, CompactionPrefix), SummarySuffix))
		case strings.HasPrefix(text, BranchPrefix):
			out = append(out, "branch:"+strings.TrimSuffix(strings.TrimPrefix(text, BranchPrefix), SummarySuffix))
		case m.Role == llm.RoleToolResult:
			out = append(out, "tool:"+m.ToolCallID)
		default:
			out = append(out, string(m.Role)+":"+text)
		}
	}
	return out
}

// convo builds the session the context tests share and returns the IDs
// of its entries by name.
func convo(t *testing.T) (*Session, map[string]string) {
	t.Helper()
	s := mustCreate(t, testOpts(t, t.TempDir()))
	ids := map[string]string{}
	add := func(name string, e Entry) {
		ids[name] = mustAppend(t, s, e).ID
	}
	msg := func(name string, m llm.Message) { add(name, Entry{Type: TypeMessage, Message: &m}) }
	add("model1", Entry{Type: TypeModelChange, Provider: "p", Model: "m1"})
	add("thinking", Entry{Type: TypeThinkingChange, Thinking: llm.ThinkingLow})
	add("tools", Entry{Type: TypeToolsChange, Tools: []string{"read"}})
	msg("u1", llm.UserText("u1"))
	msg("a1", llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.ToolCall("c1", "read", json.RawMessage(`{}`))}, StopReason: llm.StopToolUse})
	msg("r1", llm.ToolResult("c1", "read", false, llm.Text("data")))
	msg("a2", assistantText("a2"))
	add("custom", Entry{Type: TypeCustom, Kind: "note", Data: json.RawMessage(`1`)})
	msg("u2", llm.UserText("u2"))
	msg("a3", assistantText("a3"))
	return s, ids
}

func TestContext(t *testing.T) {
	tests := []struct {
		name      string
		build     func(t *testing.T, s *Session, ids map[string]string)
		want      []string
		wantModel string
		wantTools []string
		// noThinking: the thinking change is not on the path.
		noThinking bool
	}{
		{
			name:      "plain path",
			want:      []string{"user:u1", "assistant:", "tool:c1", "assistant:a2", "user:u2", "assistant:a3"},
			wantModel: "m1", wantTools: []string{"read"},
		},
		{
			name: "compaction keeps from FirstKept",
			build: func(t *testing.T, s *Session, ids map[string]string) {
				mustAppend(t, s, Entry{Type: TypeCompaction, Summary: "S1", FirstKept: ids["u2"], TokensBefore: 1000})
				s.AppendMessage(llm.UserText("u3"))
			},
			want:      []string{"compaction:S1", "user:u2", "assistant:a3", "user:u3"},
			wantModel: "m1", wantTools: []string{"read"},
		},
		{
			name: "compaction keeping nothing",
			build: func(t *testing.T, s *Session, ids map[string]string) {
				mustAppend(t, s, Entry{Type: TypeCompaction, Summary: "S1"})
				s.AppendMessage(llm.UserText("u3"))
			},
			want:      []string{"compaction:S1", "user:u3"},
			wantModel: "m1", wantTools: []string{"read"},
		},
		{
			name: "the last compaction wins",
			build: func(t *testing.T, s *Session, ids map[string]string) {
				mustAppend(t, s, Entry{Type: TypeCompaction, Summary: "S1", FirstKept: ids["u2"]})
				u3, _ := s.AppendMessage(llm.UserText("u3"))
				s.AppendMessage(assistantText("a4"))
				mustAppend(t, s, Entry{Type: TypeCompaction, Summary: "S2", FirstKept: u3.ID})
				s.AppendMessage(llm.UserText("u4"))
			},
			want:      []string{"compaction:S2", "user:u3", "assistant:a4", "user:u4"},
			wantModel: "m1", wantTools: []string{"read"},
		},
		{
			name: "an earlier compaction inside the kept range is superseded",
			build: func(t *testing.T, s *Session, ids map[string]string) {
				mustAppend(t, s, Entry{Type: TypeCompaction, Summary: "S1", FirstKept: ids["a3"]})
				s.AppendMessage(llm.UserText("u3"))
				mustAppend(t, s, Entry{Type: TypeCompaction, Summary: "S2", FirstKept: ids["u2"]})
			},
			want:      []string{"compaction:S2", "user:u2", "assistant:a3", "user:u3"},
			wantModel: "m1", wantTools: []string{"read"},
		},
		{
			name: "settings changed before and after a compaction",
			build: func(t *testing.T, s *Session, ids map[string]string) {
				mustAppend(t, s, Entry{Type: TypeCompaction, Summary: "S1", FirstKept: ids["a3"]})
				mustAppend(t, s, Entry{Type: TypeModelChange, Provider: "q", Model: "m2"})
				mustAppend(t, s, Entry{Type: TypeToolsChange, Tools: []string{}})
			},
			want:      []string{"compaction:S1", "assistant:a3"},
			wantModel: "m2", wantTools: []string{},
		},
		{
			name: "branch summary where it was created",
			build: func(t *testing.T, s *Session, ids map[string]string) {
				old := s.Leaf()
				if err := s.Navigate(ids["a2"]); err != nil {
					t.Fatal(err)
				}
				mustAppend(t, s, Entry{Type: TypeBranchSummary, From: old, Summary: "asked u2, got a3"})
				s.AppendMessage(llm.UserText("u2b"))
			},
			want:      []string{"user:u1", "assistant:", "tool:c1", "assistant:a2", "branch:asked u2, got a3", "user:u2b"},
			wantModel: "m1", wantTools: []string{"read"},
		},
		{
			name: "navigated above the settings",
			build: func(t *testing.T, s *Session, ids map[string]string) {
				s.Navigate(ids["model1"])
			},
			want:      nil,
			wantModel: "m1", noThinking: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ids := convo(t)
			if tc.build != nil {
				tc.build(t, s, ids)
			}
			c := s.Context()
			if diff := cmp.Diff(tc.want, describe(c)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			wantThinking := llm.ThinkingLow
			if tc.noThinking {
				wantThinking = ""
			}
			if c.Model != tc.wantModel || c.Thinking != wantThinking || c.Leaf != s.Leaf() {
				t.Errorf("model %q thinking %q leaf %q", c.Model, c.Thinking, c.Leaf)
			}
			if diff := cmp.Diff(tc.wantTools, c.ActiveTools); diff != "" {
				t.Errorf("active tools (-want +got):\n%s", diff)
			}
			if len(c.EntryIDs) != len(c.Messages) {
				t.Fatalf("%d entry ids for %d messages", len(c.EntryIDs), len(c.Messages))
			}
			for i, id := range c.EntryIDs {
				e, ok := s.Entry(id)
				if !ok || (e.Type == TypeMessage && e.Message.Text() != c.Messages[i].Text()) {
					t.Errorf("message %d maps to entry %q", i, id)
				}
			}
			// Readers without a session build the same context.
			s.Close()
			_, entries, _, err := ReadFile(s.Path())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c, BuildContext(entries, LastLeaf(entries))); diff != "" {
				t.Errorf("BuildContext from the file (-session +file):\n%s", diff)
			}
		})
	}
}

func TestContextEmpty(t *testing.T) {
	s := mustCreate(t, testOpts(t, t.TempDir()))
	if diff := cmp.Diff(Context{}, s.Context()); diff != "" {
		t.Fatal(diff)
	}
	if diff := cmp.Diff(Context{}, BuildContext(nil, "nope")); diff != "" {
		t.Fatal(diff)
	}
	if c := s.Context(); c.ActiveTools != nil {
		t.Fatal("no tools_change must leave ActiveTools nil")
	}
}
