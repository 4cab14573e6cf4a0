package interop

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// bundleWorkspace makes a workspace whose main session has work items,
// a fork, a sub-agent child and that child's own sub-agent, next to an
// unrelated session, with run records for all of them.
func bundleWorkspace(t *testing.T) (ws string, main *Session, ids []string) {
	t.Helper()
	ws = t.TempDir()
	dir := session.DefaultDir(ws)
	open := func(o session.Options) *session.Session {
		o.Dir, o.Cwd = dir, ws
		s, err := session.Create(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	m := open(session.Options{})
	m.AppendMessage(llm.UserText("Refactor the store."))
	if _, err := m.Append(session.Entry{Type: session.TypeWorkItems, Items: json.RawMessage(`[{"id":"w1","title":"split page.go","status":"in_progress"}]`)}); err != nil {
		t.Fatal(err)
	}
	e, _ := m.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("On it.")}})
	fork, err := m.Fork(e.ID, session.Options{Dir: dir, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	fork.AppendMessage(llm.UserText("Try another way."))
	fork.Close()
	child := open(session.Options{Agent: &session.AgentLink{ParentSession: m.ID(), ParentPath: m.Path(), ParentCall: "call_1", Type: "explore", Depth: 1}})
	child.AppendMessage(llm.UserText("Find the callers of Page."))
	grand := open(session.Options{Agent: &session.AgentLink{ParentSession: child.ID(), ParentPath: child.Path(), ParentCall: "call_9", Type: "explore", Depth: 2}})
	grand.AppendMessage(llm.UserText("Look in cmd/."))
	other := open(session.Options{})
	other.AppendMessage(llm.UserText("Unrelated."))
	runs := filepath.Join(ws, ".rein", "runs")
	os.MkdirAll(runs, 0o755)
	var lines []string
	for i, id := range []string{m.ID(), child.ID(), grand.ID(), fork.ID(), other.ID()} {
		run := func(outcome string) string {
			return `{"v":1,"id":"run` + string(rune('a'+i)) + `","session":"` + id + `","trigger":"user","start":"2026-11-02T10:00:00Z","outcome":"` + outcome + `"}`
		}
		lines = append(lines, run("interrupted"), run("completed"))
	}
	lines = append(lines, `{not a record`)
	if err := os.WriteFile(filepath.Join(runs, "runs-2026-11.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	main, err = LoadSession(m.Path())
	if err != nil {
		t.Fatal(err)
	}
	return ws, main, []string{m.ID(), fork.ID(), child.ID(), grand.ID()}
}

// TestBundleCarriesTheFamily: a bundle holds the session, its fork, its
// sub-agents (nested) and their run records; restored in another
// workspace the sessions keep their ids, their links point at the new
// files, the work items are there, the runs are added once, and a second
// restore is refused without writing anything.
func TestBundleCarriesTheFamily(t *testing.T) {
	_, main, ids := bundleWorkspace(t)
	var buf bytes.Buffer
	rep, err := Export(&buf, main, Bundle, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rep.Dropped {
		if !strings.Contains(d.Where, "runs-2026-11.jsonl:11") {
			t.Errorf("dropped %s", d)
		}
	}
	if !IsBundle(buf.Bytes()) || Detect(buf.Bytes()[:64]) != Rein {
		t.Fatal("the bundle is not recognised from its first bytes")
	}

	target := t.TempDir()
	dir, runs := session.DefaultDir(target), filepath.Join(target, ".rein", "runs")
	res, err := RestoreBundle(buf.Bytes(), "b.json", dir, target, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, id := range res.IDs {
		got[id] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("session %s was not restored (restored %v)", id, res.IDs)
		}
	}
	if len(res.IDs) != 4 || res.IDs[0] != ids[0] || res.Runs != 4 || res.RunsKnown != 0 {
		t.Fatalf("restored %v, %d runs (%d known); want the 4 sessions, main first, and their 4 runs", res.IDs, res.Runs, res.RunsKnown)
	}
	paths := map[string]string{}
	for i, id := range res.IDs {
		paths[id] = res.Paths[i]
	}
	for i, p := range res.Paths {
		h, entries, _, err := session.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if h.Cwd != target {
			t.Errorf("%s: cwd %s, want %s", p, h.Cwd, target)
		}
		switch {
		case h.Parent != "":
			if h.ParentPath != paths[h.Parent] {
				t.Errorf("fork %s: parent path %s, want %s", h.ID, h.ParentPath, paths[h.Parent])
			}
		case h.Agent != nil:
			if h.Agent.ParentPath != paths[h.Agent.ParentSession] || h.Agent.ParentPath == "" {
				t.Errorf("sub-agent %s: parent path %s, want %s", h.ID, h.Agent.ParentPath, paths[h.Agent.ParentSession])
			}
		case i != 0:
			t.Errorf("%s is neither a fork nor a sub-agent", h.ID)
		}
		if i == 0 {
			items := false
			for _, e := range entries {
				items = items || e.Type == session.TypeWorkItems && strings.Contains(string(e.Items), "split page.go")
			}
			if !items {
				t.Error("the work items did not travel")
			}
		}
	}
	data, _ := os.ReadFile(filepath.Join(runs, "runs-2026-11.jsonl"))
	if n := strings.Count(string(data), "\n"); n != 4 || strings.Contains(string(data), "rune") {
		t.Errorf("the run store holds %d lines, want the last line of the 4 family runs:\n%s", n, data)
	}
	if strings.Contains(string(data), "interrupted") {
		t.Errorf("a run's first line travelled instead of its record:\n%s", data)
	}

	before, _ := os.ReadDir(dir)
	_, err = RestoreBundle(buf.Bytes(), "b.json", dir, target, runs, nil)
	var exists *session.ExistsError
	if !errors.As(err, &exists) || exists.ID != ids[0] {
		t.Fatalf("a second restore: %v, want an ExistsError for %s", err, ids[0])
	}
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("the refused restore wrote files: %d before, %d after", len(before), len(after))
	}
}
