package replay

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFilesInOrder replays more files than workers, one of them broken,
// and checks that results come in the order of the paths, each with its
// own entries, and that stopping early leaves nothing running (goleak in
// TestMain).
func TestFilesInOrder(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 9 {
		p := filepath.Join(dir, strconv.Itoa(i)+".jsonl")
		var lines []string
		for j := range i + 1 {
			lines = append(lines, `{"tool":"bash","args":{"command":"echo `+strconv.Itoa(j)+`"},"result":"ok"}`)
		}
		if i == 4 {
			lines = []string{"not json at all", "nor this", "{"}
		}
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	paths = append(paths, filepath.Join(dir, "missing.jsonl"))
	i := 0
	for r := range Files(paths, Options{}, 3) {
		if r.Path != paths[i] {
			t.Fatalf("result %d is %s, want %s", i, r.Path, paths[i])
		}
		switch {
		case i == 4 || i == 9:
			if r.Err == nil {
				t.Errorf("%s: no error", r.Path)
			}
		case r.Err != nil:
			t.Errorf("%s: %v", r.Path, r.Err)
		case len(r.Entries) != i+1 || r.Summary.Calls != i+1 || r.Entries[i].I != i:
			t.Errorf("%s: %d entries, summary %d calls", r.Path, len(r.Entries), r.Summary.Calls)
		}
		i++
	}
	if i != len(paths) {
		t.Fatalf("%d results for %d paths", i, len(paths))
	}
	n := 0
	for range Files(paths, Options{}, 2) {
		if n++; n == 2 {
			break
		}
	}
}
