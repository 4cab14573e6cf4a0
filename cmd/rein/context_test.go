package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

func TestContextReplay(t *testing.T) {
	trajs, _ := filepath.Glob("../../testdata/trajectories/swe-agent/*/*.traj")
	pis, _ := filepath.Glob("../../testdata/sessions/pi/*.jsonl")
	others := []string{"../../trajectory/testdata/claude-code-session.jsonl", "../../trajectory/testdata/claude-stream.jsonl", "../../trajectory/testdata/neutral.jsonl", "../../trajectory/testdata/rein-session.jsonl"}
	if len(trajs) == 0 || len(pis) == 0 {
		t.Fatal("test recordings missing")
	}
	// A rein session log made by a run.
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte(strings.Repeat("hello\n", 3000)), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", ws, "what does a.txt say?"); code != 0 {
		t.Fatalf("run: %d %s", code, errOut)
	}
	files := append(append(append(trajs, pis...), others...), latestSession(t, ws))

	code, out, errOut := runCLI(t, "", append([]string{"context", "replay", "--window", "8000"}, files...)...)
	if code != 0 {
		t.Fatalf("replay: %d %s", code, errOut)
	}
	for _, want := range []string{"(swe-agent)", "(pi)", "(rein)", "(claude-code)", "(neutral)", "all " + itoa(len(files)) + " files", "masking+compaction"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	// JSON: one object a file; pairs whole; masking never costs more.
	code, out, _ = runCLI(t, "", append([]string{"context", "replay", "--window", "8000", "-o", "json"}, files...)...)
	if code != 0 {
		t.Fatal(code)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, `{"total"`) {
			continue
		}
		var r coding.ContextReplay
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if r.PairsWhole != r.Pairs || r.Masked > r.None || r.Compacted > r.None || len(r.Turns) == 0 {
			t.Fatalf("%s: %+v", r.File, r.ReplayResult)
		}
		n++
	}
	if n != len(files) {
		t.Fatalf("%d results for %d files", n, len(files))
	}
	// A config with a misspelt key is refused, naming the keys.
	bad := filepath.Join(t.TempDir(), "context.json")
	os.WriteFile(bad, []byte(`{"hard_threshold": 0.7}`), 0o644)
	code, _, errOut = runCLI(t, "", "context", "replay", "--config", bad, files[0])
	if code != 2 || !strings.Contains(errOut, "hard_threshold") || !strings.Contains(errOut, "keep_tokens") {
		t.Fatalf("bad config: %d %q", code, errOut)
	}
	// A file that is no recording is reported; the others still run.
	junk := filepath.Join(t.TempDir(), "junk.txt")
	os.WriteFile(junk, []byte("not a recording"), 0o644)
	code, out, errOut = runCLI(t, "", "context", "replay", junk, files[0])
	if code != 1 || !strings.Contains(errOut, "junk.txt") || !strings.Contains(out, "(swe-agent)") {
		t.Fatalf("junk: %d %q %q", code, out, errOut)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestSessionsCompactAndHandoff(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", ws, "what does a.txt say?"); code != 0 {
		t.Fatalf("run: %d %s", code, errOut)
	}
	path := latestSession(t, ws)
	// The summary comes from the scripted model.
	summary := writeScript(t, t.TempDir(), `{"text": "## Goal\nwhat does a.txt say?\n## Progress\nread a.txt (1 of 1)"}`)
	code, out, errOut := runCLI(t, "", "sessions", "compact", "-C", ws, "--script", summary, "last")
	if code != 0 || !strings.Contains(out, "compacted") || !strings.Contains(out, "summary by faux/faux") {
		t.Fatalf("compact: %d %q %q", code, out, errOut)
	}
	_, entries, _, _ := session.ReadFile(path)
	c := session.BuildContext(entries, session.LastLeaf(entries))
	if c.Compaction == "" || !strings.Contains(c.Messages[0].Text(), "read a.txt (1 of 1)") {
		t.Fatalf("no compaction in the log: %+v", c.Messages)
	}
	// No model answers: the digest, and the user is told.
	empty := writeScript(t, t.TempDir(), `{"text": ""}`)
	code, out, _ = runCLI(t, "", "sessions", "compact", "-C", ws, "--script", empty, path)
	if code != 0 || !strings.Contains(out, "digest") {
		t.Fatalf("compact with no summariser: %d %q", code, out)
	}

	briefing := writeScript(t, t.TempDir(), `{"text": "## Goal\nwhat does a.txt say?\n## Next\nanswer hello"}`)
	code, out, errOut = runCLI(t, "", "sessions", "handoff", "-C", ws, "--script", briefing, path)
	if code != 0 || !strings.Contains(out, "handed off") {
		t.Fatalf("handoff: %d %q %q", code, out, errOut)
	}
	childPath := strings.Fields(out[strings.Index(out, " to ")+4:])[0]
	h, centries, _, err := session.ReadFile(childPath)
	if err != nil {
		t.Fatal(err)
	}
	oh, _, _, _ := session.ReadFile(path)
	cc := session.BuildContext(centries, session.LastLeaf(centries))
	if h.Parent != oh.ID || len(cc.Messages) != 1 || !strings.Contains(cc.Messages[0].Text(), "answer hello") {
		t.Fatalf("child: parent %q (want %q), %+v", h.Parent, oh.ID, cc.Messages)
	}
}

