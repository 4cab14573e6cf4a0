package harness

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

func namedTool(name string) *tool.Tool {
	return tool.MustNew(name, "does "+name, func(_ context.Context, _ *tool.Call, in echoArgs) (tool.Result, error) {
		return tool.Text(name + ":" + in.V), nil
	})
}

// TestResumeDropsToolsThatAreGone: a session made with a custom tool, a
// skill tool and an MCP tool resumes with only echo left: it opens, the
// recorded tools that still exist are active, the others are dropped
// with a log entry, a notice and a system note for the model, and their
// earlier calls and results are still sent. A later resume keeps telling
// the model without writing the entry again; an MCP tool that shows up
// late (SetTools with nil active names) is taken up again.
func TestResumeDropsToolsThatAreGone(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	first := faux.New(
		faux.Calls("", faux.Call("deploy", `{"v":"prod"}`), faux.Call("skill", `{"v":"greet"}`), faux.Call("mcp__notes__lookup", `{"v":"k1"}`)),
		faux.Text("done"))
	all := registry(t, echoTool(), namedTool("deploy"), namedTool("skill"), namedTool("mcp__notes__lookup"))
	h, err := New(Options{Provider: first, Model: faux.Model(), Store: s, Tools: all, ActiveTools: []string{"echo", "deploy", "skill", "mcp__notes__lookup"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(context.Background(), "deploy and greet"); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()

	var seen *llm.Request
	p := faux.New(faux.Reply{Func: func(_ context.Context, r *llm.Request) (llm.Message, error) {
		seen = r
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("ok")}}, nil
	}})
	s, err = session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err = New(Options{Provider: p, Model: faux.Model(), Store: s, Tools: registry(t, echoTool(), namedTool("other"))})
	if err != nil {
		t.Fatalf("resume failed: %v", err)
	}
	if got := h.ActiveTools(); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("active tools = %v, want the recorded ones that exist", got)
	}
	want := []string{"deploy", "mcp__notes__lookup", "skill"}
	if got := h.GoneTools(); !slices.Equal(got, want) {
		t.Fatalf("gone = %v", got)
	}
	var notices []string
	h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == EventContextNotice {
			notices = append(notices, e.Detail)
		}
		return nil
	})
	if _, err := h.Prompt(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "deploy, mcp__notes__lookup, skill") {
		t.Fatalf("notices = %q", notices)
	}
	sys := ""
	for _, part := range seen.System {
		sys += part.Text
	}
	if !strings.Contains(sys, "no longer exist and are not offered: deploy, mcp__notes__lookup, skill") {
		t.Fatalf("the model was not told: %q", sys)
	}
	if len(seen.Tools) != 1 || seen.Tools[0].Name != "echo" {
		t.Fatalf("tools offered: %+v", seen.Tools)
	}
	results := 0
	for _, m := range seen.Messages {
		if m.Role == llm.RoleToolResult && strings.Contains(m.Text(), ":") {
			results++
		}
	}
	if results != 3 {
		t.Fatalf("%d earlier results sent, want 3", results)
	}
	s.Close()

	// Again: the model is still told, the entry is not written twice;
	// the MCP tool comes back late and is active again.
	s, err = session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h, err = New(Options{Provider: faux.New(faux.Text("fine")), Model: faux.Model(), Store: s, Tools: registry(t, echoTool())})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.GoneTools(); !slices.Equal(got, want) {
		t.Fatalf("second resume: gone = %v", got)
	}
	if err := h.SetTools(registry(t, echoTool(), namedTool("mcp__notes__lookup")), nil); err != nil {
		t.Fatal(err)
	}
	if got := h.ActiveTools(); !slices.Equal(got, []string{"echo"}) {
		// The log recorded echo only since the first resume.
		t.Fatalf("active after the MCP tool came back = %v", got)
	}
	if _, err := h.Prompt(context.Background(), "more"); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range s.Entries() {
		if e.Type == session.TypeCustom && e.Kind == KindToolsGone {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d %s entries, want 1", n, KindToolsGone)
	}
}
