package telemetry

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

// A child run that ends after its parent run (a background sub-agent)
// reaches the parent's record: the store's last line of the parent and
// its last run entry in the session hold the child, marked late, and its
// usage; its spending counted against the parent's budget all along.
func TestLateChildAmendsParentRecord(t *testing.T) {
	e := newEnv(t, Limits{OutputTokens: 1000}, fixed(1000, 100, llm.Text("parent done")))
	ctx, parent := e.t.Begin(context.Background(), e.h, Info{Agent: "main"})
	res, err := e.h.Prompt(ctx, "work")
	first := parent.End(res, err)
	if len(first.Children) != 0 || first.Outcome != OutcomeCompleted {
		t.Fatalf("parent record %+v", first)
	}
	// The child began inside the parent's run and outlives it.
	ch, chMem := e.harness(t, e.p)
	e.p.Push(fixed(500, 250, llm.Text("child done")))
	cctx, child := e.t.Begin(context.WithoutCancel(ctx), ch, Info{Agent: "helper"})
	cres, cerr := ch.Prompt(cctx, "help")
	crec := child.End(cres, cerr)
	if crec.Parent != first.ID || crec.Usage.Output != 250 {
		t.Fatalf("child record %+v", crec)
	}
	if len(runEntries(chMem)) != 1 {
		t.Errorf("child session run entries %d", len(runEntries(chMem)))
	}
	// The parent's budget counts the child.
	if got := parent.Meter().Total().Output; got != 350 {
		t.Errorf("parent meter total output %d, want 350", got)
	}
	// The store holds one record per run: the parent's is the amended one.
	recs, probs, err := e.store.Read(time.Time{})
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	var got Record
	for _, r := range recs {
		if r.ID == first.ID {
			got = r
		}
	}
	want := func(r Record, where string) {
		t.Helper()
		if len(r.Children) != 1 || r.Children[0].ID != crec.ID || !r.Children[0].Late || r.ChildUsage.Output != 250 ||
			r.Usage.Output != 100 || r.Outcome != OutcomeCompleted || r.DurationMS != first.DurationMS {
			t.Errorf("%s: parent record %+v", where, r)
		}
	}
	want(got, "store")
	want(parent.Record(), "Run.Record")
	ents := runEntries(e.mem)
	if len(ents) != 2 {
		t.Fatalf("parent session run entries %d, want the first and the amended one", len(ents))
	}
	var last Record
	if err := json.Unmarshal(ents[1].Data, &last); err != nil {
		t.Fatal(err)
	}
	want(last, "session")
}