func TestChatCompactCommand(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", ws, "what does a.txt say?"); code != 0 {
		t.Fatalf("run: %d %s", code, errOut)
	}
	summary := writeScript(t, t.TempDir(), `{"text": "## Goal\nwhat does a.txt say?\n## Progress\ndone"}`)
	code, out, errOut := runCLI(t, "/compact the file\n/exit\n", "sessions", "resume", "-C", ws, "--script", summary, "last")
	if code != 0 || !strings.Contains(out, "compacted") {
		t.Fatalf("chat /compact: %d %q %q", code, out, errOut)
	}
}

// TestContextReplayUsesTheRecordedWindow: a rein log replays at the
// window its model_change recorded, a Claude Code session at its model's
// window from the catalog; --window replaces both.
func TestContextReplayUsesTheRecordedWindow(t *testing.T) {
	s, err := session.Create(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	add := func(e session.Entry) {
		t.Helper()
		if _, err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	add(session.Entry{Type: session.TypeModelChange, Provider: "test", Model: "small", ContextWindow: 16_000})
	user := llm.UserText("convert every file under src/ and keep src/main.go working")
	add(session.Entry{Type: session.TypeMessage, Message: &user})
	for i := range 150 {
		id := "c" + itoa(i)
		call := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.ToolCall(id, "read", []byte(`{"path":"src/f`+itoa(i)+`.go"}`))}}
		res := llm.ToolResult(id, "read", false, llm.Text(strings.Repeat("line of src/main.go\n", 400)))
		add(session.Entry{Type: session.TypeMessage, Message: &call})
		add(session.Entry{Type: session.TypeMessage, Message: &res})
	}
	done := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("done")}}
	add(session.Entry{Type: session.TypeMessage, Message: &done})
	path := s.Path()
	s.Close()

	code, out, errOut := runCLI(t, "", "context", "replay", "-o", "json", path, "../../trajectory/testdata/claude-code-session.jsonl")
	if code != 0 {
		t.Fatalf("replay: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var rein, cc coding.ContextReplay
	if len(lines) != 3 || json.Unmarshal([]byte(lines[0]), &rein) != nil || json.Unmarshal([]byte(lines[1]), &cc) != nil {
		t.Fatalf("output:\n%s", out)
	}
	if rein.Window != 16_000 || rein.WindowFrom != "model" || rein.Compactions == 0 || rein.GoalMissing != 0 || rein.IdentsMissing != 0 {
		t.Fatalf("rein log: %+v", rein)
	}
	if cc.WindowFrom != "model" || cc.Model != "claude-sonnet-4-5-20250929" || cc.Window < 200_000 {
		t.Fatalf("claude code session: model %q, window %d from %s", cc.Model, cc.Window, cc.WindowFrom)
	}
	code, out, _ = runCLI(t, "", "context", "replay", "--window", "128000", "-o", "json", path)
	var wide coding.ContextReplay
	if code != 0 || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &wide) != nil || wide.WindowFrom != "flag" || wide.Compactions != 0 {
		t.Fatalf("--window 128000: %d %s", code, out)
	}
	// Text output names the window's source, per file and in total.
	_, out, _ = runCLI(t, "", "context", "replay", path, "../../trajectory/testdata/claude-code-session.jsonl")
	for _, want := range []string{"window 16000 tokens (of test/small)", "(of claude-sonnet-4-5-20250929)", "all 2 files", "summaries: goal verbatim in"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}
