//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/telemetry"
)

// Every reply of the priced model server costs $0.30 with
// anthropic/claude-sonnet-5-5's prices ($2 per million input tokens, $10
// per million output tokens).
const (
	pricedModel  = "anthropic/claude-sonnet-5-5"
	pricedInput  = 100_000
	pricedOutput = 10_000
	pricedReply  = 0.30
)

// pricedServer is an Anthropic Messages server on loopback whose replies
// carry usage. reply decides each reply from the request's number (from
// 0, across processes) and body: a tool call, a final text, or block,
// which holds the request open until the client goes away (the test
// kills it) after reporting the request on blocked.
type pricedServer struct {
	*httptest.Server
	mu      sync.Mutex
	n       int
	blocked chan int
}

// pricedAnswer is one reply: block, else a call of tool with input (a
// JSON object), else text.
type pricedAnswer struct {
	block       bool
	tool, input string
	text        string
}

func newPricedServer(t *testing.T, reply func(n int, body string) pricedAnswer) *pricedServer {
	t.Helper()
	s := &pricedServer{blocked: make(chan int, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := s.n
		s.n++
		s.mu.Unlock()
		a := reply(n, string(body))
		if a.block {
			s.blocked <- n
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if a.tool == "" {
			text, _ := json.Marshal(a.text)
			io.WriteString(w, pricedSSE(n, `{"type":"text","text":""}`, `{"type":"text_delta","text":`+string(text)+`}`, "end_turn"))
			return
		}
		input, _ := json.Marshal(a.input)
		io.WriteString(w, pricedSSE(n, fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":%q,"input":{}}`, n, a.tool),
			`{"type":"input_json_delta","partial_json":`+string(input)+`}`, "tool_use"))
	}))
	t.Cleanup(s.Close)
	return s
}

// requests is how many requests the server has had.
func (s *pricedServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// pricedSSE is one streamed reply with one content block and the usage
// of a priced reply.
func pricedSSE(n int, block, delta, stop string) string {
	return fmt.Sprintf(`event: message_start
data: {"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":%d,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":%s}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":%s}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"%s"},"usage":{"output_tokens":%d}}

event: message_stop
data: {"type":"message_stop"}

`, n, pricedInput, block, delta, stop, pricedOutput)
}

// reinProc is rein (this test binary as rein) in workspace ws with a home
// of its own.
func reinProc(ws, home string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{"REIN_TEST_MAIN=1", "REIN_SANDBOX=off", "PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("Cy8_", 12),
		"GIT_CONFIG_NOSYSTEM=1"}
	cmd.Dir = ws
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// killWhenBlocked starts cmd and kills it with SIGKILL once the server
// holds one of its requests. It returns the process's output.
func killWhenBlocked(t *testing.T, cmd *exec.Cmd, srv *pricedServer) string {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-srv.blocked:
	case err := <-exited:
		t.Fatalf("rein ended before it was killed: %v\n%s", err, out.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("rein was not killed: %v\n%s", err, out.String())
	}
	return out.String()
}

// runProc runs cmd to its end and returns its exit code and output.
func runProc(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("rein: %v\n%s", err, out)
	}
	return 0, string(out)
}

// loggedReplies counts the replies of a session log and sums their cost.
func loggedReplies(t *testing.T, path string) (int, float64) {
	t.Helper()
	_, es, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, cost := 0, 0.0
	for _, e := range es {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == llm.RoleAssistant && e.Message.Usage != nil {
			n++
			cost += e.Message.Usage.Cost.Total
		}
	}
	return n, cost
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestKilledRunSpendCarriesThroughKill9: a real rein run is killed with
// SIGKILL while its third request is open, after two priced replies were
// logged. The next prompt on the session (rein run -c --max-cost 0.80)
// carries their $0.60: it makes one request ($0.90 in all reaches the
// cap; without the carry it would make three), exits with the budget
// status, and its run record holds the carried replies, once. A third
// prompt carries nothing and gets the whole cap again.
func TestKilledRunSpendCarriesThroughKill9(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var blockAt sync.Mutex
	block := 2 // the first process's third request
	srv := newPricedServer(t, func(n int, _ string) pricedAnswer {
		blockAt.Lock()
		defer blockAt.Unlock()
		return pricedAnswer{block: n == block, tool: "read", input: `{"path":"hello.txt"}`}
	})
	killWhenBlocked(t, reinProc(ws, home, "run", "-m", pricedModel, "--base-url", srv.URL, "-C", ws, "read hello.txt, again and again"), srv)
	logs, _ := filepath.Glob(filepath.Join(ws, ".rein", "sessions", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v", logs)
	}
	if n, cost := loggedReplies(t, logs[0]); n != 2 || !near(cost, 2*pricedReply) {
		t.Fatalf("the killed run logged %d replies costing $%v, want 2 and $0.60", n, cost)
	}

	records := func() []telemetry.Record {
		t.Helper()
		code, out := runProc(t, reinProc(ws, home, "runs", "list", "--json", "-C", ws))
		if code != 0 {
			t.Fatalf("runs list: %d %s", code, out)
		}
		var recs []telemetry.Record
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var r telemetry.Record
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("runs list --json: %v\n%s", err, out)
			}
			recs = append(recs, r)
		}
		return recs
	}

	before := srv.requests()
	code, out := runProc(t, reinProc(ws, home, "run", "-c", "-m", pricedModel, "--base-url", srv.URL, "-C", ws, "--max-cost", "0.80", "go on"))
	if code != exitBudget {
		t.Fatalf("the resumed prompt exited %d, want %d (the budget)\n%s", code, exitBudget, out)
	}
	if n := srv.requests() - before; n != 1 {
		t.Fatalf("the resumed prompt made %d requests, want 1 ($0.60 carried + $0.30 reaches $0.80)", n)
	}
	recs := records()
	var resumed *telemetry.Record
	for i := range recs {
		if recs[i].Carried != nil {
			if resumed != nil {
				t.Fatalf("two records carry spend: %+v and %+v", *resumed, recs[i])
			}
			resumed = &recs[i]
		}
	}
	if resumed == nil {
		t.Fatalf("no run record carries the killed run's spend: %+v", recs)
	}
	if c := resumed.Carried; c.Replies != 2 || !near(c.Cost, 2*pricedReply) || c.Usage.Output != 2*pricedOutput {
		t.Fatalf("carried %+v, want the killed run's 2 replies, $0.60", *c)
	}
	if !near(resumed.Cost, pricedReply) || !near(resumed.TotalCost(), 3*pricedReply) {
		t.Fatalf("the resumed run's own cost $%v, total $%v; want $0.30 and $0.90", resumed.Cost, resumed.TotalCost())
	}

	// Carried once: the next prompt has the whole cap to itself.
	blockAt.Lock()
	block = -1
	blockAt.Unlock()
	before = srv.requests()
	code, out = runProc(t, reinProc(ws, home, "run", "-c", "-m", pricedModel, "--base-url", srv.URL, "-C", ws, "--max-cost", "0.80", "and on"))
	if code != exitBudget || srv.requests()-before != 3 {
		t.Fatalf("the third prompt exited %d after %d requests, want the budget after 3 (nothing carried)\n%s", code, srv.requests()-before, out)
	}
	carrying := 0
	for _, r := range records() {
		if r.Carried != nil {
			carrying++
		}
	}
	if carrying != 1 {
		t.Fatalf("%d run records carry spend, want 1", carrying)
	}
}
