package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end tests drive the real rein binary with real ACP clients
// from npm: acpx 0.19.1 and a strict client on @agentclientprotocol/sdk
// 2.4.0 (acp/testdata/npm, installed by .ci/run). They run when
// REIN_ACP_E2E=1, which .ci/run sets.

type e2e struct {
	rein, acpx, dir, home string
}

func newE2E(t *testing.T) *e2e {
	t.Helper()
	if os.Getenv("REIN_ACP_E2E") != "1" {
		t.Skip("set REIN_ACP_E2E=1 (with acp/testdata/npm installed) to drive rein acp with acpx and the strict client")
	}
	acpx, err := filepath.Abs("testdata/npm/node_modules/.bin/acpx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(acpx); err != nil {
		t.Fatalf("acpx is not installed: run npm ci in acp/testdata/npm (.ci/run does): %v", err)
	}
	build.Do(func() {
		dir, err := os.MkdirTemp("", "rein-acp-e2e-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "rein")
		out, err := exec.Command("go", "build", "-o", built.bin, "../cmd/rein").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return &e2e{rein: built.bin, acpx: acpx, dir: t.TempDir(), home: t.TempDir()}
}

// built is the rein binary, built once for all end-to-end tests;
// TestMain removes it.
var (
	build sync.Once
	built struct {
		bin string
		err error
	}
)

// script writes a faux script and returns the agent command running it.
func (x *e2e) agent(t *testing.T, lines ...string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "script-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Join(lines, "\n") + "\n")
	f.Close()
	return x.rein + " acp --model faux --script " + f.Name()
}

// cmd is acpx with the test's home and workspace; --ttl 1 lets queue
// owners end a second after their last prompt.
func (x *e2e) cmd(ctx context.Context, agent string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, x.acpx, append([]string{"--agent", agent, "--ttl", "1", "--cwd", x.dir}, args...)...)
	c.Dir = x.dir
	c.Env = []string{"HOME=" + x.home, "PATH=" + os.Getenv("PATH")}
	return c
}

func (x *e2e) run(t *testing.T, agent string, args ...string) string {
	t.Helper()
	out, code := x.runCode(t, agent, args...)
	if code != 0 {
		t.Fatalf("acpx %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// runCode runs acpx and returns its output and exit code.
func (x *e2e) runCode(t *testing.T, agent string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := x.cmd(ctx, agent, args...).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("acpx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), 0
}

// messages parses acpx's --format json output: the JSON-RPC messages.
func messages(out string) []map[string]any {
	var ms []map[string]any
	for _, line := range strings.Split(out, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			ms = append(ms, m)
		}
	}
	return ms
}

// updates returns the session updates among ms.
func updates(ms []map[string]any) []map[string]any {
	var us []map[string]any
	for _, m := range ms {
		if m["method"] == "session/update" {
			us = append(us, m["params"].(map[string]any)["update"].(map[string]any))
		}
	}
	return us
}

func stopReason(ms []map[string]any) string {
	for _, m := range ms {
		if r, ok := m["result"].(map[string]any); ok {
			if s, ok := r["stopReason"].(string); ok {
				return s
			}
		}
	}
	return ""
}

const touchScript = `{"text":"Making it.","tool_calls":[{"id":"t1","name":"bash","arguments":{"command":"echo made > made.txt"}}]}`

func TestACPXExecApprovedAndDenied(t *testing.T) {
	x := newE2E(t)
	out := x.run(t, x.agent(t, touchScript, `{"text":"Made."}`), "--approve-all", "--format", "json", "exec", "make the file")
	ms := messages(out)
	if b, err := os.ReadFile(filepath.Join(x.dir, "made.txt")); err != nil || string(b) != "made\n" {
		t.Fatalf("approved: the command did not run (%v)\n%s", err, out)
	}
	var call, done map[string]any
	for _, u := range updates(ms) {
		switch u["sessionUpdate"] {
		case "tool_call":
			call = u
		case "tool_call_update":
			done = u
		}
	}
	if call["kind"] != "execute" || call["title"] != "echo made > made.txt" || done["status"] != "completed" {
		t.Errorf("tool call %v, update %v", call, done)
	}
	if s := stopReason(ms); s != "end_turn" {
		t.Errorf("stop reason %q", s)
	}
	var asked bool
	for _, m := range ms {
		if m["method"] == "session/request_permission" {
			asked = strings.Contains(m["params"].(map[string]any)["toolCall"].(map[string]any)["title"].(string), "echo made")
		}
	}
	if !asked {
		t.Error("no permission request named the command")
	}

	os.Remove(filepath.Join(x.dir, "made.txt"))
	out, code := x.runCode(t, x.agent(t, touchScript, `{"text":"Not made."}`), "--deny-all", "--format", "json", "exec", "make the file")
	if code != 5 { // acpx's PERMISSION_DENIED: it denied a request
		t.Errorf("acpx --deny-all exit %d, want 5\n%s", code, out)
	}
	if s := stopReason(messages(out)); s != "end_turn" {
		t.Errorf("denied: stop reason %q", s)
	}
	if _, err := os.Stat(filepath.Join(x.dir, "made.txt")); err == nil {
		t.Fatalf("denied: the command ran\n%s", out)
	}
	for _, u := range updates(messages(out)) {
		if u["sessionUpdate"] == "tool_call_update" && u["status"] != "failed" {
			t.Errorf("denied call: %v", u)
		}
	}
}

func TestACPXNamedSessionResumedByAFreshProcess(t *testing.T) {
	x := newE2E(t)
	agent := x.agent(t, `{"text":"first answer"}`, `{"text":"second answer"}`)
	x.run(t, agent, "sessions", "new", "--name", "work")
	if out := x.run(t, agent, "prompt", "-s", "work", "one"); !strings.Contains(out, "first answer") {
		t.Fatalf("first prompt:\n%s", out)
	}
	// The queue owner may have ended between the prompts (--ttl 1);
	// then a fresh rein process, starting its script again, resumes the
	// session. Either way the prompt lands in the same session log.
	if out := x.run(t, agent, "prompt", "-s", "work", "two"); !strings.Contains(out, "end_turn") {
		t.Fatalf("second prompt:\n%s", out)
	}
	logs, _ := filepath.Glob(filepath.Join(x.dir, ".rein", "sessions", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v", logs)
	}
	id := strings.TrimSuffix(logs[0][strings.LastIndex(logs[0], "_")+1:], ".jsonl")

	// The first acpx closes its session, so that its rein process lets
	// the session go (one process holds a session at a time). A fresh
	// acpx (its own home: no queue owner, no records) then continues it
	// by id, in a fresh rein process.
	x.run(t, agent, "sessions", "close", "work")
	x.home = t.TempDir()
	fresh := x.agent(t, `{"text":"third answer"}`)
	x.run(t, fresh, "sessions", "new", "--name", "again", "--resume-session", id)
	if out := x.run(t, fresh, "prompt", "-s", "again", "three"); !strings.Contains(out, "third answer") {
		t.Fatalf("prompt after resume:\n%s", out)
	}
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"one"`, `"two"`, `"three"`} {
		if !strings.Contains(string(b), q) {
			t.Errorf("the session log lacks the prompt %s", q)
		}
	}
}

func TestACPXCancelMidTurn(t *testing.T) {
	x := newE2E(t)
	agent := x.agent(t, `{"text":"waiting","tool_calls":[{"id":"w1","name":"bash","arguments":{"command":"sleep 60"}}]}`, `{"text":"never"}`)
	x.run(t, agent, "sessions", "new", "--name", "c")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := x.cmd(ctx, agent, "--approve-all", "--format", "json", "prompt", "-s", "c", "wait")
	stdout, err := p.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), `"sessionUpdate":"tool_call"`) {
			break
		}
	}
	x.run(t, agent, "cancel", "-s", "c")
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	p.Wait()
	ms := messages(out.String())
	if s := stopReason(ms); s != "cancelled" {
		t.Fatalf("stop reason %q\n%s", s, out.String())
	}
	var failed bool
	for _, u := range updates(ms) {
		failed = failed || u["sessionUpdate"] == "tool_call_update" && u["status"] == "failed"
	}
	if !failed {
		t.Error("the cancelled command was not reported as failed")
	}
}

func TestStrictClientValidatesEveryMessage(t *testing.T) {
	x := newE2E(t)
	if err := os.WriteFile(filepath.Join(x.dir, "hello.txt"), []byte("hello wrld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s1, s2 := filepath.Join(dir, "s1.jsonl"), filepath.Join(dir, "s2.jsonl")
	os.WriteFile(s1, []byte(strings.Join([]string{
		`{"thinking":"the greeting is misspelt","text":"Fixing it.","tool_calls":[{"id":"e1","name":"edit","arguments":{"path":"hello.txt","edits":[{"old_text":"wrld","new_text":"world"}]}}]}`,
		`{"text":"Fixed."}`,
		`{"tool_calls":[{"id":"b1","name":"bash","arguments":{"command":"cat hello.txt"}}]}`,
		`{"text":"It reads hello world."}`,
	}, "\n")), 0o644)
	os.WriteFile(s2, []byte(`{"text":"You are welcome."}`+"\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "node", "testdata/strict-client.mjs", x.rein, x.dir, s1, s2)
	c.Env = []string{"HOME=" + x.home, "PATH=" + os.Getenv("PATH")}
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("strict client: %v\n%s\n%s", err, out, stderr.String())
	}
	var got struct {
		Checked             int
		Failures            []any
		Stops               []string
		Listed              []bool
		Replay              []string
		UnknownSessionError int
		File                string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Failures) > 0 || got.Checked < 30 {
		t.Errorf("%d messages checked, failures: %v", got.Checked, got.Failures)
	}
	if strings.Join(got.Stops, ",") != "end_turn,end_turn,end_turn" || len(got.Listed) != 1 || !got.Listed[0] || got.UnknownSessionError != -32602 {
		t.Errorf("summary %s", out)
	}
	if got.File != "hello world\n" {
		t.Errorf("the edit (through the client's fs/write_text_file) left %q", got.File)
	}
	want := []string{
		"user_message_chunk:fix the greeting",
		"agent_thought_chunk:the greeting is misspelt",
		"agent_message_chunk:Fixing it.",
		"tool_call:edit:Edit hello.txt",
		"tool_call_update:completed:diff",
		"agent_message_chunk:Fixed.",
		"user_message_chunk:and check it\n\n<context uri=\"file://" + x.dir + "/hello.txt\">\nhello world\n</context>",
		"tool_call:execute:cat hello.txt",
		"tool_call_update:completed:content",
		"agent_message_chunk:It reads hello world.",
	}
	if strings.Join(got.Replay, "|") != strings.Join(want, "|") {
		t.Errorf("session/load replayed\n%q\nwant\n%q", got.Replay, want)
	}
}
