package harness

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// countTools returns an idempotent tool and one that is not, each
// counting its runs.
func countTools(t *testing.T, lookRuns, bumpRuns *atomic.Int32) *tool.Registry {
	look := &tool.Tool{Name: "look", Idempotent: true, ReadOnly: true, Run: func(context.Context, *tool.Call) tool.Result {
		lookRuns.Add(1)
		return tool.Text("seen")
	}}
	bump := &tool.Tool{Name: "bump", Run: func(context.Context, *tool.Call) tool.Result {
		bumpRuns.Add(1)
		return tool.Text("bumped")
	}}
	return registry(t, look, bump)
}

func entryTypes(es []session.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, string(e.Type))
	}
	return out
}

// TestJournalOfARun: a run writes request and tool journal entries in
// order, marks idempotence, and a queued message is delivered by a
// message entry naming its queued entry.
func TestJournalOfARun(t *testing.T) {
	s, err := session.Create(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var look, bump atomic.Int32
	p := faux.New(faux.Calls("", faux.Call("look", `{}`), faux.Call("bump", `{}`)), faux.Text("done"))
	h, err := New(Options{Provider: p, Model: faux.Model(), Tools: countTools(t, &look, &bump), Store: s, NoGuards: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Steer("also this"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var queued session.Entry
	started := map[string]session.Entry{}
	var delivered bool
	for _, e := range s.Entries() {
		switch e.Type {
		case session.TypeQueued:
			queued = e
		case session.TypeToolStarted:
			started[e.ToolName] = e
		case session.TypeMessage:
			if e.Queued != "" {
				delivered = e.Queued == queued.ID && e.Message.Text() == "also this"
			}
		}
	}
	if queued.ID == "" || !delivered {
		t.Fatalf("queued %+v, delivered %v; log %v", queued, delivered, entryTypes(s.Entries()))
	}
	if !started["look"].Idempotent || started["bump"].Idempotent {
		t.Fatalf("tool_started entries: %+v", started)
	}
	if f := s.InFlight(); !f.Empty() {
		t.Fatalf("after a clean run, in flight: %+v", f)
	}
	tot := h.Totals()
	if tot.Replies != 2 || tot.Requests != 2 || tot.ToolCalls != 2 {
		t.Fatalf("totals %+v, want 2 replies, 2 requests, 2 calls", tot)
	}
}

// TestRecoveryAfterCrash builds the log a process leaves when it dies
// with two calls in flight, a queued message and an unfinished request,
// then reopens it: the idempotent call runs again, the other is answered
// as interrupted and not run, the message is delivered, the request is
// dropped, and the totals continue from the log.
func TestRecoveryAfterCrash(t *testing.T) {
	s, err := session.Create(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	must := func(e session.Entry) session.Entry {
		t.Helper()
		e, err := s.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	u := &llm.Usage{Input: 100, Output: 7, Total: 107}
	must(session.Entry{Type: session.TypeMessage, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("go")}}})
	r := must(session.Entry{Type: session.TypeRequestStarted, Turn: 1})
	must(session.Entry{Type: session.TypeRequestSettled, Target: r.ID, Status: session.StatusOK})
	asst := llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Usage: u, Content: []llm.Content{
		llm.ToolCall("c1", "look", json.RawMessage(`{}`)), llm.ToolCall("c2", "bump", json.RawMessage(`{}`))}}
	must(session.Entry{Type: session.TypeMessage, Message: &asst})
	must(session.Entry{Type: session.TypeToolStarted, CallID: "c1", ToolName: "look", Idempotent: true, Turn: 1})
	must(session.Entry{Type: session.TypeToolStarted, CallID: "c2", ToolName: "bump", Turn: 1})
	must(session.Entry{Type: session.TypeQueued, Queue: session.QueueSteer, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("steered")}}})
	must(session.Entry{Type: session.TypeRequestStarted, Turn: 2})
	path := s.Path()
	s.Close()

	s, err = session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Dropped()) != 1 || len(s.Repairs()) != 1 || s.Repairs()[0].CallID != "c2" {
		t.Fatalf("dropped %v, repairs %+v", s.Dropped(), s.Repairs())
	}
	var look, bump atomic.Int32
	var seen []llm.Request
	p := faux.New(faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
		seen = append(seen, *req)
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("ok")}, Usage: u}, nil
	}}, faux.Reply{Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("fine")}, Usage: u}})
	h, err := New(Options{Provider: p, Model: faux.Model(), Tools: countTools(t, &look, &bump), Store: s, NoGuards: true})
	if err != nil {
		t.Fatal(err)
	}
	if st, _, _ := h.Queued(); st != 1 {
		t.Fatalf("steering queue %d after reopening, want the queued message back", st)
	}
	if tot := h.Totals(); tot.Usage.Input != 100 || tot.Replies != 1 || tot.Dropped != 1 {
		t.Fatalf("totals before the prompt: %+v", tot)
	}
	var told []string
	h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == "message_end" && e.Message.Role == llm.RoleToolResult {
			told = append(told, e.Message.ToolCallID)
		}
		return nil
	})
	if _, err := h.Prompt(context.Background(), "continue"); err != nil {
		t.Fatal(err)
	}
	if len(told) != 1 || told[0] != "c1" {
		t.Fatalf("listeners were told of results %v, want the re-run c1", told)
	}
	if look.Load() != 1 || bump.Load() != 0 {
		t.Fatalf("runs: look %d (want 1, again), bump %d (want 0)", look.Load(), bump.Load())
	}
	if rec := h.Recovered(); len(rec.Rerun) != 1 || rec.Rerun[0] != "c1" || rec.Requeued[session.QueueSteer] != 1 {
		t.Fatalf("recovery %+v", rec)
	}
	// The request saw both results, the prompt, then (next turn) the steer.
	var texts []string
	for _, m := range seen[0].Messages {
		texts = append(texts, string(m.Role)+":"+m.Text())
	}
	want := []string{"user:go", "assistant:", "tool_result:" + session.PartialText, "tool_result:seen", "user:continue"}
	if len(texts) != len(want) {
		t.Fatalf("first request: %q, want %q", texts, want)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Fatalf("first request: %q, want %q", texts, want)
		}
	}
	if f := s.InFlight(); !f.Empty() {
		t.Fatalf("in flight after the prompt: %+v", f)
	}
	if tot := h.Totals(); tot.Usage.Input != 300 || tot.Replies != 3 {
		t.Fatalf("totals after the prompt: %+v, want 3 replies of 100 input tokens", tot)
	}
}

