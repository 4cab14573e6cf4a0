package builtin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/tool"
)

// searchTree builds a workspace exercising ignore rules, hidden and
// binary files, line endings and path order.
func searchTree(t testing.TB) Workspace {
	t.Helper()
	w := newWorkspace(t)
	var ctx strings.Builder
	for i := 1; i <= 20; i++ {
		if i == 5 || i == 7 || i == 15 {
			fmt.Fprintf(&ctx, "line %d match\n", i)
		} else {
			fmt.Fprintf(&ctx, "line %d\n", i)
		}
	}
	put(t, w.Root, map[string]string{
		".gitignore":                    "# comment\n*.log\n!keep.log\nbuild/\n/rootonly.txt\n**/gen/**\ndocs/*.tmp\n",
		".ignore":                       "ignored_by_dotignore.txt\n",
		".git/config":                   "hello from git\n",
		".git/info/exclude":             "excluded.txt\n",
		"excluded.txt":                  "hello excluded\n",
		"ignored_by_dotignore.txt":      "hello dotignore\n",
		"a.go":                          "package a\n\nfunc Hello() {}\n// hello world\nvar x = \"hello\"\n",
		"a_test.go":                     "package a\n\nfunc TestHello() {}\n",
		"b.txt":                         "Hello there\nnothing\nhello again\n",
		"x.log":                         "hello log\n",
		"keep.log":                      "hello keep\n",
		"rootonly.txt":                  "hello root only\n",
		"build/out.go":                  "hello build\n",
		"gen/deep/g.go":                 "hello gen\n",
		"docs/a.tmp":                    "hello tmp\n",
		"docs/sub/b.tmp":                "hello nested tmp\n",
		"docs/readme.md":                "hello docs\n",
		"sub/.gitignore":                "ignored_in_sub.txt\n!x.log\nrootonly.txt\n",
		"sub/x.log":                     "hello sub log\n",
		"sub/c.go":                      "package sub\n// Hello from sub\n",
		"sub/ignored_in_sub.txt":        "hello\n",
		"sub/rootonly.txt":              "hello\n",
		"sub/gen/x.go":                  "hello sub gen\n",
		"sub/deeper/d.go":               "package deeper\nconst hello = `hello`\n",
		"sub/deeper/ignored_in_sub.txt": "hello\n",
		".hidden/h.go":                  "hello hidden\n",
		".env":                          "HELLO=1\n",
		"bin.dat":                       "\x00\x01hello binary\n",
		"crlf.txt":                      "hello\r\nthere hello\r\n",
		"a-b/x.go":                      "hello dash\n",
		"a/x.go":                        "hello a\n",
		"ctx.txt":                       ctx.String(),
		"long.txt":                      strings.Repeat("long ", 200) + "hello\n",
	})
	mustLink(t, "a.go", filepath.Join(w.Root, "link.go"))
	return w
}

var grepQueries = []string{
	`{"pattern":"hello"}`,
	`{"pattern":"hello","ignore_case":true}`,
	`{"pattern":"match","path":"ctx.txt","context":2}`,
	`{"pattern":"match","path":"ctx.txt","context":1,"limit":2}`,
	`{"pattern":"match","context":3,"limit":1}`,
	`{"pattern":"hello","glob":"*.go"}`,
	`{"pattern":"hello","glob":"sub/**"}`,
	`{"pattern":"hello","glob":"!*.go"}`,
	`{"pattern":"hello","glob":"!sub"}`,
	`{"pattern":"hello","glob":"{a,b}.*"}`,
	`{"pattern":"hello","limit":3}`,
	`{"pattern":"hello","path":"sub"}`,
	`{"pattern":"hello","path":"sub/deeper/d.go"}`,
	`{"pattern":"hello","path":"sub/deeper/d.go","glob":"*.txt"}`,
	`{"pattern":"hello$"}`,
	`{"pattern":"hello\\r?$"}`,
	`{"pattern":"h.llo","literal":true}`,
	`{"pattern":"Hello()","literal":true}`,
	`{"pattern":"hello","path":"build"}`,
	`{"pattern":"hello","path":".hidden"}`,
	`{"pattern":"^package \\w+$"}`,
	`{"pattern":"nomatch"}`,
	`{"pattern":"hello","path":"bin.dat"}`,
}

