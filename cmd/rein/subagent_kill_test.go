//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
)

// The parent spawns three background children; everyone then takes
// turns running short commands from the one scripted queue until the
// answers run out.
const spawnScript = `{"text": "Delegating.", "tool_calls": [` +
	`{"name": "agent", "arguments": {"subagent_type": "general", "description": "one", "prompt": "work one", "run_in_background": true}},` +
	`{"name": "agent", "arguments": {"subagent_type": "general", "description": "two", "prompt": "work two", "run_in_background": true}},` +
	`{"name": "agent", "arguments": {"subagent_type": "general", "description": "three", "prompt": "work three", "run_in_background": true}}]}
`

// TestKill9ParentWithBackgroundChildren kills a real rein with SIGKILL at
// random moments while it runs a parent with three background children,
// then opens the parent's session again as a resume would. Every file
// must load, every child the log or a header names must have exactly one
// spawned and one terminal entry in the parent's log, and every tool call
// of every log a result. REIN_SUBAGENT_KILL_TRIALS sets the number of
// kills (.ci/run asks for 50); the default run does 8. The moment of each
// kill is logged with its seed. The scripts vary, so that children also
// complete or are cancelled before some of the kills and every terminal
// entry is exercised.
func TestKill9ParentWithBackgroundChildren(t *testing.T) {
	trials := 8
	if v := os.Getenv("REIN_SUBAGENT_KILL_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("REIN_SUBAGENT_KILL_TRIALS=%q is not a positive number", v)
		}
		trials = n
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	step := func(secs string) string {
		return `{"text": "step", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep ` + secs + `"}}]}` + "\n"
	}
	finished := `{"text": "finished"}` + "\n"
	// The scripts differ in how the children end when no kill comes
	// first. long: they outlive every kill (orphaned). complete: the
	// parent sleeps while the children take their final answers
	// (completed). cancel: the parent answers at once and rein closes it,
	// which cancels the children still running (cancelled).
	scripts := map[string]string{
		"long":     spawnScript + strings.Repeat(step("0.05"), 16) + strings.Repeat(finished, 8),
		"complete": spawnScript + step("0.3") + strings.Repeat(finished, 3) + strings.Repeat(step("0.05"), 4) + strings.Repeat(finished, 8),
		"cancel":   spawnScript + finished + strings.Repeat(step("0.2"), 16) + strings.Repeat(finished, 8),
	}
	counts := map[string]int{}
	for i := range trials {
		// A quarter of the kills land early (the first turn, the spawns)
		// and a quarter after the first child's session exists, on
		// children that outlive them; the other half on children that
		// complete or are cancelled unless the kill comes first.
		kind := []string{"long", "long", "complete", "cancel"}[i%4]
		afterChild := i%4 == 1
		delay := time.Duration(rng.IntN(200)) * time.Millisecond
		if i%4 != 0 {
			delay = time.Duration(rng.IntN(1200)) * time.Millisecond
		}
		got := killSpawnTrial(t, scripts[kind], afterChild, delay)
		for k, v := range got {
			counts[k] += v
		}
	}
	t.Logf("%d kills: %v", trials, counts)
	// With the full run every ending is exercised. Each is likely enough
	// per trial that missing one over 50 means the fixture broke.
	if trials >= 40 {
		for _, k := range []string{"completed", "cancelled", "orphaned"} {
			if counts[k] == 0 {
				t.Errorf("no child ended %s over %d kills: %v", k, trials, counts)
			}
		}
	}
}

