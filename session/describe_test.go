package session

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

// A listing's title: the name wins over the first message, imported and
// damaged sessions say so, and sub-agents are marked and indented.
func TestInfoTitle(t *testing.T) {
	tests := []struct {
		in    Nested
		title string
		inset string
	}{
		{Nested{Info: Info{FirstMessage: "fix the bug"}}, "fix the bug", ""},
		{Nested{Info: Info{FirstMessage: "fix the bug", Name: "bugfix"}}, "bugfix", ""},
		{Nested{Info: Info{FirstMessage: "hi", Source: &Source{Format: "pi"}, Issues: 1}}, "hi [from pi] [1 issue]", ""},
		{Nested{Info: Info{FirstMessage: "hi", Issues: 3}}, "hi [3 issues]", ""},
		{Nested{Info: Info{FirstMessage: "look", Agent: &AgentLink{Type: "Explore"}}, Depth: 1}, "[agent Explore] look", "└ "},
		{Nested{Info: Info{FirstMessage: "deeper", Agent: &AgentLink{Type: "general"}}, Depth: 3}, "[agent general] deeper", "    └ "},
		// A sub-agent whose parent is not listed stands at depth 0, unmarked.
		{Nested{Info: Info{FirstMessage: "orphan", Agent: &AgentLink{Type: "Explore"}}}, "orphan", ""},
	}
	for _, tc := range tests {
		if got := tc.in.Title(); got != tc.title {
			t.Errorf("Title() = %q, want %q", got, tc.title)
		}
		if got := tc.in.Indent(); got != tc.inset {
			t.Errorf("Indent() = %q, want %q", got, tc.inset)
		}
	}
}

// LoadNotes names the file and line of what loading set aside, then the
// interrupted calls it repaired; a clean log has none.
func TestLoadNotes(t *testing.T) {
	opts := testOpts(t, t.TempDir())
	s := mustCreate(t, opts)
	if _, err := s.AppendMessage(llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(calls("c1")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	clean, err := Open(s.Path(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if notes := clean.LoadNotes(); len(notes) != 1 || notes[0] != "repaired: the bash call c1 was interrupted; recorded it as failed" {
		t.Errorf("notes: %q", notes)
	}
	clean.Close()
	again, err := Open(s.Path(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if notes := again.LoadNotes(); notes != nil {
		t.Errorf("a repaired log has notes: %q", notes)
	}
	again.Close()

	f, err := os.OpenFile(s.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, `{"type":"message","id":"tor`)
	f.Close()
	torn, err := Open(s.Path(), Options{Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer torn.Close()
	notes := torn.LoadNotes()
	if len(notes) != 1 || !strings.HasPrefix(notes[0], s.Path()+":") || !strings.Contains(notes[0], ": "+string(IssueTornLine)+": ") {
		t.Errorf("notes after a torn line: %q", notes)
	}
}
