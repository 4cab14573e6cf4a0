package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// The kill -9 trials. A child process (this test binary, envHelper=
// "recovery") runs a scripted session: killTurns turns, each calling the
// counter tool "bump" (not idempotent: it appends its call id to a file)
// and "look" (idempotent), with a follow-up message queued at the start.
// The parent kills it with SIGKILL after a random number of its progress
// lines, up to maxKills times, then lets a last child finish.
const (
	envCounter  = "REIN_HARNESS_COUNTER"
	killTurns   = 6
	maxKills    = 3
	replyInput  = 10
	replyOutput = 1
)

// recoveryChild is the child side: it opens (or creates) the session,
// recovers, and runs the script to its end, printing a line at every
// request and tool call so that the parent can kill it at any point.
func recoveryChild() {
	dir, counter := os.Getenv(envPath), os.Getenv(envCounter)
	var s *session.Session
	var err error
	fresh := false
	if found, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(found) == 0 {
		s, err = session.Create(session.Options{Dir: dir})
		fresh = true
	} else {
		s, err = session.Open(found[0], session.Options{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		fmt.Printf(format+"\n", args...)
		mu.Unlock()
	}
	bump := &tool.Tool{Name: "bump", Run: func(_ context.Context, c *tool.Call) tool.Result {
		say("bump %s", c.ID)
		f, err := os.OpenFile(counter, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return tool.Errorf("%v", err)
		}
		defer f.Close()
		if _, err := f.WriteString(c.ID + "\n"); err != nil {
			return tool.Errorf("%v", err)
		}
		say("bumped %s", c.ID)
		return tool.Text("bumped")
	}}
	look := &tool.Tool{Name: "look", Idempotent: true, ReadOnly: true, Run: func(_ context.Context, c *tool.Call) tool.Result {
		say("look %s", c.ID)
		return tool.Text("seen")
	}}
	reg, err := tool.NewRegistry(bump, look)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	usage := func() *llm.Usage {
		return &llm.Usage{Input: replyInput, Output: replyOutput, Total: replyInput + replyOutput}
	}
	script := func(_ context.Context, req *llm.Request) (llm.Message, error) {
		n := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleAssistant {
				n++
			}
		}
		say("request %d", n)
		if n >= killTurns {
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("done")}, Usage: usage()}, nil
		}
		return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Usage: usage(),
			Content: []llm.Content{faux.Call("bump", fmt.Sprintf(`{"n":%d}`, n)), faux.Call("look", fmt.Sprintf(`{"n":%d}`, n))}}, nil
	}
	p := faux.New()
	for range 4 * killTurns {
		p.Push(faux.Reply{Func: script})
	}
	h, err := New(Options{Provider: p, Model: faux.Model(), Tools: reg, Store: s, NoGuards: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if fresh {
		if err := h.FollowUp("one more"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if _, err := h.Prompt(context.Background(), "go on"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	u, _ := json.Marshal(h.Totals().Usage)
	say("finished %s", u)
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

// recoveryTrials is REIN_RECOVERY_TRIALS, default 10.
func recoveryTrials(t *testing.T) int {
	if v := os.Getenv("REIN_RECOVERY_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("REIN_RECOVERY_TRIALS=%q is not a positive number", v)
		}
		return n
	}
	return 10
}

// TestKill9Recovery runs the trials and checks, for each: no call id of
// the counter tool ran twice, every call that ran had its start in the
// log first, the session file has no corrupt line, the follow-up was
// delivered exactly once, every call has exactly one result, and the
// totals the last process re-derived equal the usage the log records.
func TestKill9Recovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	trials := recoveryTrials(t)
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 25))
	var kills, doubles, corrupt, torn, reruns int
	for i := range trials {
		k, st := killTrial(t, rng, i)
		kills += k
		doubles += st.doubles
		corrupt += st.corrupt
		torn += st.torn
		reruns += st.reruns
	}
	t.Logf("%d trials, %d kills: %d double executions, %d corrupt lines, %d torn lines set aside, %d idempotent calls run again",
		trials, kills, doubles, corrupt, torn, reruns)
	if doubles != 0 || corrupt != 0 {
		t.Fatalf("%d double executions, %d corrupt lines", doubles, corrupt)
	}
}

type trialStats struct{ doubles, corrupt, torn, reruns int }

// killTrial runs one session through up to maxKills kills and a last
// clean run, then checks it.
func killTrial(t *testing.T, rng *rand.Rand, i int) (int, trialStats) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("trial%03d", i))
	counter := dir + ".counter"
	// Progress lines in a full run: per turn a request, bump, bumped and
	// look, then the last requests. Kill after any of them.
	const lines = killTurns*4 + 3
	kills := rng.IntN(maxKills + 1)
	var finished string
	for k := 0; ; k++ {
		after := -1
		if k < kills {
			after = rng.IntN(lines)
		}
		out, killed := runChild(t, dir, counter, after)
		if !killed {
			finished = out
			break
		}
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(found) != 1 {
		t.Fatalf("%s holds %d session files, want 1", dir, len(found))
	}
	return kills, checkTrial(t, found[0], counter, finished)
}

