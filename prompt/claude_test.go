package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// claudeFamily is a workspace laid out for Claude Code: every kind of
// context file, imports two deep, rules, a local file, a subfolder the
// user starts in, a file above the repository and user-level files.
func claudeFamily(t *testing.T) (root string, o DiscoverOptions) {
	root = tree(t, map[string]string{
		"CLAUDE.md":                    "above the repository",
		"home/.claude/CLAUDE.md":       "user memory\n@~/notes/style.md",
		"home/notes/style.md":          "user style, imported",
		"home/.claude/rules/z/b.md":    "user rule b",
		"repo/.git/":                   "",
		"repo/AGENTS.md":               "agents text",
		"repo/CLAUDE.md":               "root claude\n@AGENTS.md\nsee @docs/extra.md for more\n`@docs/in-code.md` and mail me@example.com\n```\n@docs/in-fence.md\n```",
		"repo/docs/extra.md":           "extra doc\n@deeper.md",
		"repo/docs/deeper.md":          "deeper doc",
		"repo/docs/in-code.md":         "must not load",
		"repo/docs/in-fence.md":        "must not load",
		"repo/.claude/CLAUDE.md":       "dot claude",
		"repo/.claude/rules/one.md":    "rule one",
		"repo/.claude/rules/go.md":     "---\npaths: \"**/*.go\"\n---\ngo rule text",
		"repo/CLAUDE.local.md":         "local notes",
		"repo/sub/CLAUDE.md":           "sub claude",
		"repo/sub/deeper/CLAUDE.md":    "below the launch folder",
		"repo/sub/deeper/x.go":         "package x",
		"repo/.claude/commands/hi.md":  "hi",
		"repo/.rein/prompts/plain.md":  "plain",
		"repo/sub/.claude/commands/.x": "",
	})
	o = DiscoverOptions{Workspace: filepath.Join(root, "repo"), Cwd: filepath.Join(root, "repo", "sub"), ConfigDir: "-",
		Home: filepath.Join(root, "home"), Getenv: func(string) string { return "" }}
	return root, o
}

// The whole CLAUDE.md family loads in Claude Code's order, each import
// after the file that imports it, code spans and fences skipped, the
// launch folder's file up front and the one below it left for later.
func TestClaudeFamilyOrder(t *testing.T) {
	root, o := claudeFamily(t)
	f := Discover(o)
	var got []string
	for _, c := range f.ContextFiles {
		got = append(got, strings.TrimPrefix(c.Path, root+"/")+" ["+c.Scope+"] "+c.ImportedBy)
	}
	want := []string{
		"home/.claude/CLAUDE.md [user] ",
		"home/notes/style.md [user] ~/.claude/CLAUDE.md",
		"home/.claude/rules/z/b.md [user] ",
		"CLAUDE.md [project] ",
		"repo/CLAUDE.md [project] ",
		"repo/AGENTS.md [project] CLAUDE.md",
		"repo/docs/extra.md [project] CLAUDE.md",
		"repo/docs/deeper.md [project] docs/extra.md",
		"repo/.claude/CLAUDE.md [project] ",
		"repo/.claude/rules/one.md [project] ",
		"repo/CLAUDE.local.md [local] ",
		"repo/sub/CLAUDE.md [project] ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("context files (-want +got):\n%s\nnotes:\n%s", diff, notesText(f.Notes))
	}
	if len(f.Notes) != 0 {
		t.Fatalf("notes:\n%s", notesText(f.Notes))
	}
	if len(f.Rules) != 1 || f.Rules[0].Paths[0] != "**/*.go" {
		t.Fatalf("conditional rules %+v", f.Rules)
	}
}

// Without an import between them, AGENTS.md comes before CLAUDE.md in
// the same folder; with CLAUDE.md importing AGENTS.md, after it. Either
// way AGENTS.md is used once.
func TestAgentsAndClaudeSideBySide(t *testing.T) {
	for _, tc := range []struct {
		claude string
		want   []string
	}{
		{"claude only", []string{"AGENTS.md", "CLAUDE.md"}},
		{"@AGENTS.md\nplus more", []string{"CLAUDE.md", "AGENTS.md"}},
	} {
		root := tree(t, map[string]string{"r/.git/": "", "r/AGENTS.md": "agents", "r/CLAUDE.md": tc.claude})
		f := Discover(DiscoverOptions{Workspace: filepath.Join(root, "r"), ConfigDir: "-", ClaudeDir: "-"})
		if diff := cmp.Diff(tc.want, shown(f.ContextFiles)); diff != "" {
			t.Fatalf("%q (-want +got):\n%s", tc.claude, diff)
		}
	}
}

