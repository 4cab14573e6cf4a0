package subagent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/permission"
)

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A Claude Code definition file is read as-is: every front-matter key
// lands in its field, the body is the prompt.
func TestDiscoverClaudeFile(t *testing.T) {
	w := t.TempDir()
	write(t, filepath.Join(w, ".claude/agents/reviewer.md"), `---
name: code-reviewer
description: Reviews code after changes. Use proactively.
tools: Read, Grep, Glob, Bash(git diff *)
disallowedTools: [Write]
model: haiku
permissionMode: acceptEdits
maxTurns: 12
skills:
  - go-style
mcpServers:
  - github
  - local: {command: ./srv, args: [--x]}
background: true
timeout: 90s
color: blue
---
You review code.

Be exact.
`)
	c, err := Discover(DiscoverOptions{Workdir: w, Home: "", ConfigDir: "-", ClaudeDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := c.Lookup("code-reviewer")
	if !ok {
		t.Fatalf("not found; skipped %v", c.Skipped)
	}
	want := Definition{
		Name: "code-reviewer", Description: "Reviews code after changes. Use proactively.",
		Prompt: "You review code.\n\nBe exact.", Tools: []string{"Read", "Grep", "Glob", "Bash(git diff *)"},
		DisallowedTools: []string{"Write"}, Model: "haiku", PermissionMode: permission.ModeAutoEdit, MaxTurns: 12,
		Skills: []string{"go-style"}, MCPServers: []string{"github", "local"}, Background: true, Timeout: 90e9,
		Source: filepath.Join(w, ".claude/agents/reviewer.md"), Scope: ScopeProject,
	}
	cfg := d.MCPConfigs["local"]
	d.MCPConfigs = nil
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("definition (-want +got):\n%s", diff)
	}
	if string(cfg) != `{"args":["--x"],"command":"./srv"}` {
		t.Errorf("inline MCP config = %s", cfg)
	}
	if len(c.Skipped) != 0 || len(c.Shadowed) != 0 {
		t.Errorf("skipped %v shadowed %v", c.Skipped, c.Shadowed)
	}
	names := []string{}
	for _, d := range c.All() {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"code-reviewer", "explore", "general"}) {
		t.Errorf("All() = %v", names)
	}
}

