package replay

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/reinhq/rein/trajectory"
)

// gcProbe records the collector's target percentage when each file is
// reported.
type gcProbe struct{ seen []int }

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func (g *gcProbe) File(string, *trajectory.Session) { g.seen = append(g.seen, gcPercent()) }
func (g *gcProbe) Entry(Entry)                      {}
func (g *gcProbe) Summary(Summary) error            { return nil }

// GCPercent holds while Report runs and is restored after; without it
// Report leaves the setting alone. Workers 0 replays every file (one per
// core) in the order given.
func TestReportGCPercent(t *testing.T) {
	dir := t.TempDir()
	call := `{"turn":1,"tool":"bash","args":{"command":"ls"},"result":"x","is_error":false}` + "\n"
	var paths []string
	for _, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(call), 0o644)
		paths = append(paths, p)
	}
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)

	var g gcProbe
	if failed, err := Report(paths, ReportOptions{GCPercent: 400}, &g); err != nil || failed != 0 {
		t.Fatal(failed, err)
	}
	if len(g.seen) != 3 || g.seen[0] != 400 || g.seen[2] != 400 {
		t.Errorf("during the replay: %v", g.seen)
	}
	if p := gcPercent(); p != 150 {
		t.Errorf("after the replay: %d", p)
	}
	g = gcProbe{}
	if _, err := Report(paths, ReportOptions{}, &g); err != nil || len(g.seen) != 3 || g.seen[0] != 150 {
		t.Errorf("without GCPercent: %v %v", g.seen, err)
	}
}
