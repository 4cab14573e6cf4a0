package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReport replays a good file, an empty one, a missing one and one
// with a malformed line, and checks what reaches the reporter, the
// warnings, the problems and the count of failed files, in both output
// formats.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	call := `{"turn":1,"tool":"bash","args":{"command":"cat a.txt"},"result":"same","is_error":false}`
	good := write("good.jsonl", call+"\n"+call+"\n")
	empty := write("empty.jsonl", " \n\n")
	mixed := write("mixed.jsonl", call+"\nnot json\n")
	missing := filepath.Join(dir, "missing.jsonl")
	paths := []string{good, empty, missing, mixed}

	var warns, problems []string
	opts := ReportOptions{
		Workers: 2,
		Warn:    func(m string) { warns = append(warns, m) },
		Problem: func(m string) { problems = append(problems, m) },
	}
	var table bytes.Buffer
	failed, err := Report(paths, opts, NewTable(&table))
	if err != nil || failed != 1 {
		t.Fatalf("failed %d, err %v; want 1 failed file", failed, err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "empty.jsonl is empty") {
		t.Errorf("warnings %q", warns)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "missing.jsonl") || !strings.Contains(problems[1], "mixed.jsonl") {
		t.Errorf("problems %q", problems)
	}
	out := table.String()
	for _, want := range []string{"good.jsonl (neutral, 2 calls)", "mixed.jsonl (neutral, 1 call)", "LINE", "Summary: 2 files, 3 calls (1 malformed line skipped)", "decisions: allow"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	var jl bytes.Buffer
	if _, err := Report(paths, ReportOptions{Workers: 1}, NewJSONL(&jl)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(jl.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d JSON lines, want 3 calls and a summary:\n%s", len(lines), jl.String())
	}
	var e Entry
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Tool != "bash" {
		t.Errorf("first line %s: %v", lines[0], err)
	}
	var last struct{ Summary Summary }
	if err := json.Unmarshal([]byte(lines[3]), &last); err != nil || last.Summary.Calls != 3 || last.Summary.Files != 2 {
		t.Errorf("summary line %s: %v", lines[3], err)
	}
}

// TestCounts checks the order of counts: the given keys first, then the
// rest sorted, and "none" for nothing.
func TestCounts(t *testing.T) {
	got := counts(map[string]int{"z": 1, "block": 2, "a": 3, "allow": 0}, []string{"allow", "block"})
	if got != "block 2, a 3, z 1" {
		t.Errorf("counts = %q", got)
	}
	if got := counts(nil, nil); got != "none" {
		t.Errorf("counts(nil) = %q", got)
	}
}