// runChild starts a child and, when after >= 0, kills it with SIGKILL
// once it has printed after+1 lines. It returns the last line of a child
// that finished, and whether it was killed.
func runChild(t *testing.T, dir, counter string, after int) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"=recovery", envPath+"="+dir, envCounter+"="+counter)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	n, last, killed := 0, "", false
	for sc.Scan() {
		last = sc.Text()
		if after >= 0 && n == after {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
			break
		}
		n++
	}
	_, _ = bufio.NewReader(out).WriteTo(discard{})
	werr := cmd.Wait()
	if !killed && (werr != nil || !strings.HasPrefix(last, "finished ")) {
		t.Fatalf("child: %v, last line %q, stderr %s", werr, last, stderr.String())
	}
	return last, killed
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// checkTrial checks the session file and the counter after the last run.
func checkTrial(t *testing.T, path, counter, finished string) trialStats {
	t.Helper()
	var st trialStats
	_, entries, issues, err := session.ReadFile(path)
	if err != nil {
		t.Fatalf("%s does not load: %v", path, err)
	}
	for _, is := range issues {
		if is.Kind == session.IssueCorruptLine {
			st.corrupt++
		}
	}
	for _, side := range sidecars(t, path) {
		_ = side
		st.torn++
	}
	started := map[string]int{}
	results := map[string]int{}
	var sum llm.Usage
	followUps := 0
	for _, e := range entries {
		switch {
		case e.Type == session.TypeToolStarted:
			started[e.CallID]++
			if e.ToolName == "look" && started[e.CallID] > 1 {
				st.reruns++
			}
		case e.Type == session.TypeMessage && e.Message.Role == llm.RoleToolResult:
			results[e.Message.ToolCallID]++
		case e.Type == session.TypeMessage && e.Message.Role == llm.RoleAssistant && e.Message.Usage != nil:
			sum.Add(*e.Message.Usage)
		case e.Type == session.TypeMessage && e.Message.Role == llm.RoleUser && e.Message.Text() == "one more":
			followUps++
		}
	}
	raw, err := os.ReadFile(counter)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, id := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if id == "" {
			continue
		}
		if ran[id]++; ran[id] == 2 {
			st.doubles++
			t.Errorf("%s: bump call %s ran twice", path, id)
		}
		if started[id] == 0 {
			t.Errorf("%s: bump call %s ran without a tool_started entry before it", path, id)
		}
	}
	for _, e := range entries {
		if e.Type != session.TypeMessage || e.Message.Role != llm.RoleAssistant {
			continue
		}
		for _, c := range e.Message.ToolCalls() {
			if results[c.ID] != 1 {
				t.Errorf("%s: call %s has %d results, want 1", path, c.ID, results[c.ID])
			}
		}
	}
	if followUps != 1 {
		var lines []string
		for _, e := range entries {
			lines = append(lines, describe(e)+"/"+e.Queued+"/"+e.ID)
		}
		t.Errorf("%s: the follow-up was delivered %d times, want once; log %q", path, followUps, lines)
	}
	var got llm.Usage
	if err := json.Unmarshal([]byte(strings.TrimPrefix(finished, "finished ")), &got); err != nil {
		t.Fatalf("last line %q: %v", finished, err)
	}
	if got != sum {
		t.Errorf("%s: re-derived usage %+v, recorded %+v", path, got, sum)
	}
	return st
}

func sidecars(t *testing.T, path string) []string {
	m, err := filepath.Glob(path + ".torn-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}
