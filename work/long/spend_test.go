package long

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
)

// setEnded rewrites the run record's ended flag: false is what a process
// killed during the run leaves behind.
func setEnded(t *testing.T, dir string, ended bool) runRecord {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(runFile))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var rec runRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec.Ended = ended
	if b, err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return rec
}

// A run whose record did not end (its process died) is continued: the
// next Work counts what its sessions logged against MaxCost, once; a run
// that ended carries nothing.
func TestWorkCarriesSpendOfDeadRun(t *testing.T) {
	f := newFixture(t, planOf(3, nil))
	o := f.options(model(40, diligent))
	o.Agent.ModelInfo.Price = llm.Price{Input: 1, Output: 1}
	first, err := Work(context.Background(), WorkOptions{Options: o})
	if err != nil || len(first.Sessions) != 1 || first.Cost <= 0 || first.Carried.Sessions != 0 {
		t.Fatalf("first run: %v, %+v", err, first)
	}
	spent := first.Cost
	rec := setEnded(t, f.dir, false)
	if len(rec.Sessions) != 1 || rec.Sessions[0] != first.Sessions[0].Session {
		t.Fatalf("run record sessions %v, want the session's log %s", rec.Sessions, first.Sessions[0].Session)
	}

	// The budget left after the dead run's spend is less than nothing.
	res, err := Work(context.Background(), WorkOptions{Options: o, UntilDone: true, MaxCost: spent * 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopBudget || len(res.Sessions) != 0 || res.Carried.Sessions != 1 || math.Abs(res.Carried.Cost-spent) > 1e-12 {
		t.Fatalf("continued run: stop %s (%s), %d sessions, carried %+v; want the budget stop before any session, $%v carried", res.Stop, res.Detail, len(res.Sessions), res.Carried, spent)
	}
	if !strings.Contains(res.Summary(), "whose process died") {
		t.Fatalf("summary %q", res.Summary())
	}
	// That run ended: the next one starts afresh.
	res, err = Work(context.Background(), WorkOptions{Options: o, MaxCost: spent * 10})
	if err != nil || res.Carried.Sessions != 0 || len(res.Sessions) != 1 {
		t.Fatalf("after an ended run: %v, carried %+v, %d sessions", err, res.Carried, len(res.Sessions))
	}

	// Killed again after one session: that session counts, and the run
	// goes on to the end with what remains.
	setEnded(t, f.dir, false)
	res, err = Work(context.Background(), WorkOptions{Options: o, UntilDone: true, MaxCost: 100})
	if err != nil || res.Carried.Sessions != 1 || res.Stop != StopDone {
		t.Fatalf("continued run: %v, carried %+v, stop %s", err, res.Carried, res.Stop)
	}
	if got := res.Spent(); math.Abs(got-res.Cost-res.Carried.Cost) > 1e-12 {
		t.Fatalf("spent %v", got)
	}
}

// A run record that does not parse stops the run before any session,
// naming the file.
func TestWorkMalformedRunRecord(t *testing.T) {
	f := newFixture(t, planOf(1, nil))
	f.write(runFile, "{not json")
	res, err := Work(context.Background(), WorkOptions{Options: f.options(model(4, diligent))})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "run.json") || len(res.Sessions) != 0 {
		t.Fatalf("err %v, %d sessions", err, len(res.Sessions))
	}
	if _, code, _ := WorkOutcome(res, err); code != ExitBadInput {
		t.Fatalf("exit %d", code)
	}
}