// TestGuardStateSurvivesReopen: the guard counts repeats of a failing
// call across a restart as it does across two prompts of one process,
// because the harness replays the log's calls into a new guard.
func TestGuardStateSurvivesReopen(t *testing.T) {
	script := func(n int, last string) []faux.Reply {
		var rs []faux.Reply
		for range n {
			rs = append(rs, faux.Calls("", faux.Call("fail", `{"v":"same"}`)))
		}
		return append(rs, faux.Text(last))
	}
	setup := func(runs *int) *tool.Registry {
		return registry(t, &tool.Tool{Name: "fail", Run: func(context.Context, *tool.Call) tool.Result {
			*runs++
			return tool.Errorf("boom: the same failure")
		}})
	}
	stop := StopPolicy{StallTurns: -1}

	// One process, two prompts.
	var inProcess int
	s, err := session.Create(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := faux.New(append(script(2, "pause"), script(5, "done")...)...)
	h, err := New(Options{Provider: p, Model: faux.Model(), Tools: setup(&inProcess), Store: s, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []string{"one", "two"} {
		if _, err := h.Prompt(context.Background(), prompt); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	// The same, with the process gone between the prompts.
	var split int
	s, err = session.Create(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h, err = New(Options{Provider: faux.New(script(2, "pause")...), Model: faux.Model(), Tools: setup(&split), Store: s, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	s, err = session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h, err = New(Options{Provider: faux.New(script(5, "done")...), Model: faux.Model(), Tools: setup(&split), Store: s, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	if inProcess >= 7 {
		t.Fatalf("the guard never stopped the repeated failing call (%d runs): the test shows nothing", inProcess)
	}
	if split != inProcess {
		t.Fatalf("the failing call ran %d times across a restart, %d times in one process", split, inProcess)
	}
}
