package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		var r replayFile
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
