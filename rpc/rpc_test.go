package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/faux"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if built.dir != "" {
			os.RemoveAll(built.dir)
		}
	}))
}

// client drives Serve over pipes, as a front-end drives rein --mode rpc.
type client struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
	seq  int
	// events holds what arrived while a response was awaited.
	events []map[string]any
}

func start(t *testing.T, mode string, replies ...faux.Reply) (*client, string) {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	open := func(ctx context.Context, path string) (*coding.Agent, error) {
		return coding.Open(ctx, coding.Options{Workdir: dir, Provider: faux.New(replies...), ModelInfo: faux.Model(),
			Getenv: func(k string) string { return env[k] }, Environ: func() []string { return []string{"HOME=" + home} },
			Interactive: true, PermissionMode: mode, Session: path, NoRunRecords: true, Frontend: "rpc"})
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), inR, outW, Options{Open: open})
		outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		if err := <-c.done; err != nil {
			t.Error(err)
		}
	})
	return c, dir
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// read reads the next line.
func (c *client) read() map[string]any {
	c.t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatalf("output ended: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		c.t.Fatalf("not JSON: %q", line)
	}
	return m
}

// call sends cmd with an id and returns its response; events read on
// the way are kept.
func (c *client) call(cmd map[string]any) map[string]any {
	c.t.Helper()
	c.seq++
	id := fmt.Sprintf("r%d", c.seq)
	cmd["id"] = id
	b, _ := json.Marshal(cmd)
	c.send(string(b))
	for {
		m := c.read()
		if m["type"] == "response" && m["id"] == id {
			return m
		}
		c.events = append(c.events, m)
	}
}

// until reads events until one of type typ.
func (c *client) until(typ string) []map[string]any {
	c.t.Helper()
	for i, ev := range c.events {
		if ev["type"] == typ {
			out := c.events[:i+1]
			c.events = c.events[i+1:]
			return out
		}
	}
	out := c.events
	c.events = nil
	for {
		m := c.read()
		out = append(out, m)
		if m["type"] == typ {
			return out
		}
	}
}

func data(m map[string]any) map[string]any {
	d, _ := m["data"].(map[string]any)
	return d
}

func TestPromptEventsAndState(t *testing.T) {
	c, _ := start(t, "auto_all", faux.Text("hi there"), faux.Text("second"))
	if r := c.call(map[string]any{"type": "get_state"}); r["success"] != true || data(r)["isStreaming"] != false {
		t.Fatalf("get_state = %v", r)
	}
	if r := c.call(map[string]any{"type": "prompt", "message": "hello"}); r["success"] != true {
		t.Fatalf("prompt = %v", r)
	}
	evs := c.until("agent_end")
	var types []string
	text := ""
	for _, ev := range evs {
		types = append(types, ev["type"].(string))
		if ev["type"] == "message_update" {
			d := ev["assistantMessageEvent"].(map[string]any)
			if d["type"] == "text_delta" {
				text += d["delta"].(string)
			}
		}
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"agent_start", "turn_start", "message_start", "message_update", "message_end", "turn_end", "agent_end"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s in %s", want, joined)
		}
	}
	if text != "hi there" {
		t.Errorf("deltas = %q", text)
	}
	if r := c.call(map[string]any{"type": "get_last_assistant_text"}); data(r)["text"] != "hi there" {
		t.Errorf("last text = %v", r)
	}
	r := c.call(map[string]any{"type": "get_messages"})
	msgs := data(r)["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "user" || msgs[1].(map[string]any)["role"] != "assistant" {
		t.Errorf("messages = %v", msgs)
	}
	if r := c.call(map[string]any{"type": "set_session_name", "name": "named"}); r["success"] != true {
		t.Errorf("set_session_name = %v", r)
	}
	st := data(c.call(map[string]any{"type": "get_state"}))
	if st["sessionName"] != "named" || st["messageCount"] != float64(2) || st["sessionFile"] == "" {
		t.Errorf("state = %v", st)
	}
	stats := data(c.call(map[string]any{"type": "get_session_stats"}))
	if stats["userMessages"] != float64(1) || stats["assistantMessages"] != float64(1) {
		t.Errorf("stats = %v", stats)
	}
	if r := c.call(map[string]any{"type": "set_thinking_level", "level": "loud"}); r["success"] != false {
		t.Errorf("bad level = %v", r)
	}
}

func TestBadInputIsAnsweredAndLosesNothing(t *testing.T) {
	c, _ := start(t, "auto_all", faux.Text("fine"))
	c.send(`{"type": `)
	if r := c.read(); r["command"] != "parse" || r["success"] != false || !strings.Contains(r["error"].(string), "Failed to parse command") {
		t.Errorf("malformed = %v", r)
	}
	c.send(`{"id": "x"}`)
	if r := c.read(); r["success"] != false || r["id"] != "x" {
		t.Errorf("no type = %v", r)
	}
	if r := c.call(map[string]any{"type": "teleport"}); r["success"] != false || !strings.Contains(r["error"].(string), "Unknown command") {
		t.Errorf("unknown = %v", r)
	}
	if r := c.call(map[string]any{"type": "switch_session", "sessionPath": "/nonexistent/s.jsonl"}); r["success"] != false {
		t.Errorf("switch to nothing = %v", r)
	}
	if r := c.call(map[string]any{"type": "extension_ui_response", "id": "nope", "value": "Allow"}); r["success"] != false {
		t.Errorf("answer to nothing = %v", r)
	}
	for _, cmd := range []map[string]any{
		{"type": "steer", "message": "  "},
		{"type": "follow_up", "message": ""},
		{"type": "set_model", "provider": "faux"},
		{"type": "set_steering_mode", "mode": "sometimes"},
		{"type": "fork", "entryId": "no-such-entry"},
		{"type": "set_session_name", "name": " "},
		{"type": "prompt", "message": "x", "streamingBehavior": "later"},
	} {
		if r := c.call(cmd); r["success"] != false || r["error"] == "" || r["command"] != cmd["type"] {
			t.Errorf("%v = %v", cmd, r)
		}
	}
	// The agent still works.
	c.call(map[string]any{"type": "prompt", "message": "still there?"})
	c.until("agent_end")
	if r := c.call(map[string]any{"type": "get_last_assistant_text"}); data(r)["text"] != "fine" {
		t.Errorf("after bad input: %v", r)
	}
}

// TestBusyApprovalSteerAbort holds a run on an approval dialog: a prompt
// without streamingBehavior is refused, a steer is taken, the allowed
// call runs and the steer reaches the model; a second run held the same
// way is aborted.
func TestBusyApprovalSteerAbort(t *testing.T) {
	c, dir := start(t, "ask",
		faux.Calls("", faux.Call("write", `{"path": "a.txt", "content": "A"}`)), faux.Text("steered"),
		faux.Calls("", faux.Call("write", `{"path": "b.txt", "content": "B"}`)), faux.Text("never"))
	c.call(map[string]any{"type": "prompt", "message": "write a"})
	ask := c.until("extension_ui_request")
	req := ask[len(ask)-1]
	if req["method"] != "select" || !strings.Contains(req["title"].(string), "a.txt") {
		t.Fatalf("dialog = %v", req)
	}
	if r := c.call(map[string]any{"type": "prompt", "message": "again"}); r["success"] != false || !strings.Contains(r["error"].(string), "streamingBehavior") {
		t.Errorf("busy prompt = %v", r)
	}
	if r := c.call(map[string]any{"type": "prompt", "message": "go left", "streamingBehavior": "steer"}); r["success"] != true {
		t.Errorf("steer = %v", r)
	}
	c.send(fmt.Sprintf(`{"type": "extension_ui_response", "id": %q, "value": "Allow"}`, req["id"]))
	evs := c.until("agent_end")
	steered := false
	for _, ev := range evs {
		if ev["type"] == "message_end" && strings.Contains(fmt.Sprint(ev["message"]), "go left") {
			steered = true
		}
	}
	if !steered {
		t.Error("the steer never reached the conversation")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "A" {
		t.Errorf("allowed write: %q %v", b, err)
	}

	c.call(map[string]any{"type": "prompt", "message": "write b"})
	c.until("extension_ui_request")
	if r := c.call(map[string]any{"type": "abort"}); r["success"] != true {
		t.Errorf("abort = %v", r)
	}
	c.until("agent_end")
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("the aborted run wrote b.txt")
	}
	if st := data(c.call(map[string]any{"type": "get_state"})); st["isStreaming"] != false {
		t.Errorf("after abort: %v", st)
	}
}

func TestSessionsForkNewSwitch(t *testing.T) {
	c, _ := start(t, "auto_all", faux.Text("one"), faux.Text("two"))
	c.call(map[string]any{"type": "prompt", "message": "first"})
	c.until("agent_end")
	c.call(map[string]any{"type": "prompt", "message": "second"})
	c.until("agent_end")
	first := data(c.call(map[string]any{"type": "get_state"}))["sessionFile"].(string)
	forks := data(c.call(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
	if len(forks) != 2 {
		t.Fatalf("fork messages = %v", forks)
	}
	second := forks[1].(map[string]any)
	r := c.call(map[string]any{"type": "fork", "entryId": second["entryId"]})
	if r["success"] != true || data(r)["text"] != "second" {
		t.Fatalf("fork = %v", r)
	}
	st := data(c.call(map[string]any{"type": "get_state"}))
	if st["sessionFile"] == first || st["messageCount"] != float64(2) {
		t.Errorf("after fork: %v", st)
	}
	if r := c.call(map[string]any{"type": "new_session"}); r["success"] != true || data(r)["cancelled"] != false {
		t.Errorf("new_session = %v", r)
	}
	if st := data(c.call(map[string]any{"type": "get_state"})); st["messageCount"] != float64(0) {
		t.Errorf("new session: %v", st)
	}
	if r := c.call(map[string]any{"type": "switch_session", "sessionPath": first}); r["success"] != true {
		t.Fatalf("switch = %v", r)
	}
	if st := data(c.call(map[string]any{"type": "get_state"})); st["messageCount"] != float64(4) || st["sessionFile"] != first {
		t.Errorf("switched: %v", st)
	}
}
