package builtin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/tool"
)

// benchTree writes about 5,000 source files in nested directories, with
// a .gitignore that hides one directory in ten, and returns their count.
func benchTree(b *testing.B) (Workspace, int) {
	b.Helper()
	w := newWorkspace(b)
	var gi strings.Builder
	files := 0
	for d := range 50 {
		dir := fmt.Sprintf("pkg%02d/sub%d", d, d%5)
		if d%10 == 9 {
			fmt.Fprintf(&gi, "%s/\n", dir)
		}
		if err := os.MkdirAll(filepath.Join(w.Root, dir), 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			var src strings.Builder
			fmt.Fprintf(&src, "package pkg%02d\n\n", d)
			for l := range 40 {
				fmt.Fprintf(&src, "func F%d_%d(x int) int { return x * %d } // helper\n", f, l, l)
			}
			if f%25 == 0 {
				src.WriteString("// TODO: remove this needle\n")
			}
			name := filepath.Join(w.Root, dir, fmt.Sprintf("file%03d.go", f))
			if err := os.WriteFile(name, []byte(src.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			files++
		}
	}
	if err := os.WriteFile(filepath.Join(w.Root, ".gitignore"), []byte(gi.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return w, files
}

// BenchmarkRead reads a 10,000-line file from start to end, following
// the footers from page to page as a model would.
func BenchmarkRead(b *testing.B) {
	w := newWorkspace(b)
	var src strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&src, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	put(b, w.Root, map[string]string{"big.txt": src.String()})
	reg := registry(b, Read(w))
	b.ReportAllocs()
	b.SetBytes(int64(src.Len()))
	calls := 0
	for b.Loop() {
		for offset := 1; offset > 0; calls++ {
			res := call(b, reg, "read", fmt.Sprintf(`{"path":"big.txt","offset":%d}`, offset))
			d, ok := res.Details.(ReadDetails)
			if res.IsError || !ok {
				b.Fatal(res.Text())
			}
			offset = 0
			if d.LastLine < d.TotalLines {
				offset = d.LastLine + 1
			}
		}
	}
	b.ReportMetric(float64(b.N)*10_000/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
}

func benchGrep(b *testing.B, o GrepOptions) {
	w, files := benchTree(b)
	reg := registry(b, Grep(w, o))
	b.ReportAllocs()
	var res tool.Result
	for b.Loop() {
		res = call(b, reg, "grep", `{"pattern":"TODO: .*needle"}`)
	}
	if res.IsError || !strings.Contains(res.Text(), "needle") {
		b.Fatal(res.Text())
	}
	b.ReportMetric(float64(b.N)*float64(files)/b.Elapsed().Seconds(), "files/s")
}

func BenchmarkGrepFallback(b *testing.B) { benchGrep(b, GrepOptions{NoRipgrep: true}) }

func BenchmarkGrepRipgrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not installed")
	}
	benchGrep(b, GrepOptions{RipgrepPath: rg})
}

func BenchmarkFind(b *testing.B) {
	w, files := benchTree(b)
	reg := registry(b, Find(w))
	b.ReportAllocs()
	var res tool.Result
	for b.Loop() {
		res = call(b, reg, "find", `{"pattern":"**/file0*.go","limit":100000}`)
	}
	if res.IsError || !strings.Contains(res.Text(), "file001.go") {
		b.Fatal(res.Text())
	}
	b.ReportMetric(float64(b.N)*float64(files)/b.Elapsed().Seconds(), "files/s")
}
