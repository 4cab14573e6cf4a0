package long

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const goodPlan = `[
  {
    "id": "t1",
    "title": "add greet",
    "acceptance_criteria": ["greet prints hello"],
    "verify": ["test -f greet.txt", {"command": "grep -q hello greet.txt", "timeout": "30s"}],
    "status": "todo"
  },
  {
    "id": "t2",
    "title": "add farewell",
    "acceptance_criteria": ["bye"],
    "verify": ["test -f bye.txt"],
    "status": "in_progress"
  }
]
`

func TestParseGood(t *testing.T) {
	p, err := Parse(PresetRein, "agent-progress.json", []byte(goodPlan))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Counts(); got != (Counts{Total: 2, Todo: 1, InProgress: 1}) {
		t.Fatalf("counts %+v", got)
	}
	if n := p.Next(); n == nil || n.ID != "t2" {
		t.Fatalf("next is %+v, want the task in progress", n)
	}
	want := []Verify{{Command: "test -f greet.txt"}, {Command: "grep -q hello greet.txt", Timeout: 30 * time.Second}}
	if d := cmp.Diff(want, p.Tasks[0].Verify); d != "" {
		t.Fatal(d)
	}
	if p.Tasks[1].Line() != 9 {
		t.Fatalf("task 2 starts on line %d, want 9", p.Tasks[1].Line())
	}
	// Encoding and parsing again gives the same plan.
	data, err := encode(PresetRein, p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(PresetRein, "x", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if d := cmp.Diff(p.Tasks, q.Tasks, cmpopts.IgnoreUnexported(Task{})); d != "" {
		t.Fatal(d)
	}
}

func TestParseBad(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "agent-progress.json: the file is empty"},
		{"not array", "\n{\"id\": 1}", "agent-progress.json:2: the progress file is a JSON array of tasks"},
		{"syntax", "[\n {\"id\": \"a\",\n  \"title\": \"x\" \"status\": \"todo\"}\n]", "agent-progress.json:3: invalid JSON"},
		{"truncated", "[\n {\"id\": \"a\",\n", "agent-progress.json:3: invalid JSON: the file ends"},
		{"no tasks", "[]", "agent-progress.json:1: the task list is empty"},
		{"element not object", "[\n \"do it\"\n]", "agent-progress.json:2: task 1 is a string"},
		{"unknown field", "[\n{\"id\": \"a\", \"title\": \"x\",\n \"staus\": \"todo\"}]", `agent-progress.json:3: task 1: unknown field "staus"`},
		{"wrong type", "[\n{\"id\": \"a\", \"title\": \"x\",\n \"verify\": 3}]", `agent-progress.json:3: task 1: field "verify"`},
		{"missing verify", "[\n{\"id\": \"a\", \"title\": \"x\", \"acceptance_criteria\": [\"y\"], \"status\": \"todo\"}]", `agent-progress.json:2: task 1: no "verify" commands`},
		{"bad status", "[\n{\"id\": \"a\", \"title\": \"x\", \"acceptance_criteria\": [\"y\"], \"verify\": [\"true\"],\n \"status\": \"finished\"}]", `agent-progress.json:3: task 1: status "finished" is not one of`},
		{"duplicate id", goodPlan[:len(goodPlan)-3] + ",\n{\"id\": \"t1\", \"title\": \"x\", \"acceptance_criteria\": [\"y\"], \"verify\": [\"true\"], \"status\": \"todo\"}]", `agent-progress.json:16: task 3: id "t1" is already used by task 1`},
		{"two in progress", strings.Replace(goodPlan, `"todo"`, `"in_progress"`, 1), `agent-progress.json:14: task 2: task 1 is in_progress too`},
		{"cancelled without note", strings.Replace(goodPlan, `"todo"`, `"cancelled"`, 1), `agent-progress.json:7: task 1: a cancelled task needs a "note"`},
		{"bad timeout", strings.Replace(goodPlan, `"30s"`, `"soon"`, 1), `agent-progress.json:6: task 1: field "verify/1": verify timeout "soon"`},
		{"trailing text", goodPlan + "x", "agent-progress.json:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(PresetRein, "agent-progress.json", []byte(tc.data))
			var probs Problems
			if !errors.As(err, &probs) {
				t.Fatalf("error %v (%T), want Problems", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error\n%v\nwant it to start with\n%s", err, tc.want)
			}
		})
	}
}

func TestParseAnthropic(t *testing.T) {
	data := `[
  {"category": "functional", "description": "new chat button", "steps": ["open", "click"], "passes": true, "priority": 1},
  {"category": "style", "description": "dark mode", "steps": ["toggle"], "passes": false, "verify": ["true"]}
]`
	p, err := Parse(PresetAnthropic, "feature_list.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if p.Tasks[0].ID != "1" || p.Tasks[0].Status != StatusDone || p.Tasks[1].Status != StatusTodo || p.Tasks[1].Title != "dark mode" {
		t.Fatalf("tasks %+v", p.Tasks)
	}
	p.Tasks[1].Status = StatusInProgress
	out, err := encode(PresetAnthropic, p)
	if err != nil {
		t.Fatal(err)
	}
	// Fields rein does not use survive; the implicit ids are not written.
	for _, s := range []string{`"priority": 1`, `"category": "style"`, `"status": "in_progress"`, `"passes": true`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("rewritten file lacks %s:\n%s", s, out)
		}
	}
	if strings.Contains(string(out), `"id"`) {
		t.Errorf("rewritten file gained ids:\n%s", out)
	}
	// A feature with no verify commands is refused: nothing could prove it.
	_, err = Parse(PresetAnthropic, "feature_list.json", []byte(`[{"description": "x", "steps": ["y"], "passes": false}]`))
	if err == nil || !strings.Contains(err.Error(), `feature_list.json:1: task 1: no "verify" commands`) {
		t.Fatalf("error %v", err)
	}
}