// killSpawnTrial runs one rein, kills it, reopens the parent and checks
// the logs; it returns the terminal states it found.
func killSpawnTrial(t *testing.T, script string, afterChild bool, delay time.Duration) map[string]int {
	t.Helper()
	ws, home := t.TempDir(), t.TempDir()
	sp := writeScript(t, t.TempDir(), script)
	cmd := exec.Command(os.Args[0], "run", "-m", "faux", "--script", sp, "-C", ws, "work")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "REIN_SANDBOX=off", "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dir := session.DefaultDir(ws)
	// Spin (no sleep) until the parent's session (or a child's) exists,
	// or rein ends.
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
spin:
	for {
		select {
		case <-exited:
			break spin
		default:
		}
		if afterChild && hasChildSession(dir) || !afterChild && hasSession(dir) {
			break
		}
	}
	time.Sleep(delay) // the moment of the kill is the trial's input
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	what := "kill " + delay.String() + " after the parent's session began"
	if afterChild {
		what = "kill " + delay.String() + " after the first child's session began"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	parent := ""
	for _, f := range files {
		h, _, _, err := session.ReadFile(f)
		if err != nil {
			t.Fatalf("%s: %s does not load: %v", what, filepath.Base(f), err)
		}
		if h.Agent == nil {
			parent = f
		}
	}
	if parent == "" {
		return map[string]int{"before the session": 1}
	}
	// Reopen the parent and go on, as a resume does.
	a, err := coding.Open(context.Background(), coding.Options{Workdir: ws, Session: parent, Provider: faux.New(faux.Text("resumed"), faux.Text("resumed"), faux.Text("resumed"), faux.Text("resumed")), ModelInfo: faux.Model(),
		NoRunRecords: true, Getenv: func(k string) string {
			switch k {
			case "HOME":
				return home
			case "PATH":
				return os.Getenv("PATH")
			}
			return ""
		}})
	if err != nil {
		t.Fatalf("%s: reopening the parent: %v\n%s", what, err, stderr.String())
	}
	// The next prompt settles the calls the crash left open.
	if _, err := a.Submit(context.Background(), "go on"); err != nil {
		t.Fatalf("%s: resuming: %v", what, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ = filepath.Glob(filepath.Join(dir, "*.jsonl"))
	_, entries, _, err := session.ReadFile(parent)
	if err != nil {
		t.Fatalf("%s: the parent does not load after reopening: %v", what, err)
	}
	spawned, terminal := map[string]int{}, map[string][]string{}
	for _, e := range entries {
		if e.Type != session.TypeCustom || e.Kind != subagent.EntryKind {
			continue
		}
		var d struct{ Event, ID string }
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Event == "spawned" {
			spawned[d.ID]++
		} else {
			terminal[d.ID] = append(terminal[d.ID], d.Event)
		}
	}
	out := map[string]int{}
	for _, f := range files {
		h, entries, _, err := session.ReadFile(f)
		if err != nil {
			t.Fatalf("%s: %s does not load after reopening: %v", what, filepath.Base(f), err)
		}
		if h.Agent != nil && spawned[h.ID] == 0 {
			t.Errorf("%s: child %s has a session but no spawned entry", what, h.ID)
		}
		checkAnswered(t, what, f, entries)
	}
	for id, n := range spawned {
		if n != 1 || len(terminal[id]) != 1 {
			t.Errorf("%s: child %s: %d spawned entries, terminal entries %v", what, id, n, terminal[id])
			continue
		}
		out[terminal[id][0]]++
	}
	for id := range terminal {
		if spawned[id] == 0 {
			t.Errorf("%s: child %s ended without being spawned", what, id)
		}
	}
	return out
}

// hasSession reports whether dir holds a session file.
func hasSession(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	return len(files) > 0
}

// hasChildSession reports whether dir holds a sub-agent's session.
func hasChildSession(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b[:bytes.IndexByte(append(b, '\n'), '\n')], []byte(`"agent":{`)) {
			return true
		}
	}
	return false
}

// checkAnswered fails when a tool call of a sent assistant message has
// no result in the log.
func checkAnswered(t *testing.T, what, path string, entries []session.Entry) {
	t.Helper()
	results := map[string]bool{}
	for _, e := range entries {
		if e.Type == session.TypeMessage && e.Message.Role == llm.RoleToolResult {
			results[e.Message.ToolCallID] = true
		}
	}
	for _, e := range entries {
		if e.Type != session.TypeMessage || e.Message.Role != llm.RoleAssistant {
			continue
		}
		if s := e.Message.StopReason; s == llm.StopError || s == llm.StopAborted {
			continue // dropped with its calls when the context is built
		}
		for _, c := range e.Message.Content {
			if c.Type == llm.ContentToolCall && !results[c.ID] {
				t.Errorf("%s: %s: tool call %s (%s) has no result", what, filepath.Base(path), c.ID, c.Name)
			}
		}
	}
}

// rein sessions list shows a sub-agent's session under its parent's.
func TestSessionsListNestsChildren(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Delegating.", "tool_calls": [{"name": "agent", "arguments": {"subagent_type": "general", "description": "sub", "prompt": "the sub task"}}]}
{"text": "child done"}
{"text": "all done"}
`)
	if code, out, errOut := runCLI(t, "", "-p", "-m", "faux", "--script", script, "-C", dir, "the main task"); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "", "sessions", "list", "-C", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "the main task") || !strings.HasPrefix(lines[2], "└ ") || !strings.Contains(lines[2], "[agent general] the sub task") {
		t.Fatalf("listing:\n%s", out)
	}
}