// Broken imports are notes naming the importing file; the rest loads.
func TestImportProblems(t *testing.T) {
	root := tree(t, map[string]string{
		"r/.git/":         "",
		"r/CLAUDE.md":     "top\n@a.md\n@missing.md\n@bin.md\n@../outside.md\n@/etc/hostname\n@~/secret.txt",
		"r/a.md":          "a\n@b.md",
		"r/b.md":          "b\n@a.md",
		"outside.md":      "outside the repository",
		"home/secret.txt": "SECRET",
	})
	os.WriteFile(filepath.Join(root, "r", "bin.md"), []byte("bin\x00ary"), 0o644)
	f := Discover(DiscoverOptions{Workspace: filepath.Join(root, "r"), ConfigDir: "-", ClaudeDir: "-", Home: filepath.Join(root, "home")})
	if diff := cmp.Diff([]string{"CLAUDE.md", "a.md", "b.md"}, shown(f.ContextFiles)); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	notes := notesText(f.Notes)
	for _, want := range []string{
		"CLAUDE.md: imports @missing.md, which does not exist",
		"bin.md: is binary",
		"imports @../outside.md, which is outside",
		"imports @/etc/hostname, which is outside",
		"imports @~/secret.txt, which is outside",
		"b.md: has an import cycle (a.md → b.md → a.md)",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	for _, c := range f.ContextFiles {
		if strings.Contains(c.Text, "SECRET") || strings.Contains(c.Text, "outside the repository") {
			t.Fatalf("%s leaked an outside file", c.Shown)
		}
	}
}

// Imports are followed MaxImportDepth levels deep, then a note says
// where it stopped.
func TestImportDepth(t *testing.T) {
	files := map[string]string{"r/.git/": "", "r/CLAUDE.md": "level 0\n@f1.md"}
	for i := 1; i <= 7; i++ {
		files["r/f"+string(rune('0'+i))+".md"] = "level " + string(rune('0'+i)) + "\n@f" + string(rune('0'+i+1)) + ".md"
	}
	root := tree(t, files)
	f := Discover(DiscoverOptions{Workspace: filepath.Join(root, "r"), ConfigDir: "-", ClaudeDir: "-"})
	if n := len(f.ContextFiles); n != 1+MaxImportDepth {
		t.Fatalf("%d files, want %d: %v", n, 1+MaxImportDepth, shown(f.ContextFiles))
	}
	if !strings.Contains(notesText(f.Notes), "more than 5 levels deep") {
		t.Fatalf("notes:\n%s", notesText(f.Notes))
	}
}

// A rule with paths comes in through the read note when a matching file
// is read, once.
func TestConditionalRule(t *testing.T) {
	_, o := claudeFamily(t)
	b := NewBuilder(Options{Discover: o})
	if got := b.matchingRules("sub/deeper/x.go"); !strings.Contains(got, "go rule text") {
		t.Fatalf("rule not added: %q", got)
	}
	if got := b.matchingRules("sub/deeper/x.go"); got != "" {
		t.Fatalf("rule added twice: %q", got)
	}
	if got := b.matchingRules("README.md"); got != "" {
		t.Fatalf("rule added for a file it does not name: %q", got)
	}
	// The folder below the launch folder is pointed to; the launch
	// folder's own file is not (it is in the prompt).
	if got := b.nested("sub/deeper/x.go"); len(got) != 1 || got[0] != "sub/deeper/CLAUDE.md" {
		t.Fatalf("nested %v", got)
	}
}

// Claude Code's commands: nested names, its argument numbering, front
// matter; rein's templates keep theirs.
func TestClaudeCommands(t *testing.T) {
	root := tree(t, map[string]string{
		"r/.git/":                        "",
		"r/.claude/commands/greet.md":    "---\ndescription: greet someone\nargument-hint: NAME\nallowed-tools: Bash(git add:*), Read\nmodel: haiku\n---\nHello $ARGUMENTS / zero=$0 one=$1 two=$2 arr=$ARGUMENTS[0] arr1=$ARGUMENTS[1] end\n",
		"r/.claude/commands/dir/nest.md": "nested cmd $ARGUMENTS\n",
		"r/.claude/commands/plain.md":    "Plain body no placeholders\n",
		"r/.claude/commands/broken.md":   "---\ndescription: [unclosed\n---\nbody $ARGUMENTS",
		"r/.rein/prompts/tpl.md":         "first=$1 all=$@",
		"r/.rein/prompts/plain.md":       "rein wins",
		"home/.claude/commands/mine.md":  "user command $0",
	})
	f := Discover(DiscoverOptions{Workspace: filepath.Join(root, "r"), ConfigDir: "-", Home: filepath.Join(root, "home"), Getenv: func(string) string { return "" }})
	for _, tc := range []struct{ line, want string }{
		{`/greet alice "bob smith"`, "Hello alice \"bob smith\" / zero=alice one=bob smith two=$2 arr=alice arr1=bob smith end\n"},
		{"/dir:nest x y", "nested cmd x y\n"},
		{"/tpl a b", "first=a all=a b"},
		{"/plain extra", "rein wins\n\nextra"},
		{"/mine z", "user command z"},
		{"/broken q", "body q"},
	} {
		inv, ok := f.Invoke(tc.line)
		if !ok || inv.Text != tc.want {
			t.Errorf("%s: ok %v text %q, want %q", tc.line, ok, inv.Text, tc.want)
		}
	}
	inv, _ := f.Invoke("/greet x")
	if inv.Model != "haiku" || !cmp.Equal(inv.AllowedTools, []string{"Bash(git add:*)", "Read"}) {
		t.Fatalf("front matter: model %q tools %q", inv.Model, inv.AllowedTools)
	}
	notes := notesText(f.Notes)
	if !strings.Contains(notes, "broken.md: has front matter that is not valid YAML") || !strings.Contains(notes, "/plain is also defined by .rein/prompts/plain.md") {
		t.Fatalf("notes:\n%s", notes)
	}
	if _, ok := f.Invoke("/nosuch arg"); ok {
		t.Fatal("an unknown name resolved")
	}
}

// A body without placeholders gets the arguments appended as Claude
// Code does.
func TestClaudeArgumentsAppended(t *testing.T) {
	if got := expandClaude("Plain body no placeholders\n", "some args here"); got != "Plain body no placeholders\n\n\nARGUMENTS: some args here" {
		t.Fatalf("%q", got)
	}
	if got := expandClaude("no args\n", ""); got != "no args\n" {
		t.Fatalf("%q", got)
	}
}

// The user's ~/.claude/skills are found; /name args invokes a skill with
// its $ARGUMENTS; the skill tool fills them too.
func TestClaudeSkills(t *testing.T) {
	root := tree(t, map[string]string{
		"r/.git/":                              "",
		"home/.claude/skills/myskill/SKILL.md": "---\nname: myskill\ndescription: does things\nallowed-tools: Read, Grep\n---\nSkill body args=$ARGUMENTS zero=$0\n",
	})
	o := DiscoverOptions{Workspace: filepath.Join(root, "r"), ConfigDir: "-", Home: filepath.Join(root, "home"), Getenv: func(string) string { return "" }}
	f := Discover(o)
	inv, ok := f.Invoke("/myskill a b")
	want := "Base directory for this skill: " + filepath.Join(root, "home/.claude/skills/myskill") + "\n\nSkill body args=a b zero=a\n"
	if !ok || inv.Kind != InvokeSkill || inv.Text != want {
		t.Fatalf("ok %v %+v\nwant %q", ok, inv, want)
	}
	if !cmp.Equal(inv.AllowedTools, []string{"Read", "Grep"}) {
		t.Fatalf("allowed tools %q", inv.AllowedTools)
	}
	b := NewBuilder(Options{Discover: o})
	res, err := b.loadSkill(skillArgs{Name: "myskill", Args: "q r"})
	if err != nil || !strings.Contains(res.Content[0].Text, "Skill body args=q r zero=q") {
		t.Fatalf("skill tool: %v %+v", err, res)
	}
}