func TestGrepBackendsAgree(t *testing.T) {
	w := searchTree(t)
	goReg := registry(t, Grep(w, GrepOptions{NoRipgrep: true}))
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed; the Go backend is tested on its own in TestGrepGo")
	}
	rgReg := registry(t, Grep(w, GrepOptions{RipgrepPath: rg}))
	for _, q := range grepQueries {
		t.Run(q, func(t *testing.T) {
			fromGo := call(t, goReg, "grep", q)
			fromRg := call(t, rgReg, "grep", q)
			if fromGo.IsError || fromRg.IsError {
				t.Fatalf("errors: go %q, rg %q", fromGo.Text(), fromRg.Text())
			}
			if diff := cmp.Diff(fromRg.Text(), fromGo.Text()); diff != "" {
				t.Fatalf("backends differ (-rg +go):\n%s", diff)
			}
			if fromRg.Details.(GrepDetails).Backend != "ripgrep" || fromGo.Details.(GrepDetails).Backend != "go" {
				t.Fatalf("backends: %+v, %+v", fromRg.Details, fromGo.Details)
			}
		})
	}
}

func TestGrepGo(t *testing.T) {
	w := searchTree(t)
	reg := registry(t, Grep(w, GrepOptions{NoRipgrep: true}))
	tests := []struct {
		args  string
		isErr bool
		want  string
	}{
		{`{"pattern":"hello"}`, false, `a/x.go:1:hello a
a-b/x.go:1:hello dash
a.go:4:// hello world
a.go:5:var x = "hello"
b.txt:3:hello again
crlf.txt:1:hello
crlf.txt:2:there hello
docs/readme.md:1:hello docs
docs/sub/b.tmp:1:hello nested tmp
keep.log:1:hello keep
long.txt:1:` + strings.Repeat("long ", 80) + `… [line cut]
sub/deeper/d.go:2:const hello = ` + "`hello`" + `
sub/x.log:1:hello sub log`},
		{`{"pattern":"match","path":"ctx.txt","context":2}`, false, `ctx.txt-3-line 3
ctx.txt-4-line 4
ctx.txt:5:line 5 match
ctx.txt-6-line 6
ctx.txt:7:line 7 match
ctx.txt-8-line 8
ctx.txt-9-line 9
--
ctx.txt-13-line 13
ctx.txt-14-line 14
ctx.txt:15:line 15 match
ctx.txt-16-line 16
ctx.txt-17-line 17`},
		{`{"pattern":"match","path":"ctx.txt","context":1,"limit":2}`, false, `ctx.txt-4-line 4
ctx.txt:5:line 5 match
ctx.txt-6-line 6
ctx.txt:7:line 7 match
ctx.txt-8-line 8
[2 matching lines shown; 1 more matched. Narrow the pattern, path or glob, or raise limit.]`},
		{`{"pattern":"hello$"}`, false, "long.txt:1:" + strings.Repeat("long ", 80) + "… [line cut]"},
		{`{"pattern":"hello\\r?$","path":"crlf.txt"}`, false, "crlf.txt:1:hello\ncrlf.txt:2:there hello"},
		{`{"pattern":"hello","glob":"*.go"}`, false, "a/x.go:1:hello a\na-b/x.go:1:hello dash\na.go:4:// hello world\na.go:5:var x = \"hello\"\nsub/deeper/d.go:2:const hello = `hello`\nsub/gen/x.go:1:hello sub gen"},
		{`{"pattern":"binary","path":"bin.dat"}`, false, `bin.dat:1:\0\x01hello binary`},
		{`{"pattern":"hello","path":"build"}`, false, "build/out.go:1:hello build"},
		{`{"pattern":"hello","path":".hidden"}`, false, ".hidden/h.go:1:hello hidden"},
		{`{"pattern":"nomatch"}`, false, `No matches for "nomatch" in the workspace. Ignored, hidden and binary files were not searched.`},
		{`{"pattern":"nomatch","path":"a.go","glob":"*.txt"}`, false, `No matches for "nomatch" in a.go (files matching "*.txt").`},
		{`{"pattern":"(unclosed"}`, true, `invalid regular expression "(unclosed": missing closing ): ` + "`(unclosed`" + `. Escape special characters with a backslash, or set literal to true`},
		{`{"pattern":"x","glob":"[unclosed"}`, true, `invalid glob "[unclosed"`},
		{`{"pattern":""}`, true, "pattern is empty"},
		{`{"pattern":"x","path":"missing"}`, true, "no such file: missing"},
		{`{"pattern":"x","path":"../"}`, true, "outside the workspace"},
		{`{"pattern":"x","context":-1}`, true, "must not be negative"},
		{`{}`, true, "Invalid arguments for grep"},
		{`{"pattern":"x","ignore_case":"yes"}`, true, "Invalid arguments for grep"},
		{`{"pattern":"x","limit":1.5}`, true, "Invalid arguments for grep"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res := call(t, reg, "grep", tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v; text:\n%s", res.IsError, res.Text())
			}
			got := res.Text()
			if tt.isErr {
				if !strings.Contains(got, tt.want) {
					t.Fatalf("error %q does not contain %q", got, tt.want)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGrepHugeFile searches a 50 MB file with both backends: output
// stays within the limit and the count of the rest is exact.
func TestGrepHugeFile(t *testing.T) {
	w := newWorkspace(t)
	f, err := os.Create(filepath.Join(w.Root, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// ~1 MB: nine plain lines and one with a needle, 10,000 times
	chunk := bytes.Repeat([]byte(strings.Repeat(strings.Repeat("abcdefghij", 9)+"haystack\n", 9)+strings.Repeat("abcdefghij", 9)+"needle\n"), 1_000)
	for range 50 {
		f.Write(chunk)
	}
	f.Close()
	regs := map[string]*tool.Registry{"go": registry(t, Grep(w, GrepOptions{NoRipgrep: true}))}
	if rg, err := exec.LookPath("rg"); err == nil {
		regs["ripgrep"] = registry(t, Grep(w, GrepOptions{RipgrepPath: rg}))
	}
	got := map[string][]string{}
	for name, reg := range regs {
		res := call(t, reg, "grep", `{"pattern":"needle$","limit":5}`)
		expect(t, res, false, "huge.txt:10:abcdefghij", "huge.txt:50:abcdefghij", "[5 matching lines shown; 49995 more matched.")
		if len(res.Text()) > 1500 {
			t.Fatalf("%s: output is %d bytes", name, len(res.Text()))
		}
		for _, q := range []string{`{"pattern":"needle$","limit":100000}`, `{"pattern":"needle$","context":3,"limit":100000}`} {
			res := call(t, reg, "grep", q)
			expect(t, res, false, "(the output is capped at about 15 KB)")
			if len(res.Text()) > MaxResultBytes+300 {
				t.Fatalf("%s %s: output is %d bytes", name, q, len(res.Text()))
			}
			got[name] = append(got[name], res.Text())
		}
	}
	if rg, ok := got["ripgrep"]; ok {
		if diff := cmp.Diff(rg, got["go"]); diff != "" {
			t.Fatalf("backends differ at the output cap (-rg +go):\n%s", diff)
		}
	}
}

func TestGrepCancelled(t *testing.T) {
	w := searchTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, o := range []GrepOptions{{NoRipgrep: true}, {}} {
		res := callCtx(ctx, t, registry(t, Grep(w, o)), "grep", `{"pattern":"hello"}`)
		expect(t, res, true, "context canceled")
	}
}

func TestRipgrepMissing(t *testing.T) {
	w := searchTree(t)
	res := call(t, registry(t, Grep(w, GrepOptions{RipgrepPath: filepath.Join(w.Root, "no-such-rg")})), "grep", `{"pattern":"hello"}`)
	expect(t, res, true, "cannot run ripgrep")
}

func TestRgEvent(t *testing.T) {
	q := grepQuery{rel: "."}
	f := &grepFormatter{limit: 10}
	lines := []string{
		`{"type":"begin","data":{"path":{"text":"./a.go"}}}`,
		`{"type":"match","data":{"path":{"text":"./a.go"},"lines":{"text":"x := 1\n"},"line_number":3}}`,
		`{"type":"match","data":{"path":{"bytes":"Yi9c/y5nbw=="},"lines":{"bytes":"/2hpCg=="},"line_number":1}}`,
		`{"type":"summary","data":{}}`,
	}
	for _, l := range lines {
		if err := rgEvent([]byte(l), q, f); err != nil {
			t.Fatal(err)
		}
	}
	want := "a.go:3:x := 1\nb/\\\uFFFD.go:1:\uFFFDhi\n"
	if diff := cmp.Diff(want, f.out.String()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if err := rgEvent([]byte(`{"type":"match","data":{"path":`), q, f); err == nil {
		t.Fatal("truncated JSON accepted")
	}
}

func FuzzRgEvent(f *testing.F) {
	f.Add([]byte(`{"type":"match","data":{"path":{"text":"./a.go"},"lines":{"text":"x\n"},"line_number":3}}`))
	f.Add([]byte(`{"type":"context","data":{"path":{"bytes":"YQ=="},"lines":{"bytes":"!!"},"line_number":-1}}`))
	f.Add([]byte(`{"type":"match"`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fm := &grepFormatter{limit: 2, context: 1}
		for range 3 {
			_ = rgEvent(line, grepQuery{rel: "."}, fm)
		}
		if fm.shown > 2 {
			t.Fatalf("shown %d matches over the limit", fm.shown)
		}
	})
}
