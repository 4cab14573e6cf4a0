package session_test

import (
	"fmt"
	"os"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// A session is created once, appended to as the conversation goes, and
// reopened later; Context gives the messages of the next request.
func Example() {
	workspace, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(workspace)

	s, err := session.Create(session.Options{Cwd: workspace})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Append(session.Entry{Type: session.TypeModelChange, Provider: "anthropic", Model: "claude-sonnet-4-5"})
	first, _ := s.AppendMessage(llm.UserText("What is in go.mod?"))
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("A module named example.")}})
	s.Close()

	// Later, in another process: reopen, go back to the first prompt and
	// branch from there.
	infos, _ := session.List(session.DefaultDir(workspace))
	s, err = session.Open(infos[0].Path, session.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	s.Navigate(first.ID)
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Let me read it.")}})
	c := s.Context()
	for _, m := range c.Messages {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	fmt.Println("model:", c.Model)
	// Output:
	// user: What is in go.mod?
	// assistant: Let me read it.
	// model: claude-sonnet-4-5
}
