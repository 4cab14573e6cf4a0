package telemetry

import (
	"context"
	"errors"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

// Every reply reports 1000 input and 100 output tokens: $0.013 a reply.
func loop(n int) []faux.Reply {
	var out []faux.Reply
	for i := 0; i < n; i++ {
		out = append(out, fixed(1000, 100, echoCall("x")))
	}
	return out
}

func TestCostBudgetStopsBeforeTheLimit(t *testing.T) {
	// $0.03 allows two replies ($0.026); the third request would start
	// at $0.026 + its prompt, and the fourth is past the limit: with the
	// prompt estimate the third is already refused only if it would pass,
	// so count the requests actually sent.
	e := newEnv(t, Limits{Cost: 0.03}, loop(10)...)
	res, err, rec := e.prompt(t, context.Background(), e.h, Info{}, "loop")
	if res.Stop != harness.StopError || err == nil {
		t.Fatalf("run ended %s, %v; want a budget error", res.Stop, err)
	}
	var be *BudgetError
	if !errors.As(err, &be) || be.Limit != LimitCost || llm.CodeOf(err) != llm.CodeBudget {
		t.Fatalf("error %v is not a cost budget error", err)
	}
	sent := len(e.p.Requests())
	if sent != 3 {
		t.Errorf("%d requests reached the provider, want 3 ($0.039 > $0.03 is only known after the third)", sent)
	}
	if rec.Outcome != OutcomeBudgetExhausted || rec.Requests != sent {
		t.Errorf("record outcome %s, requests %d", rec.Outcome, rec.Requests)
	}
	// Work is kept: every tool result and the failed request's message
	// are in the log.
	var results, errs int
	for _, en := range e.mem.Entries() {
		if en.Type != session.TypeMessage {
			continue
		}
		if en.Message.Role == llm.RoleToolResult {
			results++
		}
		if en.Message.ErrorCode == llm.CodeBudget {
			errs++
		}
	}
	if results != 3 || errs != 1 {
		t.Errorf("log has %d tool results and %d budget errors, want 3 and 1", results, errs)
	}
	if len(e.warns) != 1 || e.warns[0].Limit != LimitCost {
		t.Errorf("warnings = %+v, want one on cost", e.warns)
	}
}

func TestTokenBudgetsCountPromptEstimate(t *testing.T) {
	// Output: 250 allows three replies (300 >= 250 stops the fourth).
	e := newEnv(t, Limits{OutputTokens: 250}, loop(10)...)
	_, err, rec := e.prompt(t, context.Background(), e.h, Info{}, "loop")
	if llm.CodeOf(err) != llm.CodeBudget || rec.Outcome != OutcomeBudgetExhausted {
		t.Fatalf("%v, %s", err, rec.Outcome)
	}
	if n := len(e.p.Requests()); n != 3 {
		t.Errorf("%d requests sent, want 3", n)
	}
	if rec.Usage.Output != 300 {
		t.Errorf("output %d", rec.Usage.Output)
	}
	// Input: a limit the first prompt alone would pass sends nothing.
	e = newEnv(t, Limits{InputTokens: 2}, loop(1)...)
	_, err, rec = e.prompt(t, context.Background(), e.h, Info{}, "a prompt longer than eight characters")
	if llm.CodeOf(err) != llm.CodeBudget || len(e.p.Requests()) != 0 || rec.Requests != 0 {
		t.Fatalf("%v: %d requests sent", err, len(e.p.Requests()))
	}
}

func TestBudgetCountsCompaction(t *testing.T) {
	// The second prompt's first reply reports a prompt that fills the
	// window, so the next request first compacts: the summary's 500
	// output tokens are charged to the run and exhaust its 505.
	e := newEnv(t, Limits{},
		fixed(1000, 10, llm.Text("first answer")),
		fixed(170_000, 10, echoCall("y")),
		fixed(4000, 500, llm.Text("summary of the work so far")),
		fixed(1000, 10, llm.Text("never sent")))
	if _, err := e.h.Prompt(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	l := Limits{OutputTokens: 505}
	_, err, rec := e.prompt(t, context.Background(), e.h, Info{Limits: &l}, "second")
	if llm.CodeOf(err) != llm.CodeBudget {
		t.Fatalf("run error %v, want a budget stop", err)
	}
	if len(rec.Compactions) != 1 {
		t.Fatalf("compactions %+v, want 1", rec.Compactions)
	}
	if rec.Usage.Output != 510 || rec.Requests != 2 || e.p.Pending() != 1 {
		t.Errorf("usage %+v, requests %d, pending %d; want the summary counted and the last reply unsent", rec.Usage, rec.Requests, e.p.Pending())
	}
	c := rec.Compactions[0]
	if c.Before <= c.After || c.Before == 0 {
		t.Errorf("compaction %+v", c)
	}
}

func TestChildRunsAreChargedToParents(t *testing.T) {
	// The parent may spend 350 output tokens. Its own reply spends 100;
	// inside its tool call a child run (a sub-agent on another harness)
	// spends 100 a reply until the parent's budget stops it.
	e := newEnv(t, Limits{OutputTokens: 350})
	child := faux.New(loop(10)...)
	ch, chMem := e.harness(t, child)
	var childRec Record
	var childErr error
	e.p.Push(fixed(1000, 100, echoCall("spawn")), fixed(1000, 100, llm.Text("parent done")))
	// The sub-agent runs from a listener of the parent's tool call, with
	// the parent's context, as an agent tool would.
	unsub := e.h.Subscribe(func(ctx context.Context, ev harness.Event) error {
		if ev.Type != "tool_end" {
			return nil
		}
		_, childErr, childRec = e.prompt(t, ctx, ch, Info{Agent: "helper"}, "help")
		return nil
	})
	defer unsub()
	_, err, rec := e.prompt(t, context.Background(), e.h, Info{Agent: "main"}, "work")
	if llm.CodeOf(childErr) != llm.CodeBudget {
		t.Fatalf("child ended with %v, want the parent's budget", childErr)
	}
	var be *BudgetError
	if !errors.As(childErr, &be) || be.Run != rec.ID {
		t.Errorf("child stopped by %+v, want the parent's limit (%s)", be, rec.ID)
	}
	if childRec.Parent != rec.ID || childRec.Depth != 1 || childRec.Trigger != TriggerSubagent || childRec.Usage.Output != 300 {
		t.Errorf("child record %+v", childRec)
	}
	// The child sent three requests (100, 200, 300 < 350 before each);
	// the parent's next request is refused (400 >= 350).
	if llm.CodeOf(err) != llm.CodeBudget || rec.Outcome != OutcomeBudgetExhausted {
		t.Fatalf("parent: %v", err)
	}
	if rec.Usage.Output != 100 || rec.ChildUsage.Output != 300 || len(rec.Children) != 1 || rec.Children[0].ID != childRec.ID {
		t.Errorf("parent record usage %+v, children %+v", rec.Usage, rec.Children)
	}
	if rec.ChildCost <= 0 || rec.TotalCost() != rec.Cost+rec.ChildCost {
		t.Errorf("child cost %v", rec.ChildCost)
	}
	if len(runEntries(chMem)) != 1 {
		t.Errorf("the child's session has no run entry")
	}
}

func TestLimitsValidate(t *testing.T) {
	for _, l := range []Limits{{Cost: -1}, {InputTokens: -1}, {OutputTokens: -5}} {
		if err := l.Validate(); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
	if err := (Limits{Cost: 1}).Validate(); err != nil {
		t.Error(err)
	}
}

// SetLimits changes the budget of runs begun after it, not of a run
// already begun; invalid limits change nothing.
func TestSetLimits(t *testing.T) {
	e := newEnv(t, Limits{Cost: 1}, fixed(10, 1, llm.Text("a")), fixed(10, 1, llm.Text("b")))
	ctx, first := e.t.Begin(context.Background(), e.h, Info{})
	if err := e.t.SetLimits(Limits{Cost: 2}); err != nil {
		t.Fatal(err)
	}
	if err := e.t.SetLimits(Limits{Cost: -1}); err == nil || e.t.Limits().Cost != 2 {
		t.Fatalf("a negative limit: %v, limits now %+v", err, e.t.Limits())
	}
	res, err := e.h.Prompt(ctx, "one")
	rec := first.End(res, err)
	if rec.Budget == nil || rec.Budget.Cost != 1 {
		t.Errorf("the run begun before kept budget %+v, want cost 1", rec.Budget)
	}
	_, _, rec = e.prompt(t, context.Background(), e.h, Info{}, "two")
	if rec.Budget == nil || rec.Budget.Cost != 2 {
		t.Errorf("the next run's budget %+v, want cost 2", rec.Budget)
	}
}
