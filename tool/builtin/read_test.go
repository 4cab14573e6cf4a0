package builtin

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
)

// pngHeader is the start of a PNG file, enough for content sniffing.
var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func numbered(from int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", from+i, l)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestRead(t *testing.T) {
	w := newWorkspace(t)
	long := strings.Repeat("é", 1500) // 3000 bytes
	put(t, w.Root, map[string]string{
		"a.txt":        "one\ntwo\nthree\nfour\nfive\n",
		"nonl.txt":     "one\ntwo",
		"crlf.txt":     "one\r\ntwo\r\n",
		"bom.txt":      bom + "first\nsecond\n",
		"long.txt":     "short\n" + long + "\nafter\n",
		"empty.txt":    "",
		"bin.dat":      "abc\x00def",
		"latin1.txt":   "caf\xe9 au lait\n",
		"sub/main.go":  "package main\n",
		"sub/util.go":  "package main\n",
		"sub/readme":   "hi\n",
		"image.png":    string(pngHeader),
		"cutrune.txt":  strings.Repeat("a", sniffSize-1) + "é\n",
		"README.md":    "# readme\n",
		"dir/nested/x": "x",
	})
	reg := registry(t, Read(w))
	tests := []struct {
		name  string
		args  string
		isErr bool
		want  string // the whole text when exact, else fragments separated by |
		exact bool
	}{
		{"whole file", `{"path":"a.txt"}`, false, numbered(1, "one", "two", "three", "four", "five"), true},
		{"offset and limit", `{"path":"a.txt","offset":2,"limit":2}`, false,
			numbered(2, "two", "three") + "\n\n[showing lines 2–3 of 5; call read with offset=4 to continue]", true},
		{"offset to end", `{"path":"a.txt","offset":4}`, false, numbered(4, "four", "five"), true},
		{"no final newline", `{"path":"nonl.txt","offset":1,"limit":1}`, false,
			numbered(1, "one") + "\n\n[showing lines 1–1 of 2; call read with offset=2 to continue]", true},
		{"crlf", `{"path":"crlf.txt"}`, false, numbered(1, "one", "two"), true},
		{"bom", `{"path":"bom.txt"}`, false, numbered(1, "first", "second"), true},
		{"absolute path", args(t, map[string]string{"path": filepath.Join(w.Root, "a.txt")}), false, "     1\tone", false},
		{"long line cut", `{"path":"long.txt"}`, false, "line cut: 3000 bytes in total|     3\tafter|some long lines were cut", false},
		{"empty", `{"path":"empty.txt"}`, false, "(empty.txt is empty)", true},
		{"cut rune is text", `{"path":"cutrune.txt"}`, false, "     1\taaa", false},
		{"offset past end", `{"path":"a.txt","offset":9}`, true, "offset 9 is past the end of a.txt, which has 5 lines", true},
		{"binary", `{"path":"bin.dat"}`, true, "bin.dat is a binary file (7 bytes)|xxd", false},
		{"not utf-8", `{"path":"latin1.txt"}`, true, "binary file", false},
		{"missing with similar", `{"path":"sub/main.g"}`, true, "no such file: sub/main.g; similar names in that directory: sub/main.go", false},
		{"missing case", `{"path":"readme.md"}`, true, "similar names in that directory: README.md", false},
		{"missing dir", `{"path":"nodir/x/y.txt"}`, true, "the directory nodir/x does not exist; the deepest existing directory is .", false},
		{"directory", `{"path":"sub"}`, true, "sub is a directory, not a file; use ls", false},
		{"outside", `{"path":"../x"}`, true, "outside the workspace", false},
		{"missing path", `{}`, true, "Invalid arguments for read|path", false},
		{"wrong type", `{"path":5}`, true, "Invalid arguments for read", false},
		{"offset wrong type", `{"path":"a.txt","offset":"2"}`, true, "Invalid arguments for read", false},
		{"unknown field", `{"path":"a.txt","lines":3}`, true, "Invalid arguments for read", false},
		{"negative offset", `{"path":"a.txt","offset":-1}`, true, "offset must be 1 or more", false},
		{"negative limit", `{"path":"a.txt","limit":-1}`, true, "limit must be 1 or more", false},
		{"not json", `{"path":`, true, "not valid JSON", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, reg, "read", tt.args)
			if tt.exact {
				if res.IsError != tt.isErr {
					t.Fatalf("IsError = %v; text:\n%s", res.IsError, res.Text())
				}
				if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
					t.Fatalf("text mismatch (-want +got):\n%s", diff)
				}
				return
			}
			expect(t, res, tt.isErr, strings.Split(tt.want, "|")...)
		})
	}
}

