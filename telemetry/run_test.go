package telemetry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

func TestRecordOfARunWithTools(t *testing.T) {
	e := newEnv(t, Limits{},
		fixed(1000, 100, echoCall("a"), echoCall("fail")),
		fixed(2000, 50, llm.Text("done")))
	res, err, rec := e.prompt(t, context.Background(), e.h, Info{Agent: "coder"}, "go")
	if err != nil || res.Stop != harness.StopCompleted {
		t.Fatalf("run: %v %v", res.Stop, err)
	}
	want := Record{
		Version: RecordVersion, ID: "run1", Trigger: TriggerUser, Frontend: "test", Agent: "coder",
		Provider: "faux", Model: "faux", Start: rec.Start, DurationMS: rec.DurationMS,
		Outcome: OutcomeCompleted, Stop: "completed", Turns: 2, Requests: 2, ToolCalls: 2, ToolErrors: 1,
		Tools: map[string]ToolCount{"echo": {Calls: 2, Errors: 1}},
		Usage: Usage{Input: 3000, Output: 150}, Cost: 3000*10/1e6 + 150*30/1e6,
	}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if rec.DurationMS <= 0 {
		t.Errorf("duration %d ms", rec.DurationMS)
	}
	// The store has the begin line and the final one; a reader keeps the
	// final one.
	data, err := os.ReadFile(e.store.file(rec.Start))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("%d lines in the store, want 2", n)
	}
	recs, probs, err := e.store.Read(rec.Start.AddDate(0, 0, -1))
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if diff := cmp.Diff([]Record{rec}, recs, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 })); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	// And the session has a run entry with the same record.
	ents := runEntries(e.mem)
	if len(ents) != 1 {
		t.Fatalf("%d run entries in the session, want 1", len(ents))
	}
	var got Record
	if err := json.Unmarshal(ents[0].Data, &got); err != nil || got.ID != "run1" || got.Outcome != OutcomeCompleted {
		t.Errorf("session entry = %+v, %v", got, err)
	}
}

func TestUnfinishedRunReadsAsInterrupted(t *testing.T) {
	e := newEnv(t, Limits{})
	// The run is killed inside its first request: the record written
	// when it started stays.
	var run *Run
	e.p.Push(faux.Reply{Func: func(ctx context.Context, _ *llm.Request) (llm.Message, error) {
		recs, _, err := e.store.Read(time.Time{})
		if err != nil || len(recs) != 1 || recs[0].ID != run.ID() || recs[0].Outcome != OutcomeInterrupted {
			t.Errorf("records during the run = %+v, %v", recs, err)
		}
		return llm.Message{}, context.Canceled
	}})
	ctx, run := e.t.Begin(context.Background(), e.h, Info{})
	e.h.Prompt(ctx, "go")
	recs, _, err := e.store.Read(time.Time{})
	if err != nil || len(recs) != 1 || recs[0].ID != run.ID() || recs[0].Outcome != OutcomeInterrupted {
		t.Fatalf("records = %+v, %v", recs, err)
	}
	rec := run.End(harness.Result{Stop: harness.StopAborted}, nil)
	if rec.Outcome != OutcomeCancelled {
		t.Errorf("outcome %s, want cancelled", rec.Outcome)
	}
	if again := run.End(harness.Result{Stop: harness.StopCompleted}, nil); again.Outcome != OutcomeCancelled {
		t.Errorf("a second End changed the record: %s", again.Outcome)
	}
	recs, _, _ = e.store.Read(time.Time{})
	if len(recs) != 1 || recs[0].Outcome != OutcomeCancelled {
		t.Errorf("records after End = %+v", recs)
	}
}

func TestOutcomes(t *testing.T) {
	budget := &llm.Error{Code: llm.CodeBudget, Err: &BudgetError{Run: "r", Limit: LimitCost, Spent: 1, Max: 1}}
	for _, c := range []struct {
		stop harness.StopReason
		err  error
		want Outcome
	}{
		{harness.StopCompleted, nil, OutcomeCompleted},
		{harness.StopError, &harness.Error{Code: harness.CodeProvider, Err: budget}, OutcomeBudgetExhausted},
		{harness.StopMaxTurns, nil, OutcomeBudgetExhausted},
		{harness.StopWorkIncomplete, nil, OutcomeContractUnmet},
		{harness.StopStalled, nil, OutcomeLoopDetected},
		{harness.StopToolStop, nil, OutcomeLoopDetected},
		{harness.StopAborted, nil, OutcomeCancelled},
		{harness.StopError, &llm.Error{Code: llm.CodeAuth}, OutcomeError},
		{harness.StopLength, nil, OutcomeError},
	} {
		if got := OutcomeOf(c.stop, c.err); got != c.want {
			t.Errorf("OutcomeOf(%s, %v) = %s, want %s", c.stop, c.err, got, c.want)
		}
	}
}

