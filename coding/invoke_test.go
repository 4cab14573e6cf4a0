package coding

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// toolNames returns the names of the tools a request offered.
func toolNames(req llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// A Claude Code command typed into Submit reaches the model as its
// expanded text, with only the tools its allowed-tools name, and the
// next prompt has every tool again. A skill typed as /name runs with its
// body and arguments.
func TestSubmitClaudeCommand(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	for p, c := range map[string]string{
		".git/HEAD":                      "ref: refs/heads/main\n",
		".claude/commands/review.md":     "---\nallowed-tools: Read, Bash(git diff:*)\n---\nReview $ARGUMENTS carefully.\n",
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: deploys\n---\nDeploy to $0 now.\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := faux.New(faux.Text("one"), faux.Text("two"), faux.Text("three"))
	env := map[string]string{"HOME": home}
	a, err := Open(context.Background(), Options{Workdir: ws, Provider: p, ModelInfo: faux.Model(), NoSession: true,
		Getenv: func(k string) string { return env[k] }, Environ: func() []string { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	for _, line := range []string{"/review the parser", "plain prompt", "/deploy staging"} {
		if _, err := a.Submit(ctx, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	reqs := p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := func(r llm.Request) string {
		m := r.Messages[len(r.Messages)-1]
		return m.Content[0].Text
	}
	if got := last(reqs[0]); got != "Review the parser carefully.\n" {
		t.Fatalf("command text %q", got)
	}
	if got := toolNames(reqs[0]); !slices.Equal(got, []string{"bash", "find", "grep", "ls", "read"}) {
		t.Fatalf("command tools %v", got)
	}
	if got := toolNames(reqs[1]); !slices.Contains(got, "edit") || !slices.Contains(got, "write") {
		t.Fatalf("tools not restored after the command: %v", got)
	}
	if got := last(reqs[2]); !strings.HasPrefix(got, "Base directory for this skill: ") || !strings.HasSuffix(got, "Deploy to staging now.\n") {
		t.Fatalf("skill text %q", got)
	}
}
