package coding

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
)

// openParent opens an agent whose children answer with child.
func openParent(t *testing.T, e *testEnv, parent *faux.Provider, child func(ctx context.Context, req *llm.Request) (llm.Message, error), agents defs, tweak func(*Options)) *Agent {
	t.Helper()
	o := e.options(t.TempDir())
	o.Provider = newRouter(parent, child)
	o.AgentDefinitions = agents
	if tweak != nil {
		tweak(&o)
	}
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func echo(_ context.Context, req *llm.Request) (llm.Message, error) {
	return text("child says: " + firstUser(req)), nil
}

func TestSubagentForeground(t *testing.T) {
	e := newTestEnv(t)
	parent := faux.New(faux.Calls("", agentCall("worker", "count the files", false)), faux.Text("done"))
	a := openParent(t, e, parent, echo, defs{worker("worker")}, nil)
	res, err := a.Submit(context.Background(), "go")
	if err != nil || res.Stop != "completed" {
		t.Fatalf("stop %q, err %v", res.Stop, err)
	}
	path := a.Session().Path()
	calls, results := toolResults(t, path)
	if len(calls) != 1 {
		t.Fatalf("calls %v", calls)
	}
	got := results[calls[0]]
	if !strings.HasPrefix(got, "child says: count the files\n\n[agent worker · 1 turns · ") || !strings.Contains(got, "out tokens · $") {
		t.Fatalf("result:\n%s", got)
	}
	ents := entriesOf(t, path)
	if len(ents["spawned"]) != 1 || len(ents["completed"]) != 1 || ents["spawned"][0] != ents["completed"][0] {
		t.Fatalf("entries %v", ents)
	}
	id := ents["spawned"][0]
	if !strings.Contains(got, "session "+id+"]") {
		t.Fatalf("the footer does not name the child's session %s:\n%s", id, got)
	}
	// The child is an ordinary session, linked to its parent.
	recs := a.Subagents().Children()
	if len(recs) != 1 || recs[0].Path == "" || recs[0].Usage.Output == 0 {
		t.Fatalf("records %+v", recs)
	}
	h, _, _, err := session.ReadFile(recs[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	want := session.AgentLink{ParentSession: a.Session().ID(), ParentPath: path, ParentCall: calls[0], Type: "worker", Depth: 1}
	if h.ID != id || h.Agent == nil || *h.Agent != want {
		t.Fatalf("child header %+v agent %+v, want %+v", h, h.Agent, want)
	}
	// Cost and tokens roll up into the parent's run record and status.
	run := a.LastRun()
	if len(run.Children) != 1 || run.ChildUsage.Output != recs[0].Usage.Output {
		t.Fatalf("run record children %+v child usage %+v, child spent %+v", run.Children, run.ChildUsage, recs[0].Usage)
	}
	if st := a.status(); !strings.Contains(st, "sub-agents 1") {
		t.Fatalf("status:\n%s", st)
	}
}

func TestSubagentParallel(t *testing.T) {
	e := newTestEnv(t)
	g := newGate()
	// Each child waits until all three are in flight: only a parallel
	// batch gets past it.
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		g.mu.Lock()
		g.in++
		n := g.in
		g.mu.Unlock()
		if n == 3 {
			close(g.open)
		}
		select {
		case <-g.open:
		case <-ctx.Done():
			return llm.Message{}, ctx.Err()
		}
		return echo(ctx, req)
	}
	parent := faux.New(faux.Calls("", agentCall("worker", "a", false), agentCall("worker", "b", false), agentCall("worker", "c", false)), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{worker("worker")}, nil)
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	calls, results := toolResults(t, a.Session().Path())
	if len(calls) != 3 {
		t.Fatalf("calls %v", calls)
	}
	for i, p := range []string{"a", "b", "c"} {
		if !strings.HasPrefix(results[calls[i]], "child says: "+p+"\n") {
			t.Errorf("result %d: %q", i, results[calls[i]])
		}
	}
	if ents := entriesOf(t, a.Session().Path()); len(ents["completed"]) != 3 {
		t.Fatalf("entries %v", ents)
	}
}

func TestSubagentConcurrencyCapQueues(t *testing.T) {
	e := newTestEnv(t)
	g := newGate()
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if err := g.wait(ctx); err != nil {
			return llm.Message{}, err
		}
		return echo(ctx, req)
	}
	var calls []llm.Content
	for i := range 6 {
		calls = append(calls, agentCall("worker", fmt.Sprint(i), false))
	}
	parent := faux.New(faux.Calls("", calls...), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{worker("worker")}, func(o *Options) { o.SubagentLimits.MaxConcurrent = 4 })
	changes, unsub := events(a, string(EventSubagent))
	defer unsub()
	done := make(chan error, 1)
	go func() { _, err := a.Submit(context.Background(), "go"); done <- err }()
	for range 4 {
		<-g.entered
	}
	// Wait until all six are known, then look: four run, two wait.
	for {
		<-changes
		if len(a.Subagents().Children()) == 6 {
			break
		}
	}
	states := map[subagent.State]int{}
	for _, r := range a.Subagents().Children() {
		states[r.State]++
	}
	if states[subagent.Running] != 4 || states[subagent.Queued] != 2 {
		t.Fatalf("states %v", states)
	}
	close(g.open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if g.peak() != 4 {
		t.Fatalf("%d children ran at once, want 4", g.peak())
	}
	if ents := entriesOf(t, a.Session().Path()); len(ents["spawned"]) != 6 || len(ents["completed"]) != 6 {
		t.Fatalf("entries %v", ents)
	}
}

var startedID = regexp.MustCompile(`Started sub-agent ([0-9a-f]+)`)

func TestSubagentBackgroundAnnounced(t *testing.T) {
	e := newTestEnv(t)
	g := newGate()
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if err := g.wait(ctx); err != nil {
			return llm.Message{}, err
		}
		return echo(ctx, req)
	}
	parent := faux.New(faux.Calls("", agentCall("worker", "in the back", true)), faux.Text("started it"),
		faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
			return text("heard: " + req.Messages[len(req.Messages)-1].Text()), nil
		}})
	a := openParent(t, e, parent, child, defs{worker("worker")}, nil)
	ends, unsub := events(a, "agent_end")
	defer unsub()
	res, err := a.Submit(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	<-ends
	calls, results := toolResults(t, a.Session().Path())
	m := startedID.FindStringSubmatch(results[calls[0]])
	if m == nil {
		t.Fatalf("background result %q", results[calls[0]])
	}
	if res.Stop != "completed" {
		t.Fatalf("stop %q", res.Stop)
	}
	<-g.entered
	close(g.open)
	// The completion wakes the parent with a new prompt.
	<-ends
	rec, final, err := a.Subagents().Wait(context.Background(), m[1])
	if err != nil || rec.State != subagent.Completed || final != "child says: in the back" {
		t.Fatalf("record %+v final %q err %v", rec, final, err)
	}
	msgs := a.h.Store().Context().Messages
	last := msgs[len(msgs)-1].Text()
	if !strings.HasPrefix(last, "heard: <subagent-result id=\""+m[1]+"\" agent=\"worker\" state=\"completed\">\nchild says: in the back\n[agent worker") {
		t.Fatalf("the parent heard %q", last)
	}
	if ents := entriesOf(t, a.Session().Path()); len(ents["completed"]) != 1 {
		t.Fatalf("entries %v", ents)
	}
}

