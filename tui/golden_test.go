package tui

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The transcript view of a resumed conversation — a prompt, folded
// thinking, markdown, a tool call with its result, a list and code — is
// pinned as the screen shows it (styles stripped), so that a change of
// the rendering shows in review. go test -run TestTranscriptGolden
// -update rewrites it.
func TestTranscriptGolden(t *testing.T) {
	clock := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	conv := []llm.Message{
		llm.UserText("what does a.txt say?"),
		{Role: llm.RoleAssistant, Content: []llm.Content{
			llm.Thinking("Look at the file first.\nThen answer.", ""),
			llm.Text("Reading **a.txt**."),
			llm.ToolCall("call_1", "read", []byte(`{"path": "a.txt"}`)),
		}},
		llm.ToolResult("call_1", "read", false, llm.Text("     1\thello\n     2\tworld")),
		{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("The file says *hello world*:\n\n- line one: `hello`\n- line two: `world`\n\n```sh\ncat a.txt\n```")}},
	}
	d := newDriver(t, Options{Conversation: conv, Now: clock})
	d.update(tea.WindowSizeMsg{Width: 80, Height: 30})
	got := []byte(d.screen())
	path := filepath.Join("testdata", "transcript.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (-update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the transcript view changed; if that is intended, go test ./tui -run TestTranscriptGolden -update.\n--- got:\n%s\n--- want:\n%s", got, want)
	}
}
