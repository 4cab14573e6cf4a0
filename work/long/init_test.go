package long

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
)

func writeCall(path, content string) llm.Content {
	return call("write", map[string]string{"path": path, "content": content})
}

// The initializer's first files are wrong; it is told every problem with
// its line, fixes them, and only then are the files committed.
func TestInitValidatesAndRetries(t *testing.T) {
	f := newFixture(t, "")
	bad := "[\n  {\"id\": \"t1\", \"title\": \"write t1.txt\", \"acceptance_criteria\": [\"t1.txt holds done\"], \"status\": \"todo\"}\n]\n"
	var prompts []string
	p := model(20, func(s step) llm.Message {
		if s.last.Role == llm.RoleUser {
			prompts = append(prompts, s.last.Text())
		}
		switch s.n {
		case 0:
			return calls(writeCall("agent-progress.json", bad), writeCall("workspace.sh", "#!/bin/bash\nif true; then\n"))
		case 1:
			return text("planned")
		case 2:
			return calls(writeCall("agent-progress.json", planOf(2, nil)), writeCall("workspace.sh", "#!/bin/bash\necho ready\n"),
				writeCall("agent-notes.md", "# Notes\n\nTwo files, t1.txt and t2.txt.\n"))
		}
		return text("fixed")
	})
	res, err := Init(context.Background(), InitOptions{Options: f.options(p)}, "write two files")
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Counts != (Counts{Total: 2, Todo: 2}) || res.Commit == "" {
		t.Fatalf("result %+v", res)
	}
	if len(prompts) != 2 || !strings.Contains(prompts[0], "write two files") {
		t.Fatalf("prompts %q", prompts)
	}
	for _, want := range []string{`agent-progress.json:2: task 1: no "verify" commands`, "agent-notes.md: missing or empty", "workspace.sh:3: not valid bash"} {
		if !strings.Contains(prompts[1], want) {
			t.Errorf("the fix prompt lacks %q:\n%s", want, prompts[1])
		}
	}
	files := f.git("show", "--name-only", "--format=%s", res.Commit)
	for _, want := range []string{"long: plan of 2 tasks: write two files", "agent-progress.json", "agent-notes.md", "workspace.sh"} {
		if !strings.Contains(files, want) {
			t.Errorf("the plan commit lacks %q:\n%s", want, files)
		}
	}
	// A second init refuses to overwrite the plan.
	_, err = Init(context.Background(), InitOptions{Options: f.options(model(1, diligent))}, "again")
	if !errors.Is(err, ErrPlanExists) {
		t.Fatalf("second init: %v", err)
	}
}

// An initializer that never gets it right fails with the problems after
// the retries, and commits nothing.
func TestInitGivesUp(t *testing.T) {
	f := newFixture(t, "")
	head := f.git("rev-parse", "HEAD")
	p := model(20, func(s step) llm.Message {
		if s.n == 0 {
			return calls(writeCall("agent-progress.json", "[{\"id\": \"t1\""), writeCall("agent-notes.md", "notes"), writeCall("workspace.sh", "exit 3\n"))
		}
		return text("done")
	})
	_, err := Init(context.Background(), InitOptions{Options: f.options(p), Retries: 1}, "anything")
	var ie *InitError
	if !errors.As(err, &ie) || ie.Attempts != 2 {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{"agent-progress.json:1: invalid JSON", "workspace.sh: the script failed (exit 3)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if got := f.git("rev-parse", "HEAD"); got != head {
		t.Fatal("a failed init committed")
	}
}

// The anthropic preset: feature_list.json, claude-progress.txt, init.sh;
// a worker session marks the feature passing.
func TestAnthropicPresetEndToEnd(t *testing.T) {
	f := newFixture(t, "")
	f.write("feature_list.json", `[
  {"category": "functional", "description": "t1.txt holds done", "steps": ["cat t1.txt"], "passes": false, "verify": ["grep -qx done t1.txt"]}
]
`)
	f.write("claude-progress.txt", "Session log\n")
	f.write("init.sh", "echo ok\n")
	f.git("add", "-A")
	f.git("commit", "-qm", "plan")
	p := model(10, func(s step) llm.Message {
		if s.task != "1" {
			t.Errorf("task %q, want the feature's position 1", s.task)
		}
		s.task = "t1"
		return diligent(s)
	})
	o := f.options(p)
	o.Overrides.Preset = PresetAnthropic
	res, err := Work(context.Background(), WorkOptions{Options: o, UntilDone: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopDone {
		t.Fatalf("stop %s: %s", res.Stop, res.Detail)
	}
	got := f.read("feature_list.json")
	if !strings.Contains(got, `"passes": true`) || !strings.Contains(got, `"category": "functional"`) || !strings.Contains(got, `"evidence"`) {
		t.Fatalf("feature list:\n%s", got)
	}
	if !strings.Contains(f.read("claude-progress.txt"), "## Session") {
		t.Fatal("no notes entry in claude-progress.txt")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "agent-progress.json")); err == nil {
		t.Fatal("the rein preset's file was written")
	}
}
