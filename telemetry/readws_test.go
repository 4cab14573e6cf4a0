package telemetry

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ReadWorkspace reads the workspace's store, passes each skipped line
// on with its file relative to the workspace, and finds nothing in a
// workspace without runs.
func TestReadWorkspace(t *testing.T) {
	root := t.TempDir()
	if recs, err := ReadWorkspace(root, time.Time{}, func(p Problem) { t.Errorf("problem %v", p) }); err != nil || recs != nil {
		t.Fatalf("no store: %v %v", recs, err)
	}
	start := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	s := NewStore(DefaultDir(root))
	for i, id := range []string{"r1", "r2"} {
		if err := s.Append(&Record{Version: 1, ID: id, Start: start.Add(time.Duration(i) * time.Hour), Outcome: OutcomeCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(DefaultDir(root), "runs-2026-11.jsonl")
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()

	var skipped []string
	recs, err := ReadWorkspace(root, start.Add(30*time.Minute), func(p Problem) { skipped = append(skipped, p.String()) })
	if err != nil || len(recs) != 1 || recs[0].ID != "r2" {
		t.Fatalf("since: %+v %v", recs, err)
	}
	want := filepath.Join(".rein", "runs", "runs-2026-11.jsonl") + ":3: "
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], want) {
		t.Errorf("skipped %q, want one starting %q", skipped, want)
	}
	if recs, err := ReadWorkspace(root, time.Time{}, nil); err != nil || len(recs) != 2 {
		t.Errorf("nil skipped: %d %v", len(recs), err)
	}

}

// FindRef takes "last" for the latest record and anything else as Find
// does.
func TestFindRef(t *testing.T) {
	recs := []Record{{ID: "abc1"}, {ID: "abd2"}, {ID: "ffe3"}}
	if r, err := FindRef(recs, "last"); err != nil || r.ID != "ffe3" {
		t.Errorf("last: %+v %v", r, err)
	}
	if r, err := FindRef(recs, "abd"); err != nil || r.ID != "abd2" {
		t.Errorf("prefix: %+v %v", r, err)
	}
	if _, err := FindRef(recs, "ab"); err == nil || !strings.Contains(err.Error(), "matches 2 runs") {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := FindRef(nil, "last"); err == nil || !strings.Contains(err.Error(), `no run "last"`) {
		t.Errorf("last of none: %v", err)
	}
}

// WriteJSONL writes one decodable record a line, in order.
func TestWriteJSONL(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSONL(&b, []Record{{ID: "a", Model: "m"}, {ID: "b"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	var r Record
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil || r.ID != "a" || r.Model != "m" {
		t.Errorf("first line %s: %v", lines[0], err)
	}
	if err := WriteJSONL(&b, nil); err != nil {
		t.Error(err)
	}
	if err := WriteJSONL(failWriter{}, []Record{{ID: "a"}}); err == nil {
		t.Error("a failing writer gave no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }
