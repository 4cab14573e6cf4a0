package coding

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/redact"
)

// outputSecret is a value the agent's redactor masks; the model says it
// in its answer, streamed across several deltas.
const outputSecret = "hunter2-a1b2c3d4e5f6"

// runOutput opens an agent on a workspace holding a.txt, runs one prompt
// (the model reads the file, then answers) with an Output in format
// writing to w, and returns the run's result and Finish's error.
func runOutput(t *testing.T, format string, w *failWriter) (*Agent, harness.Result, error) {
	t.Helper()
	e := newTestEnv(t)
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "hello\n"})
	o := e.options(ws, faux.Calls("Reading.", faux.Call("read", `{"path": "a.txt"}`)), faux.Text("It says hello; the password is "+outputSecret+"."))
	o.Redactor = redact.New(outputSecret)
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	out, err := NewOutput(format, w, a)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Subscribe(func(_ context.Context, ev Event) error {
		out.Event(ev)
		return nil
	})()
	res, err := a.Submit(context.Background(), "what does a.txt say?")
	if err != nil {
		t.Fatal(err)
	}
	return a, res, out.Finish(res, nil)
}

// failWriter keeps what is written until limit bytes (0: no limit), then
// fails.
type failWriter struct {
	bytes.Buffer
	limit int
}

var errDiskFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.limit > 0 && w.Len()+len(p) > w.limit {
		return 0, errDiskFull
	}
	return w.Buffer.Write(p)
}

// lines decodes w's JSON lines.
func lines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestOutputReinJSON(t *testing.T) {
	var w failWriter
	a, _, err := runOutput(t, OutputReinJSON, &w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.String(), outputSecret) || !strings.Contains(w.String(), redact.Mask) {
		t.Fatalf("the secret is not masked: %s", w.String())
	}
	if strings.Count(w.String(), "\n") != 1 {
		t.Fatalf("rein-json is one document written at the end: %s", w.String())
	}
	var r RunResult
	if err := json.Unmarshal(w.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Stop != agent.StopCompleted || !strings.HasPrefix(r.Text, "It says hello") || r.PartialText != "" || r.Turns != 2 ||
		len(r.Messages) != 4 || r.Session != a.Session().Path() || r.Error != "" {
		t.Fatalf("result = %+v", r)
	}
}

func TestOutputJSON(t *testing.T) {
	var w failWriter
	a, _, err := runOutput(t, OutputJSON, &w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.String(), outputSecret) {
		t.Fatalf("the secret is not masked: %s", w.String())
	}
	ls := lines(t, w.Bytes())
	if len(ls) != 1 {
		t.Fatalf("json is one object written at the end: %s", w.String())
	}
	m := ls[0]
	// Claude Code's fields and rein's beside them.
	if m["type"] != "result" || m["subtype"] != "success" || m["is_error"] != false || m["num_turns"] != 2.0 ||
		!strings.HasPrefix(m["result"].(string), "It says hello") || m["session_id"] != a.Session().ID() ||
		m["stop"] != "completed" || m["text"] != m["result"] || m["session"] != a.Session().Path() || len(m["messages"].([]any)) != 4 {
		t.Fatalf("%s", w.String())
	}
}

func TestOutputStreamJSON(t *testing.T) {
	var w failWriter
	a, _, err := runOutput(t, OutputStreamJSON, &w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.String(), outputSecret) {
		t.Fatalf("the secret is not masked: %s", w.String())
	}
	var kinds []string
	ls := lines(t, w.Bytes())
	for _, l := range ls {
		kinds = append(kinds, l["type"].(string))
	}
	if got := strings.Join(kinds, " "); got != "system assistant user assistant result" {
		t.Fatalf("lines %s:\n%s", got, w.String())
	}
	init := ls[0]
	if init["subtype"] != "init" || init["model"] != faux.Model().ID || init["session_id"] != a.Session().ID() ||
		init["cwd"] != a.Workspace() || init["permissionMode"] != "default" || init["claude_code_version"] != "dev" {
		t.Fatalf("init line: %v", init)
	}
	if tools, _ := init["tools"].([]any); len(tools) == 0 {
		t.Fatalf("init line without tools: %v", init)
	}
	if _, ok := ls[4]["text"]; ok || ls[4]["subtype"] != "success" {
		t.Fatalf("stream-json's result carries Claude Code's fields only: %v", ls[4])
	}
}

func TestOutputReinStreamJSON(t *testing.T) {
	var w failWriter
	_, _, err := runOutput(t, OutputReinStreamJSON, &w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.String(), outputSecret) || !strings.Contains(w.String(), redact.Mask) {
		t.Fatalf("the secret is not masked: %s", w.String())
	}
	var kinds []string
	for _, l := range lines(t, w.Bytes()) {
		kinds = append(kinds, l["type"].(string))
	}
	got := strings.Join(kinds, " ")
	for _, want := range []string{"agent_start", "message_update", "tool_start", "tool_end", "turn_end"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s event in %s", want, got)
		}
	}
	// Finish adds nothing: the stream ends with the run's last event.
	if kinds[len(kinds)-1] != "agent_end" {
		t.Fatalf("the stream ends with %s", kinds[len(kinds)-1])
	}
}

