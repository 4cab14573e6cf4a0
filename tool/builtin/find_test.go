package builtin

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	w := searchTree(t)
	reg := registry(t, Find(w))
	allGo := strings.Join([]string{
		".hidden/h.go", "a/x.go", "a-b/x.go", "a.go", "a_test.go", "link.go",
		"sub/c.go", "sub/deeper/d.go",
	}, "\n")
	tests := []struct {
		name  string
		args  string
		isErr bool
		want  string
	}{
		{"double star", `{"pattern":"**/*.go"}`, false, allGo},
		{"name at any depth", `{"pattern":"*.go"}`, false, allGo},
		{"leading dot slash", `{"pattern":"./**/*.go"}`, false, allGo},
		{"anchored path", `{"pattern":"sub/*.go"}`, false, "sub/c.go"},
		{"under a directory", `{"pattern":"sub/**"}`, false, "sub/.gitignore\nsub/c.go\nsub/deeper/\nsub/deeper/d.go\nsub/gen/\nsub/x.log"},
		{"explicit ignored directory", `{"pattern":"build/*"}`, false, "build/out.go"},
		{"relative to path", `{"pattern":"deeper/*.go","path":"sub"}`, false, "sub/deeper/d.go"},
		{"path and name", `{"pattern":"*.go","path":"sub"}`, false, "sub/c.go\nsub/deeper/d.go"},
		{"ignored and negated", `{"pattern":"*.log"}`, false, "keep.log\nsub/x.log"},
		{"directories", `{"pattern":"*deep*"}`, false, "sub/deeper/"},
		{"alternatives", `{"pattern":"{a,b}.*"}`, false, "a.go\nb.txt\ndocs/sub/b.tmp"},
		{"dotfiles", `{"pattern":".*"}`, false, ".env\n.gitignore\n.hidden/\n.ignore\nsub/.gitignore"},
		{"limit", `{"pattern":"*.go","limit":2}`, false, ".hidden/h.go\na/x.go\n[2 of 8 matches listed; narrow the pattern or path, or raise limit]"},
		{"no match", `{"pattern":"*.rs"}`, false, `No files match "*.rs" in the workspace (ignored files and .git are not searched).`},
		{"missing fixed directory", `{"pattern":"nope/**/*.go"}`, false, `No files match "nope/**/*.go"`},
		{"invalid pattern", `{"pattern":"[a-"}`, true, `invalid glob "[a-"`},
		{"absolute pattern", `{"pattern":"/etc/*"}`, true, "is absolute"},
		{"empty pattern", `{"pattern":""}`, true, "pattern is empty"},
		{"path is a file", `{"pattern":"*","path":"a.go"}`, true, "a.go is a file, not a directory"},
		{"missing path", `{"pattern":"*","path":"nowhere"}`, true, "no such file: nowhere"},
		{"outside", `{"pattern":"*","path":"../"}`, true, "outside the workspace"},
		{"pattern climbs out", `{"pattern":"../../etc/pass*"}`, true, "climbs out with .."},
		{"pattern climbs out below", `{"pattern":"sub/../../*","path":"."}`, true, "climbs out with .."},
		{"negative limit", `{"pattern":"*","limit":-1}`, true, "limit must be 1 or more"},
		{"missing pattern", `{}`, true, "Invalid arguments for find"},
		{"pattern wrong type", `{"pattern":3}`, true, "Invalid arguments for find"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, reg, "find", tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v; text:\n%s", res.IsError, res.Text())
			}
			if tt.isErr || strings.HasPrefix(tt.want, "No files") {
				expect(t, res, tt.isErr, tt.want)
				return
			}
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFindGitDirAndLinks checks that .git is never listed and that a
// linked directory is listed but not entered, even when it points out
// of the workspace.
func TestFindGitDirAndLinks(t *testing.T) {
	w := newWorkspace(t)
	outside := t.TempDir()
	put(t, outside, map[string]string{"secret.go": "x"})
	put(t, w.Root, map[string]string{".git/HEAD": "ref", ".git/x.go": "x", "real/a.go": "a"})
	mustLink(t, outside, filepath.Join(w.Root, "out"))
	mustLink(t, "real", filepath.Join(w.Root, "alias"))
	res := call(t, registry(t, Find(w)), "find", `{"pattern":"**"}`)
	if diff := cmp.Diff("alias\nout\nreal/\nreal/a.go", res.Text()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	res = call(t, registry(t, Find(w)), "find", `{"pattern":"out/**"}`)
	expect(t, res, false, "No files match")
}

func TestFindCancelled(t *testing.T) {
	w := searchTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	expect(t, callCtx(ctx, t, registry(t, Find(w)), "find", `{"pattern":"*"}`), true, "context canceled")
}

func TestLs(t *testing.T) {
	w := newWorkspace(t)
	put(t, w.Root, map[string]string{"b.txt": "b", "a.txt": "a", ".env": "x", "dir/x": "x", "empty/": "", "Z.md": "z"})
	mustLink(t, "a.txt", filepath.Join(w.Root, "link"))
	mustLink(t, "dir", filepath.Join(w.Root, "dirlink"))
	mustLink(t, "/nowhere/at/all", filepath.Join(w.Root, "broken"))
	reg := registry(t, Ls(w))
	tests := []struct {
		name  string
		args  string
		isErr bool
		want  string
	}{
		{"root", `{}`, false, ".env\nZ.md\na.txt\nb.txt\nbroken -> /nowhere/at/all\ndir/\ndirlink/ -> dir\nempty/\nlink -> a.txt"},
		{"dot", `{"path":"."}`, false, ".env\nZ.md\na.txt\nb.txt\nbroken -> /nowhere/at/all\ndir/\ndirlink/ -> dir\nempty/\nlink -> a.txt"},
		{"subdirectory", `{"path":"dir"}`, false, "x"},
		{"through link", `{"path":"dirlink"}`, false, "x"},
		{"empty", `{"path":"empty"}`, false, "(empty is empty)"},
		{"limit", `{"limit":2}`, false, ".env\nZ.md\n[2 of 9 entries listed; raise limit, or use find with a pattern]"},
		{"file", `{"path":"a.txt"}`, false, "a.txt is a file (1 bytes), not a directory; use read to see its content."},
		{"missing", `{"path":"nope"}`, true, "no such file: nope"},
		{"outside", `{"path":".."}`, true, "outside the workspace"},
		{"broken link", `{"path":"broken"}`, true, "outside the workspace"},
		{"negative limit", `{"limit":-3}`, true, "limit must be 1 or more"},
		{"wrong type", `{"path":true}`, true, "Invalid arguments for ls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, reg, "ls", tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v; text:\n%s", res.IsError, res.Text())
			}
			if tt.isErr {
				expect(t, res, true, tt.want)
				return
			}
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}