func TestSubagentCancel(t *testing.T) {
	e := newTestEnv(t)
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		<-ctx.Done()
		return llm.Message{}, ctx.Err()
	}
	parent := faux.New(faux.Calls("", agentCall("worker", "forever", true)),
		faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
			m := startedID.FindStringSubmatch(lastResult(req))
			if m == nil {
				return text("no id in " + lastResult(req)), nil
			}
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{faux.Call("agent_cancel", `{"id":"`+m[1]+`"}`)}}, nil
		}},
		faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
			return text("after: " + lastResult(req)), nil
		}})
	a := openParent(t, e, parent, child, defs{worker("worker")}, nil)
	res, err := a.Submit(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(finalText(res.Messages), "after: Cancelled sub-agent ") {
		t.Fatalf("final %q", finalText(res.Messages))
	}
	recs := a.Subagents().Children()
	if len(recs) != 1 || recs[0].State != subagent.Cancelled || recs[0].Error != "cancelled with agent_cancel" {
		t.Fatalf("records %+v", recs)
	}
	if ents := entriesOf(t, a.Session().Path()); len(ents["cancelled"]) != 1 || len(ents["spawned"]) != 1 {
		t.Fatalf("entries %v", ents)
	}
}

func TestSubagentParentAbortCancelsFanOut(t *testing.T) {
	e := newTestEnv(t)
	g := newGate()
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		err := g.wait(ctx)
		return llm.Message{}, err
	}
	parent := faux.New(faux.Calls("", agentCall("worker", "a", false), agentCall("worker", "b", false), agentCall("worker", "c", false), agentCall("worker", "d", true)))
	a := openParent(t, e, parent, child, defs{worker("worker")}, func(o *Options) { o.SubagentLimits.MaxConcurrent = 2 })
	done := make(chan error, 1)
	go func() {
		res, err := a.Submit(context.Background(), "go")
		if err == nil && res.Stop != "aborted" {
			err = fmt.Errorf("stop %q", res.Stop)
		}
		done <- err
	}()
	<-g.entered
	<-g.entered
	a.Abort()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The background child outlives the abort; Close ends it.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	path := a.Session().Path()
	ents := entriesOf(t, path)
	if len(ents["spawned"]) != 4 || len(ents["cancelled"]) != 4 {
		t.Fatalf("entries %v", ents)
	}
	calls, results := toolResults(t, path)
	for _, c := range calls {
		if _, ok := results[c]; !ok {
			t.Errorf("call %s has no result", c)
		}
	}
}