// Approval requests are answered, not written, in every format.
func TestOutputSkipsApprovals(t *testing.T) {
	e := newTestEnv(t)
	a, err := Open(context.Background(), e.options(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, f := range []string{OutputJSON, OutputStreamJSON, OutputReinJSON, OutputReinStreamJSON} {
		var w failWriter
		out, err := NewOutput(f, &w, a)
		if err != nil {
			t.Fatal(err)
		}
		before := w.Len()
		ev := Event{Event: harness.Event{Event: agent.Event{Type: harness.EventPermissionRequest}, Permission: &permission.Request{Tool: "bash"}}}
		ev.Approval = &Approval{Request: *ev.Permission, a: a}
		if err := out.Event(ev); err != nil || w.Len() != before {
			t.Errorf("%s: wrote %q for an approval (%v)", f, w.String()[before:], err)
		}
	}
}

// The first write error sticks: Event and Finish return it and nothing
// more is written.
func TestOutputWriteErrors(t *testing.T) {
	for _, f := range []string{OutputJSON, OutputStreamJSON, OutputReinJSON, OutputReinStreamJSON} {
		t.Run(f, func(t *testing.T) {
			w := failWriter{limit: 1}
			_, _, err := runOutput(t, f, &w)
			if !errors.Is(err, errDiskFull) || w.Len() != 0 {
				t.Fatalf("Finish = %v, written %q", err, w.String())
			}
		})
	}
	// stream-json's init line fits; the first assistant line does not.
	e := newTestEnv(t)
	a, err := Open(context.Background(), e.options(t.TempDir(), faux.Text("a reply long enough not to fit")))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var probe failWriter
	if _, err := NewOutput(OutputStreamJSON, &probe, a); err != nil {
		t.Fatal(err)
	}
	w := failWriter{limit: probe.Len() + 10}
	out, _ := NewOutput(OutputStreamJSON, &w, a)
	initLine := w.String()
	var evErr error
	unsub := a.Subscribe(func(_ context.Context, ev Event) error {
		if err := out.Event(ev); err != nil && evErr == nil {
			evErr = err
		}
		return nil
	})
	res, err := a.Submit(context.Background(), "hi")
	unsub()
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(evErr, errDiskFull) || !errors.Is(out.Finish(res, nil), errDiskFull) || w.String() != initLine {
		t.Fatalf("Event = %v, written %q after the init line", evErr, strings.TrimPrefix(w.String(), initLine))
	}
}

func TestOutputFormats(t *testing.T) {
	for _, f := range []string{"", "text", "json", "stream-json", "rein-json", "rein-stream-json"} {
		if err := CheckOutputFormat(f); err != nil {
			t.Errorf("%q: %v", f, err)
		}
	}
	err := CheckOutputFormat("yaml")
	if err == nil || err.Error() != `unknown output format "yaml": use text, json, stream-json (Claude Code's shapes), rein-json or rein-stream-json (rein's own)` {
		t.Fatalf("yaml: %v", err)
	}
	e := newTestEnv(t)
	a, err := Open(context.Background(), e.options(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var w failWriter
	for _, f := range []string{"yaml", "", "text"} {
		if out, err := NewOutput(f, &w, a); err == nil || out != nil || w.Len() != 0 {
			t.Errorf("NewOutput(%q) = %v, %v", f, out, err)
		}
	}
}

// A run that did not complete has no answer: what the model said is its
// partial text, and the error is named.
func TestRunResultOfAnUnfinishedRun(t *testing.T) {
	res := harness.Result{Stop: agent.StopMaxTurns, Detail: "10 turns", Turns: 10,
		Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.ContentText, Text: "half done"}}}}}
	r := NewRunResult(res, nil, "/s.jsonl")
	if r.Text != "" || r.PartialText != "half done" || r.Error != "" || r.Session != "/s.jsonl" || r.Detail != "10 turns" {
		t.Fatalf("max turns: %+v", r)
	}
	res.Stop = agent.StopCompleted
	r = NewRunResult(res, errors.New("provider down"), "")
	if r.Text != "" || r.PartialText != "half done" || r.Error != "provider down" {
		t.Fatalf("error: %+v", r)
	}
	b, _ := json.Marshal(NewRunResult(res, nil, ""))
	if !bytes.Contains(b, []byte(`"text":"half done"`)) || bytes.Contains(b, []byte(`"session"`)) || bytes.Contains(b, []byte(`partial_text`)) {
		t.Fatalf("completed: %s", b)
	}
}

// The document names the session log as it is when Finish is called.
func TestOutputNamesTheSessionAtFinish(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	a, err := Open(context.Background(), e.options(ws, faux.Text("one")))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var w failWriter
	out, _ := NewOutput(OutputReinJSON, &w, a)
	res, err := a.Submit(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	first := a.Session().Path()
	if _, err := a.NewSession(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := out.Finish(res, nil); err != nil {
		t.Fatal(err)
	}
	var r RunResult
	json.Unmarshal(w.Bytes(), &r)
	if r.Session != a.Session().Path() || r.Session == first {
		t.Fatalf("session %q, the agent's %q, the first %q", r.Session, a.Session().Path(), first)
	}
}
