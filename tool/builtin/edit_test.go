package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type editCase struct {
	name    string
	file    string // initial content of f.txt
	edits   []EditOp
	rawArgs string // used instead of edits when set
	isErr   bool
	want    []string // fragments of the result text
	after   string   // content of f.txt afterwards; for errors, unchanged
}

func TestEdit(t *testing.T) {
	const goFile = "package main\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"
	tests := []editCase{
		{name: "single", file: goFile,
			edits: []EditOp{{OldText: "\tfmt.Println(\"hi\")\n", NewText: "\tfmt.Println(\"hello\")\n\tos.Exit(0)\n"}},
			want:  []string{"Edited f.txt: applied 1 edit (+2 −1 lines).", "@@ -2,4 +2,5 @@\n \n func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n+\tos.Exit(0)\n }\n"},
			after: "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tos.Exit(0)\n}\n"},
		{name: "mid-line", file: "a b c\n", edits: []EditOp{{OldText: "b", NewText: "B"}},
			want: []string{"-a b c\n+a B c\n"}, after: "a B c\n"},
		{name: "delete", file: "one\ntwo\nthree\n", edits: []EditOp{{OldText: "two\n", NewText: ""}},
			want: []string{"(+0 −1 lines)", "-two\n"}, after: "one\nthree\n"},
		{name: "several edits", file: "a\nb\nc\nd\ne\nf\ng\nh\n",
			edits: []EditOp{{OldText: "g\n", NewText: "G\n"}, {OldText: "b\n", NewText: "B\n"}},
			want:  []string{"applied 2 edits (+2 −2 lines)", "@@ -1,4 +1,4 @@", "@@ -5,4 +5,4 @@"},
			after: "a\nB\nc\nd\ne\nf\nG\nh\n"},
		{name: "edits on one line", file: "x = f(a, b)\n",
			edits: []EditOp{{OldText: "a", NewText: "A"}, {OldText: "b)", NewText: "B)"}},
			want:  []string{"@@ -1,1 +1,1 @@\n-x = f(a, b)\n+x = f(A, B)\n"}, after: "x = f(A, B)\n"},
		{name: "crlf kept", file: "one\r\ntwo\r\nthree\r\n",
			edits: []EditOp{{OldText: "one\ntwo\n", NewText: "uno\ndos\n"}},
			after: "uno\r\ndos\r\nthree\r\n"},
		{name: "crlf new lines in single-line edit", file: "one\r\ntwo\r\n",
			edits: []EditOp{{OldText: "one", NewText: "one\nhalf"}},
			after: "one\r\nhalf\r\ntwo\r\n"},
		{name: "crlf given by model", file: "one\r\ntwo\r\n",
			edits: []EditOp{{OldText: "one\r\ntwo", NewText: "1\r\n2"}},
			after: "1\r\n2\r\n"},
		{name: "lf file keeps lf", file: "one\ntwo\n",
			edits: []EditOp{{OldText: "one\r\n", NewText: "1\r\n1b\r\n"}},
			after: "1\n1b\ntwo\n"},
		{name: "bom kept", file: bom + "first\nsecond\n",
			edits: []EditOp{{OldText: "first", NewText: "1st"}},
			after: bom + "1st\nsecond\n"},
		{name: "edit at start after bom", file: bom + "first\n",
			edits: []EditOp{{OldText: "first\n", NewText: "zero\nfirst\n"}},
			after: bom + "zero\nfirst\n"},

		{name: "not found whitespace", file: goFile, isErr: true,
			edits: []EditOp{{OldText: "    fmt.Println(\"hi\")", NewText: "x"}},
			want:  []string{"f.txt was not changed.", "old_text was not found in the file.", "whitespace is ignored", "     4\t\tfmt.Println(\"hi\")"}},
		{name: "not found multi-line whitespace", file: goFile, isErr: true,
			edits: []EditOp{{OldText: "func main() {\n  fmt.Println(\"hi\")\n}", NewText: "x"}},
			want:  []string{"whitespace is ignored", "     3\tfunc main() {\n     4\t\tfmt.Println(\"hi\")\n     5\t}\n"}},
		{name: "not found similar", file: goFile, isErr: true,
			edits: []EditOp{{OldText: "fmt.Printline(\"hi\")", NewText: "x"}},
			want:  []string{"The closest lines to \"fmt.Printline(\\\"hi\\\")\" are:", "     4\t\tfmt.Println(\"hi\")"}},
		{name: "not found nothing similar", file: goFile, isErr: true,
			edits: []EditOp{{OldText: "zzzzqqqq", NewText: "x"}},
			want:  []string{"Nothing similar is in the file either"}},
		{name: "line numbers copied", file: goFile, isErr: true,
			edits: []EditOp{{OldText: "     3\tfunc main() {", NewText: "x"}},
			want:  []string{"include line numbers from read output"}},
		{name: "ambiguous", file: "x := 1\ny := 2\nx := 1\nz\nx := 1\n", isErr: true,
			edits: []EditOp{{OldText: "x := 1", NewText: "x := 3"}},
			want:  []string{"old_text was found 3 times (at lines 1, 3, 5); include more surrounding lines"}},
		{name: "ambiguous overlapping", file: "aaa\n", isErr: true,
			edits: []EditOp{{OldText: "aa", NewText: "b"}},
			want:  []string{"found 2 times (at lines 1, 1)"}},
		{name: "overlap", file: "one two three\n", isErr: true,
			edits: []EditOp{{OldText: "one two", NewText: "1 2"}, {OldText: "two three", NewText: "2 3"}},
			want:  []string{"edits 1 and 2 overlap (both change line 1); merge them into one edit"}},
		{name: "empty old", file: "x\n", isErr: true,
			edits: []EditOp{{OldText: "", NewText: "y"}},
			want:  []string{"old_text is empty", "use write"}},
		{name: "same text", file: "x\n", isErr: true,
			edits: []EditOp{{OldText: "x", NewText: "x"}},
			want:  []string{"old_text and new_text are the same"}},
		{name: "all or nothing", file: "alpha\nbeta\n", isErr: true,
			edits: []EditOp{{OldText: "alpha", NewText: "ALPHA"}, {OldText: "gamma", NewText: "GAMMA"}},
			want:  []string{"edit 2: old_text was not found"}},
		{name: "every problem listed", file: "a\na\n", isErr: true,
			edits: []EditOp{{OldText: "a", NewText: "b"}, {OldText: "", NewText: "c"}},
			want:  []string{"edit 1: old_text was found 2 times", "edit 2: old_text is empty"}},
		{name: "no edits", file: "x\n", rawArgs: `{"path":"f.txt","edits":[]}`, isErr: true,
			want: []string{"edits is empty"}},
		{name: "null edits", file: "x\n", rawArgs: `{"path":"f.txt","edits":null}`, isErr: true,
			want: []string{"edits is empty"}},
		{name: "edits missing", file: "x\n", rawArgs: `{"path":"f.txt"}`, isErr: true,
			want: []string{"Invalid arguments for edit", "edits"}},
		{name: "edits wrong type", file: "x\n", rawArgs: `{"path":"f.txt","edits":"x"}`, isErr: true,
			want: []string{"Invalid arguments for edit"}},
		{name: "edit missing old_text", file: "x\n", rawArgs: `{"path":"f.txt","edits":[{"new_text":"y"}]}`, isErr: true,
			want: []string{"Invalid arguments for edit", "old_text"}},
		{name: "missing file", file: "x\n", rawArgs: `{"path":"g.txt","edits":[{"old_text":"a","new_text":"b"}]}`, isErr: true,
			want: []string{"no such file: g.txt", "use write"}},
		{name: "binary", file: "a\x00b", edits: []EditOp{{OldText: "a", NewText: "b"}}, isErr: true,
			want: []string{"binary file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t)
			path := filepath.Join(w.Root, "f.txt")
			put(t, w.Root, map[string]string{"f.txt": tt.file})
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
			a := tt.rawArgs
			if a == "" {
				a = args(t, map[string]any{"path": "f.txt", "edits": tt.edits})
			}
			res := call(t, registry(t, Edit(w)), "edit", a)
			expect(t, res, tt.isErr, tt.want...)
			after := tt.after
			if tt.isErr {
				after = tt.file
			}
			if after != "" || tt.isErr {
				if diff := cmp.Diff(after, readFileString(t, path)); diff != "" {
					t.Fatalf("file content (-want +got):\n%s", diff)
				}
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("mode = %v, %v; want 0600", fi.Mode().Perm(), err)
			}
			noTempFiles(t, w.Root)
		})
	}
}

