package interop

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

const withSubagent = "testdata/claude/with-subagent/5d1c0e34-2222-4222-8333-944455556666.jsonl"

// TestClaudeSubagentBecomesChild: a Claude Code session whose Agent call
// started a sub-agent imports with the sub-agent's transcript (kept by
// Claude Code in SESSION/subagents/) as a child session linked to the
// parent and to the call, its agent type and calls kept.
func TestClaudeSubagentBecomesChild(t *testing.T) {
	c, err := ReadFile(withSubagent, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Children) != 1 {
		t.Fatalf("%d children, want 1 (report %s)", len(c.Children), c.Report.Summary())
	}
	child := c.Children[0]
	if l := child.Link; l == nil || l.ParentCall != "toolu_A1" || l.Type != "Explore" || l.Depth != 1 {
		t.Fatalf("link %+v", child.Link)
	}
	got := shapeOf(t, child.Entries, false)
	if len(got) != 4 || !strings.Contains(got[0].Texts[0], "Find the callers of Page") || !strings.HasPrefix(got[1].Calls[0], "toolu_S1 grep ") ||
		!strings.Contains(got[2].Result, "store/list.go:12") {
		t.Fatalf("child %+v", got)
	}
	dir := t.TempDir()
	parent, err := Import(c, session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	kids, err := ImportChildren(c, parent, session.Options{Dir: dir})
	if err != nil || len(kids) != 1 {
		t.Fatalf("%v %d", err, len(kids))
	}
	kids[0].Close()
	h, _, _, err := session.ReadFile(kids[0].Path())
	if err != nil {
		t.Fatal(err)
	}
	if h.Agent == nil || h.Agent.ParentSession != parent.ID() || h.Agent.ParentPath != parent.Path() || h.Agent.ParentCall != "toolu_A1" || h.Agent.Type != "Explore" {
		t.Fatalf("child header %+v", h.Agent)
	}
	if h.Source == nil || h.Source.Format != "claude" || filepath.Base(h.Source.Path) != "agent-a7f3c2.jsonl" {
		t.Fatalf("child source %+v", h.Source)
	}
}
