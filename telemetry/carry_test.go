package telemetry

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// sessionHarness opens a harness over the session file at path (a new
// one when path is "") with the telemetry's provider.
func sessionHarness(t *testing.T, e *env, dir, path string) (*harness.Harness, *session.Session) {
	t.Helper()
	var s *session.Session
	var err error
	if path == "" {
		s, err = session.Create(session.Options{Dir: dir})
	} else {
		s, err = session.Open(path, session.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	reg, err := tool.NewRegistry(echoTool())
	if err != nil {
		t.Fatal(err)
	}
	h, err := harness.New(harness.Options{Provider: e.t.Provider(e.p), Model: priced(), Tools: reg, Store: s, NoGuards: true,
		System: []llm.SystemPart{{Text: "system"}}})
	if err != nil {
		t.Fatal(err)
	}
	return h, s
}

// TestKilledRunSpendCarriesOver: a run the process did not finish (its
// log cut after its second reply, as a kill -9 leaves it: no run entry)
// spent 2 × (1000 in, 100 out). The resumed prompt carries that spend:
// its output budget of 250 tokens lets it make one reply, not three; its
// record says what it carried, and the records' total cost is what the
// log's replies cost. A later prompt carries nothing again.
func TestKilledRunSpendCarriesOver(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e := newEnv(t, Limits{OutputTokens: 250}, loop(10)...)
	// The first process: three replies, then the kill. It writes to the
	// same run store.
	e1 := newEnv(t, Limits{}, loop(3)...)
	e1.t = New(Options{Store: e.store, Frontend: "test", Clock: newClock().Now, NewID: func() string { return "killed" }})
	h1, s1 := sessionHarness(t, e1, dir, "")
	ctx1, _ := e1.t.Begin(ctx, h1, Info{}) // never ended: the process dies
	if _, err := h1.Prompt(ctx1, "loop"); err == nil {
		t.Fatal("the scripted replies ran out without an error")
	}
	path := s1.Path()
	s1.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	replies, cut := 0, 0
	for i, l := range lines {
		if strings.Contains(l, `"role":"assistant"`) {
			if replies++; replies == 2 {
				cut = i + 1
				break
			}
		}
	}
	if cut == 0 {
		t.Fatal("the log has fewer than two replies")
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}

	// The resumed process.
	h2, s2 := sessionHarness(t, e, dir, path)
	if got := h2.Totals().Usage; got.Output != 200 || got.Input != 2000 {
		t.Fatalf("the log's totals: %+v", got)
	}
	res, err, rec := e.prompt(t, ctx, h2, Info{}, "continue")
	if llm.CodeOf(err) != llm.CodeBudget || res.Stop != harness.StopError {
		t.Fatalf("the resumed prompt ended %s, %v; want the output budget reached", res.Stop, err)
	}
	if n := len(e.p.Requests()); n != 1 {
		t.Fatalf("%d requests sent by the resumed prompt, want 1 (200 carried + 100 reaches 250)", n)
	}
	c := rec.Carried
	if c == nil || c.Replies != 2 || c.Usage.Output != 200 || c.Usage.Input != 2000 {
		t.Fatalf("carried %+v", c)
	}
	if rec.Usage.Output != 100 || rec.Outcome != OutcomeBudgetExhausted {
		t.Fatalf("the run's own usage %+v, outcome %s", rec.Usage, rec.Outcome)
	}
	want := 3 * 0.013
	if d := rec.TotalCost() - want; d > 1e-9 || d < -1e-9 || c.Cost <= 0 {
		t.Fatalf("total cost %v (carried %v), want %v: the log's three replies", rec.TotalCost(), c.Cost, want)
	}
	// The session's run entry holds the carried spend.
	var logged Record
	found := false
	for _, en := range s2.Entries() {
		if en.Type == session.TypeCustom && en.Kind == SessionEntryKind {
			found = json.Unmarshal(en.Data, &logged) == nil
		}
	}
	if !found || logged.Carried == nil || logged.Carried.Replies != 2 {
		t.Fatalf("the run entry: %+v", logged.Carried)
	}
	// Stats over the store: the killed run's interrupted record and the
	// resumed one add up to what the log's replies cost.
	recs, _, err := e.store.Read(rec.Start.AddDate(0, 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Stats(recs, ByOutcome)
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records: %v", len(recs), err)
	}
	if all := rows[len(rows)-1]; all.Usage.Output != 300 || all.Cost-want > 1e-9 || want-all.Cost > 1e-9 {
		t.Fatalf("stats total %+v, want 300 output tokens and $%v", all, want)
	}

	// The next prompt of the same process carries nothing again, and
	// neither does a process that reopens the log now.
	e.p.Push(loop(1)...)
	e.t.SetLimits(Limits{})
	_, _, rec2 := e.prompt(t, ctx, h2, Info{}, "again")
	if rec2.Carried != nil {
		t.Fatalf("carried twice: %+v", rec2.Carried)
	}
	s2.Close()
	e3 := newEnv(t, Limits{}, loop(1)...)
	h3, _ := sessionHarness(t, e3, dir, path)
	_, _, rec3 := e3.prompt(t, ctx, h3, Info{}, "later")
	if rec3.Carried != nil {
		t.Fatalf("a reopened log whose runs all ended carried %+v", rec3.Carried)
	}
}

// TestNothingCarriedFromUnjournaledLog: replies of a log without request
// journal entries (an imported session, an older file) say nothing about
// unfinished runs: nothing is carried from them.
func TestNothingCarriedFromUnjournaledLog(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(llm.UserText("hello")); err != nil {
		t.Fatal(err)
	}
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("hi")}, Usage: &llm.Usage{Input: 5000, Output: 500}}
	if _, err := s.AppendMessage(m); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	e := newEnv(t, Limits{OutputTokens: 250}, fixed(1000, 100, llm.Text("done")))
	h, _ := sessionHarness(t, e, dir, path)
	ctx, run := e.t.Begin(context.Background(), h, Info{})
	if rec := run.Snapshot(); rec.Carried != nil {
		t.Fatalf("carried %+v from an unjournaled log", rec.Carried)
	}
	res, err := h.Prompt(ctx, "go")
	run.End(res, err)
	if n := len(e.p.Requests()); n != 1 || err != nil || res.Stop != harness.StopCompleted {
		t.Fatalf("%d requests: the unjournaled usage counted against the budget", n)
	}
}
