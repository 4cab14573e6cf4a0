package compat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScanFindsWhatIsNotHonoured(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	write(t, home, map[string]string{
		".claude/settings.json":          `{"statusLine": {"type": "command", "command": "x"}, "enabledPlugins": {"a@b": true}, "env": {"A": "1"}}`,
		".claude/output-styles/terse.md": "---\nname: terse\n---\nBe terse.",
		".claude/commands/review.md":     "Review.",
		".claude/agents/helper.md":       "---\nname: helper\n---\nHelp.",
	})
	write(t, ws, map[string]string{
		".claude/settings.json": `{"$schema": "https://json.schemastore.org/claude-code-settings.json",
			"permissions": {"allow": ["Bash(ls)"], "additionalDirectories": ["../x"], "defaultMode": "default"},
			"hooks": {"Setup": [{"hooks": [{"type": "command", "command": "true"}]}],
				"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}, {"type": "prompt", "prompt": "ok?"}]}]},
			"outputStyle": "terse", "disableAllHooks": true}`,
		".claude/settings.local.json": `{"includeCoAuthoredBy": false, "somethingNew": 1}`,
	})
	o := Options{Workspace: ws, Home: home}
	got := Scan(o)
	hs, ps := filepath.Join(home, ".claude", "settings.json"), filepath.Join(ws, ".claude", "settings.json")
	local := filepath.Join(ws, ".claude", "settings.local.json")
	want := []Finding{
		{hs, "enabledPlugins", "plugins are not supported"},
		{hs, "statusLine", "the terminal UI shows its own status line"},
		{ps, "disableAllHooks", "rein still runs the hooks; remove them to stop them"},
		{ps, "outputStyle", "output styles are not supported"},
		{ps, "permissions.additionalDirectories", "rein's tools keep to the workspace"},
		{ps, "hooks.PreToolUse[0].hooks[1]", `rein runs only command hooks, not "prompt" ones`},
		{ps, "hooks.Setup", "rein runs no Setup hooks"},
		{local, "includeCoAuthoredBy", "rein adds no attribution to commits"},
		{local, "somethingNew", "not read by rein"},
		{filepath.Join(home, ".claude", "output-styles"), "", "output styles are not supported"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	n := Notice(got, o)
	for _, part := range []string{
		"note: rein does not honour part of the Claude Code setup (" + DocLink + "): ",
		"~/.claude/settings.json: enabledPlugins (plugins are not supported), statusLine (",
		"; .claude/settings.json: disableAllHooks (",
		"hooks.Setup (rein runs no Setup hooks); .claude/settings.local.json: includeCoAuthoredBy (",
		"; ~/.claude/output-styles: output styles are not supported",
	} {
		if !strings.Contains(n, part) {
			t.Errorf("notice lacks %q:\n%s", part, n)
		}
	}
	if strings.Contains(n, "\n") {
		t.Errorf("the notice is more than one line:\n%s", n)
	}
}

// A setup rein honours whole gives no finding and no notice; missing
// files, malformed JSON and an empty output-styles folder are passed
// over without a crash.
func TestScanAllHonoured(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	write(t, home, map[string]string{
		".claude/settings.json": `{"env": {"A": "1"}, "permissions": {"deny": ["Read(./.env)"]},
			"hooks": {"SessionStart": [{"hooks": [{"command": "true"}]}], "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".claude/CLAUDE.md":           "Be brief.",
		".claude/output-styles/.keep": "",
	})
	write(t, ws, map[string]string{
		".claude/settings.local.json": `{"permissions": {"allow": [`, // malformed
		".claude/skills/x/SKILL.md":   "---\nname: x\ndescription: y\n---\nz",
	})
	o := Options{Workspace: ws, Home: home}
	if got := Scan(o); got != nil {
		t.Fatalf("findings %v", got)
	}
	if n := Notice(nil, o); n != "" {
		t.Fatalf("notice %q", n)
	}
	if got := Scan(Options{}); got != nil {
		t.Fatalf("no folders gave %v", got)
	}
}

// A workspace that is the home folder is read once.
func TestScanHomeAsWorkspace(t *testing.T) {
	home := t.TempDir()
	write(t, home, map[string]string{".claude/settings.json": `{"statusLine": {}}`})
	if got := Scan(Options{Workspace: home, Home: home}); len(got) != 1 {
		t.Fatalf("findings %v", got)
	}
}