func TestLayout(t *testing.T) {
	root := t.TempDir()
	l, err := LoadLayout(root, Overrides{})
	if err != nil || l.Progress != "agent-progress.json" || l.Notes != "agent-notes.md" || l.Setup != "workspace.sh" {
		t.Fatalf("%+v %v", l, err)
	}
	l, err = LoadLayout(root, Overrides{Preset: PresetAnthropic, Notes: "NOTES.md"})
	if err != nil || l.Progress != "feature_list.json" || l.Notes != "NOTES.md" || l.Setup != "init.sh" {
		t.Fatalf("%+v %v", l, err)
	}
	os.MkdirAll(filepath.Join(root, ".rein"), 0o755)
	write := func(s string) {
		if err := os.WriteFile(ConfigFile(root), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("{\n \"preset\": \"anthropic\",\n \"progress\": \"plan/features.json\",\n \"verify_timeout\": \"45s\"\n}")
	l, err = LoadLayout(root, Overrides{})
	if err != nil || l.Progress != "plan/features.json" || l.Notes != "claude-progress.txt" || l.VerifyTimeout != 45*time.Second {
		t.Fatalf("%+v %v", l, err)
	}
	for _, tc := range []struct{ data, want string }{
		{"{\n \"presets\": \"rein\"\n}", `long.json:2: unknown field "presets"`},
		{"{\n \"preset\": \"claude\"\n}", `long.json:2: unknown preset "claude"`},
		{"{\n \"progress\": \"../x.json\"\n}", `long.json:2: progress file "../x.json" leads outside`},
		{"{\n \"notes\": \"agent-progress.json\"\n}", `long.json:2: notes file "agent-progress.json" is also the progress file`},
		{"{\n \"setup_timeout\": \"-1s\"\n}", `long.json:2: setup_timeout "-1s" is not a positive duration`},
		{"{\n \"preset\": \"rein\",\n", `long.json:3: invalid JSON`},
	} {
		write(tc.data)
		_, err := LoadLayout(root, Overrides{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %q: error %v, want %s", tc.data, err, tc.want)
		}
	}
}

func TestStoreUpdateAtomicUnderLock(t *testing.T) {
	root := t.TempDir()
	s := NewStore(root, DefaultLayout(PresetRein))
	if _, err := s.Load(); err == nil || !strings.Contains(err.Error(), "rein long init") {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(s.ProgressPath(), []byte(goodPlan), 0o600); err != nil {
		t.Fatal(err)
	}
	// Concurrent updates each add one task: none is lost.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			_, err := s.Update(func(p *Plan) error {
				p.Tasks = append(p.Tasks, Task{ID: "n" + string(rune('a'+i)), Title: "x", Acceptance: []string{"y"}, Verify: []Verify{{Command: "true"}}, Status: StatusTodo})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	p, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 22 {
		t.Fatalf("%d tasks after 20 concurrent adds to 2", len(p.Tasks))
	}
	if fi, _ := os.Stat(s.ProgressPath()); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want the file's own 0600 kept", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".agent-progress.json.tmp-*")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	// An update that would make the plan invalid writes nothing.
	before, _ := os.ReadFile(s.ProgressPath())
	_, err = s.Update(func(p *Plan) error { p.Tasks[0].Status = "finished"; return nil })
	if err == nil {
		t.Fatal("invalid update accepted")
	}
	after, _ := os.ReadFile(s.ProgressPath())
	if string(before) != string(after) {
		t.Fatal("a refused update changed the file")
	}
	// A change behind the store's back is seen and undone.
	if ch, _ := s.Changed(); ch {
		t.Fatal("changed without a change")
	}
	os.WriteFile(s.ProgressPath(), []byte("[]"), 0o600)
	if ch, _ := s.Changed(); !ch {
		t.Fatal("outside change not seen")
	}
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(s.ProgressPath()); string(got) != string(after) {
		t.Fatal("restore did not bring the file back")
	}
}

func TestNotes(t *testing.T) {
	s := NewStore(t.TempDir(), DefaultLayout(PresetRein))
	if tail, err := s.NotesTail(100); err != nil || tail != "" {
		t.Fatalf("%q %v", tail, err)
	}
	os.WriteFile(s.NotesPath(), []byte("# Notes\nno newline at end"), 0o644)
	if err := s.AppendNotes("## Session 1\ndid t1"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(s.NotesPath())
	if string(got) != "# Notes\nno newline at end\n\n## Session 1\ndid t1\n" {
		t.Fatalf("%q", got)
	}
	tail, _ := s.NotesTail(20)
	if tail != "## Session 1\ndid t1\n" {
		t.Fatalf("tail %q", tail)
	}
}