func TestEditDetails(t *testing.T) {
	w := newWorkspace(t)
	put(t, w.Root, map[string]string{"f.txt": "a\nb\nc\n"})
	res := call(t, registry(t, Edit(w)), "edit", `{"path":"f.txt","edits":[{"old_text":"b\n","new_text":"B1\nB2\n"}]}`)
	want := EditDetails{Path: "f.txt", Edits: 1, Added: 2, Removed: 1, Diff: "@@ -1,3 +1,4 @@\n a\n-b\n+B1\n+B2\n c\n"}
	if diff := cmp.Diff(want, res.Details); diff != "" {
		t.Fatalf("details (-want +got):\n%s", diff)
	}
}

func TestEditLargeDiffIsCut(t *testing.T) {
	w := newWorkspace(t)
	old := strings.Repeat("line\n", 100)
	put(t, w.Root, map[string]string{"f.txt": "start\n" + old + "end\n"})
	res := call(t, registry(t, Edit(w)), "edit", args(t, map[string]any{
		"path": "f.txt", "edits": []EditOp{{OldText: "start\n" + old, NewText: "begin\n" + strings.ReplaceAll(old, "line", "LINE")}},
	}))
	expect(t, res, false, "(+101 −101 lines)", "-… (89 more lines)", "+… (89 more lines)")
}

// FuzzEditEngine checks the matching and diff code on arbitrary text:
// an edit that is accepted does what strings.Replace does, and the diff
// never panics and counts at least one changed line.
func FuzzEditEngine(f *testing.F) {
	f.Add("a\nb\nc\n", "b\n", "B\n")
	f.Add("x = f(a, b)\n", "a", "A")
	f.Add("one\r\ntwo\r\n", "one\ntwo", "1\n2")
	f.Add("aaa", "aa", "b")
	f.Add("no newline", "line", "")
	f.Fuzz(func(t *testing.T, content, old, repl string) {
		idx := newLineIndex(content)
		m, problem := locate(content, idx, dominantCRLF(content), EditOp{OldText: old, NewText: repl})
		if problem != "" {
			return
		}
		got := content[:m.start] + m.repl + content[m.end:]
		if !strings.Contains(content, "\r") && !strings.Contains(old, "\r") && !strings.Contains(repl, "\r") {
			if want := strings.Replace(content, old, repl, 1); got != want {
				t.Fatalf("edit gave %q, want %q", got, want)
			}
		}
		diff, added, removed := snippet(content, idx, []match{m})
		if added+removed == 0 || !strings.HasPrefix(diff, "@@ ") {
			t.Fatalf("diff %q counts +%d -%d", diff, added, removed)
		}
	})
}
