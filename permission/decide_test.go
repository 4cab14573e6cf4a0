package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The kinds ParseRule records answer matchesTool("bash") as the rule's
// tool name does.
func TestRuleKindsAgreeWithToolNames(t *testing.T) {
	for _, text := range []string{"Bash", "bash", "Bash(ls *)", "bash(git diff:*)", "Read", "Read(./x/**)", "Edit", "Write",
		"MultiEdit", "Grep", "Glob", "LS", "Agent", "Task(explore)", "WebFetch", "mcp__github", "mcp__github__create_issue", "read", "ls"} {
		r, err := ParseRule(text, Deny, "test", PathBase{Root: "/w", Cwd: "/w", Home: "/h"})
		if err != nil {
			t.Fatal(err)
		}
		bare := r
		bare.kinds = 0 // answered from the name alone
		for _, tool := range []string{"bash", "read", "grep", "find", "ls", "edit", "write", "agent", "mcp__github__create_issue"} {
			if got, want := r.matchesTool(tool), bare.matchesTool(tool); got != want {
				t.Errorf("%s on %s: %v with kinds, %v by name", text, tool, got, want)
			}
		}
	}
}

// isProtected looks at every component of a path, and at the last as a
// file name.
func TestIsProtected(t *testing.T) {
	g := New(Options{Workdir: "/w"})
	for p, want := range map[string]bool{
		"/w/.git": true, "/w/.git/config": true, "/w/a/.rein/x": true, "/w/.claude": true, "/w/.mcp.json": true,
		"/w/sub/AGENTS.md": true, "/h/.gitconfig": true, "/h/.config/rein/config.json": true, "/h/.config/git": true,
		"/w/.mcp.json/x": false, "/w/AGENTS.md.bak": false, "/w/.gitignore": false, "/h/.config/other": false,
		"/h/.config": false, "/w/src/main.go": false, "/": false, "": false, "/w/a/": false, "/w/.github/x": false,
	} {
		if got := g.isProtected(p); got != want {
			t.Errorf("isProtected(%q) = %v, want %v", p, got, want)
		}
	}
}

// probePath finds links at any depth, absent files, and files that are
// there, with or without the gate's cached directories.
func TestProbePath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "d", "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	realDir := resolveLinks(dir) // the temporary directory may sit behind a link
	if realDir == "" {
		realDir = dir
	}
	for _, above := range []map[string]os.FileInfo{nil, lstatAbove(dir)} {
		cache := &probeCache{above: above}
		for _, tc := range []struct {
			p, real string
			exists  bool
		}{
			{filepath.Join(real, "d", "f"), "", true},
			{filepath.Join(dir, "link", "d", "f"), filepath.Join(realDir, "real", "d", "f"), true},
			{filepath.Join(dir, "link", "d", "none"), filepath.Join(realDir, "real", "d", "none"), false},
			{filepath.Join(dir, "none", "f"), "", false},
			{filepath.Join(real, "d") + "/", "", true},
		} {
			gotReal, fi := probePath(tc.p, cache)
			if gotReal != tc.real || (fi != nil) != tc.exists {
				t.Errorf("probePath(%q) = %q, exists %v; want %q, %v", tc.p, gotReal, fi != nil, tc.real, tc.exists)
			}
		}
		if cache.n == 0 && above == nil {
			t.Error("nothing was cached")
		}
	}
	// More paths than the cache holds inline still resolve.
	cache := &probeCache{}
	for i := range 20 {
		p := filepath.Join(real, "d", strings.Repeat("n", i+1))
		if _, fi := probePath(p, cache); fi != nil {
			t.Errorf("%s exists", p)
		}
	}
	if _, fi := probePath(filepath.Join(real, "d", "f"), cache); fi == nil {
		t.Error("f not found past the inline cache")
	}
}

// Only verdicts that ask carry the rules an "allow always" answer
// stores.
func TestSuggestOnlyWhenAsking(t *testing.T) {
	g := New(Options{Mode: ModeAutoRead, Workdir: "/w", Rules: rules(t, "/w", []string{"Bash(go test *)"}, []string{"Bash(deploy:*)"}, nil)})
	for _, tc := range []struct {
		cmd     string
		want    Effect
		suggest string
	}{
		{"go test ./...", Allow, ""},
		{"deploy now", Ask, "Bash(deploy *)"},
		{"make build && go vet ./x", Ask, "Bash(make *), Bash(go vet *)"},
	} {
		v := decide(g, bashCall(tc.cmd))
		if v.Effect != tc.want || v.Suggest != tc.suggest || len(v.SuggestRules) != strings.Count(tc.suggest, "Bash(") {
			t.Errorf("%q: %s, suggest %q %q; want %s, %q", tc.cmd, v.Effect, v.Suggest, v.SuggestRules, tc.want, tc.suggest)
		}
	}
}