func TestReadImage(t *testing.T) {
	w := newWorkspace(t)
	put(t, w.Root, map[string]string{"pic.bin": string(pngHeader), "big.png": string(pngHeader) + strings.Repeat("\x00", ReadMaxImageBytes)})
	reg := registry(t, Read(w))
	res := call(t, reg, "read", `{"path":"pic.bin"}`)
	expect(t, res, false, "Image pic.bin (image/png")
	if len(res.Content) != 2 || res.Content[1].Type != llm.ContentImage || res.Content[1].MIMEType != "image/png" {
		t.Fatalf("content = %+v, want a text and an image/png block", res.Content)
	}
	data, err := base64.StdEncoding.DecodeString(res.Content[1].Data)
	if err != nil || !bytes.Equal(data, pngHeader) {
		t.Fatalf("image data = %q, %v", data, err)
	}
	expect(t, call(t, reg, "read", `{"path":"big.png"}`), true, "is an image (image/png) of 5.2 MB, larger than the 5.2 MB read can return")
}

func TestReadPaging(t *testing.T) {
	w := newWorkspace(t)
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", 40))
	}
	put(t, w.Root, map[string]string{"big.txt": b.String()})
	reg := registry(t, Read(w))

	res := call(t, reg, "read", `{"path":"big.txt"}`)
	expect(t, res, false, "     1\tline 1 ", "call read with offset=", "of 3000", fmt.Sprintf("stopped at about %d KB", ReadMaxBytes/1000))
	if n := len(res.Text()); n > ReadMaxBytes+200 {
		t.Fatalf("result is %d bytes, over the budget", n)
	}
	d := res.Details.(ReadDetails)
	if d.FirstLine != 1 || d.TotalLines != 3000 || d.LastLine < 200 || d.LastLine >= 2000 {
		t.Fatalf("details = %+v", d)
	}
	// Paging on from the footer's offset continues exactly where it stopped.
	next := call(t, reg, "read", fmt.Sprintf(`{"path":"big.txt","offset":%d,"limit":3}`, d.LastLine+1))
	want := numbered(d.LastLine+1,
		fmt.Sprintf("line %d %s", d.LastLine+1, strings.Repeat("x", 40)),
		fmt.Sprintf("line %d %s", d.LastLine+2, strings.Repeat("x", 40)),
		fmt.Sprintf("line %d %s", d.LastLine+3, strings.Repeat("x", 40)))
	if !strings.HasPrefix(next.Text(), want) {
		t.Fatalf("next page:\n%s\nwant prefix:\n%s", next.Text(), want)
	}
	last := call(t, reg, "read", `{"path":"big.txt","offset":2999}`)
	if strings.Contains(last.Text(), "continue") {
		t.Fatalf("last page has a footer:\n%s", last.Text())
	}
}

func TestReadHugeFile(t *testing.T) {
	w := newWorkspace(t)
	f, err := os.Create(filepath.Join(w.Root, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("z", 99) + "\n")
	chunk := bytes.Repeat(line, 10_000) // 1 MB
	for range 50 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	// and one enormous line at the end, without a newline
	f.Write(bytes.Repeat([]byte("y"), 3<<20))
	f.Close()
	reg := registry(t, Read(w))
	res := call(t, reg, "read", `{"path":"huge.log","limit":10}`)
	expect(t, res, false, "[showing lines 1–10 of 500001; call read with offset=11 to continue]")
	res = call(t, reg, "read", `{"path":"huge.log","offset":500001}`)
	expect(t, res, false, "500001\tyyy", "line cut: 3145728 bytes in total")
	if len(res.Text()) > 3000 {
		t.Fatalf("a cut line produced %d bytes", len(res.Text()))
	}
}