// Sources in precedence order: --agents, .rein/agents, .claude/agents,
// ~/.config/rein/agents, ~/.claude/agents, built-ins. Each clash is
// said once, naming both files.
func TestDiscoverPrecedence(t *testing.T) {
	w, home := t.TempDir(), t.TempDir()
	def := func(name, desc string) string {
		return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nbody\n", name, desc)
	}
	write(t, filepath.Join(w, ".rein/agents/a.md"), def("one", "rein project"))
	write(t, filepath.Join(w, ".claude/agents/a.md"), def("one", "claude project"))
	write(t, filepath.Join(w, ".claude/agents/b.md"), def("two", "claude project"))
	write(t, filepath.Join(home, ".config/rein/agents/x.md"), def("two", "rein user"))
	write(t, filepath.Join(home, ".config/rein/agents/y.md"), def("three", "rein user"))
	write(t, filepath.Join(home, ".claude/agents/z.md"), def("three", "claude user"))
	write(t, filepath.Join(home, ".claude/agents/e.md"), def("Explore", "claude user explore"))
	write(t, filepath.Join(home, ".claude/agents/f.md"), def("four", "claude user"))
	c, err := Discover(DiscoverOptions{Workdir: w, Home: home, JSON: `{"four": {"description": "flag", "prompt": "p"}}`})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"one": "rein project", "two": "claude project", "three": "rein user",
		"four": "flag", "explore": "claude user explore", "general": "General-purpose"} {
		d, ok := c.Lookup(name)
		if !ok || !strings.HasPrefix(d.Description, want) {
			t.Errorf("%s: %q from %s, want %q", name, d.Description, d.Source, want)
		}
	}
	if d, _ := c.Lookup("four"); d.Scope != ScopeCLI || d.Source != SourceFlag || d.Prompt != "p" {
		t.Errorf("four: %+v", d)
	}
	want := []Shadow{
		{"one", filepath.Join(w, ".rein/agents/a.md"), filepath.Join(w, ".claude/agents/a.md")},
		{"two", filepath.Join(w, ".claude/agents/b.md"), filepath.Join(home, ".config/rein/agents/x.md")},
		{"three", filepath.Join(home, ".config/rein/agents/y.md"), filepath.Join(home, ".claude/agents/z.md")},
		{"four", SourceFlag, filepath.Join(home, ".claude/agents/f.md")},
		{"explore", filepath.Join(home, ".claude/agents/e.md"), "builtin"},
	}
	slices.SortFunc(want, func(a, b Shadow) int { return strings.Compare(a.Name, b.Name) })
	got := slices.Clone(c.Shadowed)
	slices.SortFunc(got, func(a, b Shadow) int { return strings.Compare(a.Name, b.Name) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
	notes := strings.Join(c.Notes(), "\n")
	if strings.Count(notes, `agent "two"`) != 1 || !strings.Contains(notes, "is hidden by the one from "+filepath.Join(w, ".claude/agents/b.md")) {
		t.Errorf("notes should say each clash once:\n%s", notes)
	}
}

// Bad files are skipped with the file, the line and the reason, and
// lose nothing else; lesser problems are warnings.
func TestDiscoverBadFiles(t *testing.T) {
	w := t.TempDir()
	dir := filepath.Join(w, ".claude/agents")
	write(t, filepath.Join(dir, "good.md"), "---\nname: good\ndescription: fine\ntools: Read, Frobnicate\nflavour: mint\n---\nok\n")
	write(t, filepath.Join(dir, "yaml.md"), "---\nname: y\ndescription: d\n\"tools: [a\n---\nbody\n")
	write(t, filepath.Join(dir, "open.md"), "---\nname: open\ndescription: d\n")
	write(t, filepath.Join(dir, "plain.md"), "just text\n")
	write(t, filepath.Join(dir, "turns.md"), "---\nname: t\ndescription: d\nmaxTurns: -1\n---\nbody\n")
	write(t, filepath.Join(dir, "turns2.md"), "---\nname: t2\ndescription: d\nmaxTurns: many\n---\nbody\n")
	write(t, filepath.Join(dir, "mode.md"), "---\nname: m\ndescription: d\npermissionMode: yolo\n---\nbody\n")
	write(t, filepath.Join(dir, "noname.md"), "---\ndescription: d\n---\nbody\n")
	write(t, filepath.Join(dir, "nodesc.md"), "---\nname: nd\n---\nbody\n")
	write(t, filepath.Join(dir, "badname.md"), "---\nname: has(parens)\ndescription: d\n---\nbody\n")
	write(t, filepath.Join(dir, "notes.txt"), "not a definition")
	c, err := Discover(DiscoverOptions{Workdir: w, ConfigDir: "-", ClaudeDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Skipped{}
	for _, s := range c.Skipped {
		got[filepath.Base(s.Path)] = s
	}
	for file, want := range map[string]struct {
		line int
		text string
	}{
		"yaml.md":    {4, "not valid YAML"},
		"open.md":    {1, "never ends"},
		"plain.md":   {1, "has no front matter"},
		"turns.md":   {4, "maxTurns is -1"},
		"turns2.md":  {4, "maxTurns is many"},
		"mode.md":    {4, `permissionMode "yolo" is not a mode`},
		"noname.md":  {1, "has no name"},
		"nodesc.md":  {1, "has no description"},
		"badname.md": {2, "not a valid agent name"},
	} {
		s, ok := got[file]
		if !ok {
			t.Errorf("%s not skipped", file)
			continue
		}
		if s.Line != want.line || !strings.Contains(s.Reason, want.text) {
			t.Errorf("%s: line %d %q; want line %d and %q", file, s.Line, s.Reason, want.line, want.text)
		}
		if str := s.String(); !strings.HasPrefix(str, filepath.Join(dir, file)+fmt.Sprintf(":%d: ", want.line)) {
			t.Errorf("%s: String() = %q should start with file:line", file, str)
		}
	}
	if len(c.Skipped) != 9 {
		t.Errorf("skipped %d files, want 9: %v", len(c.Skipped), c.Skipped)
	}
	d, ok := c.Lookup("good")
	if !ok {
		t.Fatal("good.md was lost")
	}
	warn := strings.Join(d.Warnings, "\n")
	if !strings.Contains(warn, `unknown tool "Frobnicate"`) || !strings.Contains(warn, `unknown key "flavour"`) || strings.Contains(warn, `"Read"`) {
		t.Errorf("warnings: %v", d.Warnings)
	}
	if notes := strings.Join(c.Notes(), "\n"); !strings.Contains(notes, "Frobnicate") || !strings.Contains(notes, "yaml.md:4") {
		t.Errorf("notes: %s", notes)
	}
}

// Front matter YAML rejects but Claude Code reads (a colon in a value,
// the common case in shared agent files) is read line by line, with a
// warning.
func TestDiscoverLenientFrontMatter(t *testing.T) {
	w := t.TempDir()
	write(t, filepath.Join(w, ".claude/agents/x.md"), "---\nname: helper\ndescription: Use this agent when: the tests fail. Examples: <example>Context: CI</example>\n"+
		"  and more text\ntools:\n  - Read\n  - Bash\nmaxTurns: 5\nbackground: true\nmodel: \"sonnet\"\n---\nBody.\n")
	c, err := Discover(DiscoverOptions{Workdir: w, ConfigDir: "-", ClaudeDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := c.Lookup("helper")
	if !ok {
		t.Fatalf("skipped: %v", c.Skipped)
	}
	if d.Description != "Use this agent when: the tests fail. Examples: <example>Context: CI</example> and more text" ||
		!slices.Equal(d.Tools, []string{"Read", "Bash"}) || d.MaxTurns != 5 || !d.Background || d.Model != "sonnet" || d.Prompt != "Body." {
		t.Errorf("helper = %+v", d)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "not valid YAML (line 3)") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// A malformed --agents value is refused whole, naming the problem.
func TestDiscoverBadJSON(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"a": {"description": "x"`, "not a valid JSON object"},
		{`[1, 2]`, "not an object"},
		{`null`, "is null"},
		{`{"a": 3}`, `agent "a" is not a JSON object`},
		{`{"a": {"description": "x", "maxTurns": -1}}`, `agent "a" maxTurns is -1`},
		{`{"a": {"prompt": "x"}}`, `agent "a" has no description`},
		{`{"a": {"name": "b", "description": "x"}}`, "differs from its key"},
		{`{"a": {"description": "x"}} {}`, "more than one JSON value"},
	} {
		_, err := Discover(DiscoverOptions{JSON: tc.json})
		var je *JSONError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--agents: ") {
			t.Errorf("%s: err = %v, want a *JSONError saying %q", tc.json, err, tc.want)
		}
	}
	c, err := Discover(DiscoverOptions{JSON: `{"rev": {"description": "r", "prompt": "p", "tools": ["Read", "Agent(explore)"], "maxTurns": 3, "permissionMode": "plan"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Lookup("rev"); d.MaxTurns != 3 || d.PermissionMode != permission.ModePlan || len(d.Tools) != 2 || len(d.Warnings) != 0 {
		t.Errorf("rev = %+v", d)
	}
}

// explore is read-only, in plan mode, on the small model when one is
// configured; general inherits everything.
func TestBuiltins(t *testing.T) {
	c, err := Discover(DiscoverOptions{SmallModel: "haiku"})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := c.Lookup("Explore")
	if e.Name != Explore || e.Model != "haiku" || e.PermissionMode != permission.ModePlan || !slices.Equal(e.Tools, []string{"read", "grep", "find", "ls"}) {
		t.Errorf("explore = %+v", e)
	}
	g, _ := c.Lookup(General)
	if g.Tools != nil || g.Model != "" || g.PermissionMode != "" || g.Prompt == "" {
		t.Errorf("general = %+v", g)
	}
	c, _ = Discover(DiscoverOptions{})
	if e, _ := c.Lookup(Explore); e.Model != "" {
		t.Errorf("explore without a small model: %q", e.Model)
	}
	// tools: [] means no tools, not all of them.
	w := t.TempDir()
	write(t, filepath.Join(w, ".rein/agents/n.md"), "---\nname: none\ndescription: d\ntools: []\n---\n")
	c, _ = Discover(DiscoverOptions{Workdir: w})
	if d, _ := c.Lookup("none"); d.Tools == nil || len(d.Tools) != 0 {
		t.Errorf("tools: [] = %#v", d.Tools)
	}
}

// Discovery of 50 definition files.
func BenchmarkDiscover50(b *testing.B) {
	w := b.TempDir()
	for i := range 50 {
		write(b, filepath.Join(w, ".claude/agents", fmt.Sprintf("a%02d.md", i)), fmt.Sprintf(
			"---\nname: agent-%02d\ndescription: Agent number %d, for tests.\ntools: Read, Grep, Glob, Bash\nmodel: haiku\nmaxTurns: 10\n---\nYou are agent %d.\n%s\n", i, i, i, strings.Repeat("Some instructions. ", 40)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c, err := Discover(DiscoverOptions{Workdir: w, ConfigDir: "-", ClaudeDir: "-"})
		if err != nil || len(c.All()) != 52 {
			b.Fatal(err, len(c.All()))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
}
