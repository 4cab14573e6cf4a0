package coding

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
)

// priced is a reply that reports a fixed usage: 100 tokens in, 10 out.
func priced(m llm.Message) llm.Message {
	m.Usage = &llm.Usage{Input: 100, Output: 10, Total: 110}
	return m
}

// spender is a child that never ends by itself: every reply lists the
// folder again and spends 10 output tokens.
type spender struct {
	mu    sync.Mutex
	asked int
}

func (s *spender) reply(_ context.Context, _ *llm.Request) (llm.Message, error) {
	s.mu.Lock()
	s.asked++
	path := "." + strings.Repeat("/.", s.asked)
	s.mu.Unlock()
	return priced(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("looking"), faux.Call("ls", `{"path":"`+path+`"}`)}}), nil
}

func (s *spender) n() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

func pricedReply(m llm.Message) faux.Reply {
	return faux.Reply{Func: func(context.Context, *llm.Request) (llm.Message, error) { return priced(m), nil }}
}

// A definition's budget stops its child before the limit is crossed:
// the child ends budget_exhausted, the parent's tool call says so and
// which budget, and the child's spending is charged to the parent's run.
func TestSubagentDefinitionBudget(t *testing.T) {
	e := newTestEnv(t)
	sp := &spender{}
	def := worker("cheap")
	def.Budget = subagent.Budget{OutputTokens: 25}
	parent := faux.New(pricedReply(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{agentCall("cheap", "spend", false)}}),
		pricedReply(text("done")))
	a := openParent(t, e, parent, sp.reply, defs{def}, nil)
	res, err := a.Submit(context.Background(), "go")
	if err != nil || res.Stop != "completed" {
		t.Fatalf("parent stop %q, err %v", res.Stop, err)
	}
	// 0, 10 and 20 tokens spent before each request: the third is the
	// last under 25.
	if sp.n() != 3 {
		t.Errorf("the child's model was asked %d times, want 3", sp.n())
	}
	recs := a.Subagents().Children()
	if len(recs) != 1 || recs[0].State != subagent.Failed || recs[0].Stop != "budget_exhausted" {
		t.Fatalf("records %+v", recs)
	}
	calls, results := toolResults(t, a.Session().Path())
	got := results[calls[0]]
	for _, want := range []string{"The sub-agent failed (budget_exhausted): budget exhausted: 30 of 25 output tokens", "agent cheap"} {
		if !strings.Contains(got, want) {
			t.Errorf("the parent's result lacks %q:\n%s", want, got)
		}
	}
	run := a.LastRun()
	if run.ChildUsage.Output != 30 || run.Usage.Output != 20 || len(run.Children) != 1 ||
		run.Children[0].Outcome != telemetry.OutcomeBudgetExhausted {
		t.Errorf("parent run: own usage %+v child usage %+v children %+v", run.Usage, run.ChildUsage, run.Children)
	}
}

// A child's budget is the smaller of its definition's and what the
// parent's run has left.
func TestSubagentBudgetWithinParentsRemaining(t *testing.T) {
	e := newTestEnv(t)
	sp := &spender{}
	def := worker("rich")
	def.Budget = subagent.Budget{CostUSD: 5, OutputTokens: 1000}
	parent := faux.New(pricedReply(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{agentCall("rich", "spend", false)}}),
		pricedReply(text("done")))
	var childRec telemetry.Record
	a := openParent(t, e, parent, sp.reply, defs{def}, func(o *Options) { o.Budget = telemetry.Limits{OutputTokens: 30} })
	res, err := a.Submit(context.Background(), "go")
	if res.Stop == "completed" {
		t.Fatalf("the parent completed past its budget: %v", err)
	}
	if sp.n() != 2 {
		t.Errorf("the child's model was asked %d times, want 2 (0 then 10 tokens spent of the 20 left)", sp.n())
	}
	recs := a.Subagents().Children()
	if len(recs) != 1 || recs[0].Stop != "budget_exhausted" {
		t.Fatalf("records %+v", recs)
	}
	for _, r := range readRuns(t, a) {
		if r.Agent == "rich" {
			childRec = r
		}
	}
	if childRec.Budget == nil || childRec.Budget.Cost != 5 || childRec.Budget.OutputTokens != 20 {
		t.Errorf("child's budget %+v, want its own $5 and 20 output tokens (the parent's remaining)", childRec.Budget)
	}
}

// readRuns reads the run records of a's workspace.
func readRuns(t *testing.T, a *Agent) []telemetry.Record {
	t.Helper()
	recs, probs, err := telemetry.NewStore(telemetry.DefaultDir(a.Workspace())).Read(time.Time{})
	if err != nil || len(probs) > 0 {
		t.Fatalf("run records: %v %v", err, probs)
	}
	return recs
}

// A background child that ends after the prompt that started it is
// charged to that prompt's run: its record in .rein/runs and LastRun are
// amended with the child, marked late.
func TestSubagentBackgroundChargedToSpawningRun(t *testing.T) {
	e := newTestEnv(t)
	g := newGate()
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if err := g.wait(ctx); err != nil {
			return llm.Message{}, err
		}
		return priced(text("child done")), nil
	}
	parent := faux.New(pricedReply(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{agentCall("worker", "later", true)}}),
		pricedReply(text("started it")), pricedReply(text("heard it")))
	a := openParent(t, e, parent, child, defs{worker("worker")}, nil)
	ends, unsub := events(a, "agent_end")
	defer unsub()
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	<-ends
	first := a.LastRun()
	if len(first.Children) != 0 {
		t.Fatalf("the child ended before its parent's prompt: %+v", first.Children)
	}
	<-g.entered
	close(g.open)
	<-ends // the completion's wake-up prompt
	if rec := a.Subagents().Children(); len(rec) != 1 || rec[0].State != subagent.Completed {
		t.Fatalf("records %+v", rec)
	}
	var got telemetry.Record
	for _, r := range readRuns(t, a) {
		if r.ID == first.ID {
			got = r
		}
	}
	if len(got.Children) != 1 || !got.Children[0].Late || got.ChildUsage.Output != 10 || got.Usage.Output != 20 {
		t.Errorf("the spawning run's record %+v", got)
	}
}
