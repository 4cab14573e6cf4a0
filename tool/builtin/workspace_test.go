package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	w := newWorkspace(t)
	root := w.Root
	outside := t.TempDir()
	put(t, root, map[string]string{"a.txt": "a", "sub/b.txt": "b", "dir/": ""})
	put(t, outside, map[string]string{"secret.txt": "s"})
	mustLink(t, outside, filepath.Join(root, "out"))                            // dir link pointing out
	mustLink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "s")) // file link pointing out
	mustLink(t, filepath.Join(outside, "nope.txt"), filepath.Join(root, "dangling"))
	mustLink(t, "sub", filepath.Join(root, "in"))        // relative link inside
	mustLink(t, "../../", filepath.Join(root, "sub/up")) // relative link climbing out
	mustLink(t, "loop", filepath.Join(root, "loop"))
	mustLink(t, "sub/target.txt", filepath.Join(root, "dangling-in"))

	tests := []struct {
		path    string
		want    string // relative to root; "" with outside
		outside bool
		errText string
	}{
		{path: "", want: "."},
		{path: ".", want: "."},
		{path: "a.txt", want: "a.txt"},
		{path: "./sub/../a.txt", want: "a.txt"},
		{path: "new/dir/file.txt", want: "new/dir/file.txt"},
		{path: filepath.Join(root, "sub/b.txt"), want: "sub/b.txt"},
		{path: "in/b.txt", want: "sub/b.txt"},
		{path: "in/missing/x", want: "sub/missing/x"},
		{path: "dangling-in", want: "sub/target.txt"},
		{path: "../x", outside: true},
		{path: "../../etc/passwd", outside: true},
		{path: "/etc/passwd", outside: true},
		{path: filepath.Dir(root), outside: true},
		{path: "out", outside: true},
		{path: "out/secret.txt", outside: true},
		{path: "out/new.txt", outside: true},
		{path: "s", outside: true},
		{path: "dangling", outside: true},
		{path: "sub/up/x", outside: true},
		{path: "loop/x", errText: "links"},
		{path: "a\x00b", errText: "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := w.Resolve(tt.path)
			switch {
			case tt.outside:
				if !errors.Is(err, ErrOutside) {
					t.Fatalf("Resolve(%q) = %q, %v; want an outside error", tt.path, got, err)
				}
				var oe *OutsideError
				if !errors.As(err, &oe) || oe.Root != root {
					t.Fatalf("error %v is not an *OutsideError with root %s", err, root)
				}
				for _, frag := range []string{tt.path, "outside the workspace", root} {
					if !strings.Contains(err.Error(), frag) {
						t.Fatalf("error %q does not mention %q", err, frag)
					}
				}
			case tt.errText != "":
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("Resolve(%q) = %q, %v; want an error about %q", tt.path, got, err, tt.errText)
				}
			default:
				if err != nil {
					t.Fatalf("Resolve(%q): %v", tt.path, err)
				}
				if want := filepath.Join(root, tt.want); got != want {
					t.Fatalf("Resolve(%q) = %q, want %q", tt.path, got, want)
				}
			}
		})
	}
}

func TestWorkspaceRootThroughLink(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	mustLink(t, real, link)
	put(t, real, map[string]string{"a.txt": "a"})
	realRoot, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []Workspace{{Root: link}, mustWorkspace(t, link)} {
		for _, p := range []string{"a.txt", filepath.Join(link, "a.txt"), filepath.Join(realRoot, "a.txt")} {
			got, err := w.Resolve(p)
			if err != nil {
				t.Fatalf("Resolve(%q) in %q: %v", p, w.Root, err)
			}
			if want := filepath.Join(realRoot, "a.txt"); got != want {
				t.Fatalf("Resolve(%q) = %q, want %q", p, got, want)
			}
		}
	}
}

func TestNewWorkspaceErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	put(t, dir, map[string]string{"f": "x"})
	for _, root := range []string{"", filepath.Join(dir, "missing"), file} {
		if _, err := NewWorkspace(root); err == nil {
			t.Errorf("NewWorkspace(%q) succeeded", root)
		}
	}
	if _, err := (Workspace{}).Resolve("a"); err == nil {
		t.Error("a zero Workspace resolved a path")
	}
}

// TestToolsRefuseOutside sends every path-taking tool paths that lead
// out of the workspace and checks that each is refused and nothing
// outside is touched.
func TestToolsRefuseOutside(t *testing.T) {
	w := newWorkspace(t)
	outside := t.TempDir()
	put(t, outside, map[string]string{"secret.txt": "secret\n"})
	mustLink(t, outside, filepath.Join(w.Root, "link"))
	mustLink(t, filepath.Join(outside, "secret.txt"), filepath.Join(w.Root, "s.txt"))
	reg, err := Registry(w)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"../escape.txt", filepath.Join(outside, "secret.txt"), "link/secret.txt", "link/new.txt", "s.txt", "link"}
	for _, p := range paths {
		cases := map[string]string{
			"read":  args(t, map[string]any{"path": p}),
			"write": args(t, map[string]any{"path": p, "content": "pwned"}),
			"edit":  args(t, map[string]any{"path": p, "edits": []map[string]string{{"old_text": "secret", "new_text": "pwned"}}}),
			"grep":  args(t, map[string]any{"pattern": "secret", "path": p}),
			"find":  args(t, map[string]any{"pattern": "*", "path": p}),
			"ls":    args(t, map[string]any{"path": p}),
		}
		for name, a := range cases {
			res := call(t, reg, name, a)
			expect(t, res, true, "outside the workspace", w.Root)
		}
	}
	if got := readFileString(t, filepath.Join(outside, "secret.txt")); got != "secret\n" {
		t.Fatalf("outside file changed to %q", got)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("outside directory has %d entries, want 1", len(entries))
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(w.Root), "escape.txt")); err == nil {
		t.Fatal("write created a file outside the workspace")
	}
}

func mustLink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mustWorkspace(t testing.TB, root string) Workspace {
	t.Helper()
	w, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
