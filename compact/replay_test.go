package compact

import (
	"testing"

	"github.com/reinhq/rein/llm"
)

func TestReplay(t *testing.T) {
	msgs := conversation(300) // 300 reads of ~2,600 characters
	msgs = append(msgs, asst("done", nil))
	o := ReplayOptions{Model: llm.Model{ContextWindow: 16_000, MaxOutput: 2000}}
	r := Replay(msgs, o)
	if len(r.Turns) != 301 {
		t.Fatalf("%d turns", len(r.Turns))
	}
	if !(r.Compacted < r.Masked && r.Masked < r.None) {
		t.Fatalf("totals none %d, masked %d, compacted %d: want none > masked > compacted", r.None, r.Masked, r.Compacted)
	}
	if r.Compactions == 0 || r.Pairs != 300 || r.PairsWhole != r.Pairs || r.Over != 0 {
		t.Fatalf("compactions %d, pairs %d (whole %d), over %d", r.Compactions, r.Pairs, r.PairsWhole, r.Over)
	}
	b := o.Settings.BudgetFor(o.Model, 0)
	for _, turn := range r.Turns {
		if turn.Compacted > b.Limit() {
			t.Fatalf("turn %d: %d tokens over the limit %d", turn.Turn, turn.Compacted, b.Limit())
		}
	}
	// Deterministic.
	again := Replay(msgs, o)
	if again.Compacted != r.Compacted || again.Masked != r.Masked {
		t.Fatal("replay is not reproducible")
	}
	// Off: all three equal.
	off := Replay(msgs, ReplayOptions{Model: o.Model, Settings: Settings{Off: true}})
	if off.None != off.Masked || off.None != off.Compacted || off.Compactions != 0 {
		t.Fatalf("off = %+v", off)
	}
}

// TestReplayResultAdd sums two results and appends their turns.
func TestReplayResultAdd(t *testing.T) {
	a := ReplayResult{None: 10, Masked: 8, Compacted: 5, Compactions: 1, Pairs: 2, PairsWhole: 2, IdentsNeeded: 3, Turns: []ReplayTurn{{Turn: 1}}}
	b := ReplayResult{None: 4, Masked: 4, Compacted: 4, Stuck: 1, Over: 1, GoalMissing: 1, IdentsMissing: 1, Turns: []ReplayTurn{{Turn: 1}, {Turn: 2}}}
	a.Add(b)
	if a.None != 14 || a.Masked != 12 || a.Compacted != 9 || a.Compactions != 1 || a.Stuck != 1 || a.Over != 1 ||
		a.Pairs != 2 || a.GoalMissing != 1 || a.IdentsNeeded != 3 || a.IdentsMissing != 1 || len(a.Turns) != 3 {
		t.Errorf("sum: %+v", a)
	}
}