func TestStoreSkipsCorruptLines(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	good := Record{Version: 1, ID: "a", Start: newClock().Now(), Outcome: OutcomeCompleted}
	if err := s.Append(&good); err != nil {
		t.Fatal(err)
	}
	name := s.file(good.Start)
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n\n{\"v\":1}\n{\"v\":99,\"id\":\"future\"}\n")
	f.Close()
	later := good
	later.ID = "b"
	if err := s.Append(&later); err != nil {
		t.Fatal(err)
	}
	recs, probs, err := s.Read(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "a" || recs[1].ID != "b" {
		t.Errorf("records = %+v", recs)
	}
	var where []string
	for _, p := range probs {
		where = append(where, filepath.Base(p.File)+":"+strconv.Itoa(p.Line))
	}
	base := filepath.Base(name)
	if diff := cmp.Diff([]string{base + ":2", base + ":4", base + ":5"}, where); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, probs)
	}
	if !strings.Contains(probs[2].String(), "newer") {
		t.Errorf("problem = %s", probs[2])
	}
}

func TestStoreMissingDirIsEmpty(t *testing.T) {
	recs, probs, err := NewStore(filepath.Join(t.TempDir(), "none")).Read(time.Time{})
	if err != nil || len(recs) != 0 || len(probs) != 0 {
		t.Fatalf("%v %v %v", recs, probs, err)
	}
}

func TestBusyPromptLeavesNoRecord(t *testing.T) {
	e := newEnv(t, Limits{})
	_, run := e.t.Begin(context.Background(), e.h, Info{})
	rec := run.End(harness.Result{}, &harness.Error{Code: harness.CodeBusy, Op: "prompt"})
	if rec.Outcome != OutcomeError {
		t.Errorf("outcome %s", rec.Outcome)
	}
	recs, _, err := e.store.Read(time.Time{})
	if err != nil || len(recs) != 0 || len(runEntries(e.mem)) != 0 {
		t.Errorf("a busy prompt left records %+v (%v) or session entries", recs, err)
	}
}

// Reasoning tokens the provider reports reach the record as the part of
// the output they are, summed over the run's requests.
func TestRecordCountsReasoningTokens(t *testing.T) {
	think := func(in, out, reasoning int, c ...llm.Content) faux.Reply {
		r := fixed(in, out, c...)
		r.Message.Usage.Reasoning = reasoning
		return r
	}
	e := newEnv(t, Limits{}, think(100, 80, 60, echoCall("a")), think(200, 30, 12, llm.Text("done")))
	_, err, rec := e.prompt(t, context.Background(), e.h, Info{}, "go")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Usage.Output != 110 || rec.Usage.Reasoning != 72 {
		t.Errorf("usage %+v, want output 110 of which reasoning 72", rec.Usage)
	}
}

// TestStoreReadsOnlyTheLastLineOfARun: of a run's two lines the last is
// its record; when the last cannot be read, the one before it stands and
// the bad line is reported.
func TestStoreReadsOnlyTheLastLineOfARun(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	start := newClock().Now()
	for _, r := range []Record{
		{Version: 1, ID: "a", Start: start, Outcome: OutcomeInterrupted},
		{Version: 1, ID: "b", Start: start, Outcome: OutcomeInterrupted},
		{Version: 1, ID: "a", Start: start, Outcome: OutcomeCompleted},
	} {
		if err := s.Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(s.file(start), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"id":"b","start":"not a time"}` + "\n")
	f.Close()
	recs, probs, err := s.Read(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "a" || recs[0].Outcome != OutcomeCompleted || recs[1].ID != "b" || recs[1].Outcome != OutcomeInterrupted {
		t.Errorf("records = %+v", recs)
	}
	if len(probs) != 1 || probs[0].Line != 4 {
		t.Errorf("problems = %v, want line 4", probs)
	}
	if id := lineID([]byte(`{"v":1,"id":"x\"y"}`)); id != "" {
		t.Errorf("an escaped id was taken as %q; such a line must be decoded in full", id)
	}
}
