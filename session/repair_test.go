package session

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

// checkWellFormed asserts what every provider needs: each tool call is
// answered by exactly one result before the next non-result message, and
// each result answers a call.
func checkWellFormed(t *testing.T, msgs []llm.Message) {
	t.Helper()
	pending := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleToolResult:
			if !pending[m.ToolCallID] {
				t.Fatalf("message %d answers %q, which is not pending", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			t.Fatalf("message %d (%s) comes while calls %v are unanswered", i, m.Role, pending)
		}
		for _, c := range m.ToolCalls() {
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		t.Fatalf("calls %v are never answered", pending)
	}
}

func call(id string) llm.Content {
	return llm.ToolCall(id, "bash", json.RawMessage(`{"command":"ls"}`))
}

func calls(ids ...string) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, API: llm.APIAnthropicMessages}
	for _, id := range ids {
		m.Content = append(m.Content, call(id))
	}
	return m
}

func result(id string) llm.Message { return llm.ToolResult(id, "bash", false, llm.Text("out")) }

func TestRepairOnOpen(t *testing.T) {
	failed := calls("f1")
	failed.StopReason = llm.StopError
	tests := []struct {
		name  string
		msgs  []llm.Message
		extra []Entry // appended after msgs
		want  []string
	}{
		{"no results at all", []llm.Message{llm.UserText("go"), calls("c1", "c2")}, nil, []string{"c1", "c2"}},
		{"one of two answered", []llm.Message{llm.UserText("go"), calls("c1", "c2"), result("c1")}, nil, []string{"c2"}},
		{"answered out of order", []llm.Message{llm.UserText("go"), calls("c1", "c2", "c3"), result("c2")}, nil, []string{"c1", "c3"}},
		{"all answered", []llm.Message{llm.UserText("go"), calls("c1"), result("c1")}, nil, nil},
		{"settings written after the call", []llm.Message{llm.UserText("go"), calls("c1")},
			[]Entry{{Type: TypeModelChange, Model: "m2"}, {Type: TypeCustom, Kind: "k"}}, []string{"c1"}},
		{"failed reply is left alone", []llm.Message{llm.UserText("go"), failed}, nil, nil},
		{"plain answer", []llm.Message{llm.UserText("go"), assistantText("done")}, nil, nil},
		{"unanswered call deeper in the branch", []llm.Message{llm.UserText("go"), calls("c1"), llm.UserText("steer")}, nil, nil},
		{"only a prompt", []llm.Message{llm.UserText("go")}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOpts(t, t.TempDir())
			s := mustCreate(t, opts)
			for _, m := range tc.msgs {
				if _, err := s.AppendMessage(m); err != nil {
					t.Fatal(err)
				}
			}
			for _, e := range tc.extra {
				mustAppend(t, s, e)
			}
			var asst string // the last assistant message on the branch
			for id := s.Leaf(); id != "" && asst == ""; {
				e, _ := s.Entry(id)
				if e.Type == TypeMessage && e.Message.Role == llm.RoleAssistant {
					asst = e.ID
				}
				id = e.Parent
			}
			s.Close()

			r, err := Open(s.Path(), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rp := range r.Repairs() {
				got = append(got, rp.CallID)
				e, ok := r.Entry(rp.Entry)
				if !ok || rp.Assistant != asst || rp.ToolName != "bash" {
					t.Errorf("repair %+v (entry found %v)", rp, ok)
				}
				m := e.Message
				if m.Role != llm.RoleToolResult || !m.IsError || m.ToolCallID != rp.CallID || m.Text() != InterruptedText {
					t.Errorf("repair message %+v", m)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("repaired calls (-want +got):\n%s", diff)
			}
			checkWellFormed(t, llm.Sendable(r.Context().Messages, llm.APIAnthropicMessages))
			r.Close()

			// The repair is durable: opening again repairs nothing more.
			again, err := Open(s.Path(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if n := len(again.Repairs()); n != 0 {
				t.Errorf("second open repaired %d more calls", n)
			}
			if diff := cmp.Diff(r.Entries(), again.Entries()); diff != "" {
				t.Errorf("entries changed on the second open (-first +second):\n%s", diff)
			}
		})
	}
}

// TestRepairOnFork: a fork at an assistant message whose calls are
// answered later in the source is repaired in the fork only.
func TestRepairOnFork(t *testing.T) {
	s := mustCreate(t, testOpts(t, t.TempDir()))
	s.AppendMessage(llm.UserText("go"))
	a, _ := s.AppendMessage(calls("c1"))
	s.AppendMessage(result("c1"))
	f, err := s.Fork(a.ID, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := f.Repairs(); len(r) != 1 || r[0].CallID != "c1" {
		t.Fatalf("fork repairs %+v", r)
	}
	checkWellFormed(t, f.Context().Messages)
	if len(s.Repairs()) != 0 {
		t.Fatal("the source was repaired")
	}
	// The fork's synthetic result says why the call has no result there.
	msgs := f.Context().Messages
	if last := msgs[len(msgs)-1]; last.Text() != ForkedText || !last.IsError {
		t.Fatalf("fork result %q", last.Text())
	}
}

// ForkFile reads a session another holder has open and locked, writes
// nothing to it (not even a repair of its dangling call), and forks it.
func TestForkFileOfSessionInUse(t *testing.T) {
	dir := t.TempDir()
	s := mustCreate(t, testOpts(t, dir))
	defer s.Close()
	s.AppendMessage(llm.UserText("go"))
	a, _ := s.AppendMessage(calls("c1")) // left without a result
	if err := s.Label(a.ID, "here"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path())
	f, err := ForkFile(s.Path(), "", Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if after, _ := os.ReadFile(s.Path()); string(after) != string(before) {
		t.Fatal("ForkFile wrote to the source")
	}
	if f.Header().Parent != s.ID() || len(f.Repairs()) != 1 || f.Labels()[a.ID] != "here" {
		t.Fatalf("fork: parent %q, repairs %+v, labels %v", f.Header().Parent, f.Repairs(), f.Labels())
	}
	checkWellFormed(t, f.Context().Messages)
	if _, err := ForkFile(s.Path(), "nosuch", Options{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fork at a missing entry: %v", err)
	}
}
