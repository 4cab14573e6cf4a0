package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/telemetry"
)

// TestRunRecordsAndBudgetExitStatus: a run leaves a record that rein runs
// lists, shows and sums up; a run a budget stops exits 3 with its work
// kept; a corrupt line is skipped with its file and line.
func TestRunRecordsAndBudgetExitStatus(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "what does a.txt say?"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Each reply of the script is several output tokens: a budget of 2
	// lets the first request through and stops the second.
	code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "--max-output-tokens", "2", "again")
	if code != exitBudget || !strings.Contains(errOut, "budget exhausted") || !strings.Contains(errOut, "--max-output-tokens") {
		t.Fatalf("budget run: exit %d, stderr %s", code, errOut)
	}
	recs, probs, err := telemetry.NewStore(telemetry.DefaultDir(dir)).Read(time.Time{})
	if err != nil || len(probs) > 0 || len(recs) != 2 {
		t.Fatalf("records %+v %v %v", recs, probs, err)
	}
	if recs[0].Outcome != telemetry.OutcomeCompleted || recs[0].Frontend != "run" || recs[0].ToolCalls != 1 || recs[0].Session == "" {
		t.Errorf("first record %+v", recs[0])
	}
	if recs[1].Outcome != telemetry.OutcomeBudgetExhausted || recs[1].ToolCalls != 1 || recs[1].Requests != 1 {
		t.Errorf("budget record %+v: the first reply's tool call should have run", recs[1])
	}

	code, out, errOut := runCLI(t, "", "runs", "list", "-C", dir)
	if code != 0 || !strings.Contains(out, "OUTCOME") || !strings.Contains(out, "budget_exhausted") || !strings.Contains(out, recs[0].ID) {
		t.Fatalf("runs list: %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "runs", "show", "-C", dir, recs[1].ID[:6])
	if code != 0 || !strings.Contains(out, "budget_exhausted") || !strings.Contains(out, "read 1") {
		t.Fatalf("runs show: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "runs", "show", "-C", dir, "--json", "last")
	var rec telemetry.Record
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec.ID != recs[1].ID {
		t.Fatalf("runs show --json last: %d %s", code, out)
	}
	code, out, _ = runCLI(t, "", "runs", "stats", "-C", dir, "--by", "tool")
	if code != 0 || !strings.Contains(out, "read") || !strings.Contains(out, "CALLS") {
		t.Fatalf("runs stats --by tool: %d\n%s", code, out)
	}

	// A corrupt line is skipped and named.
	files, _ := filepath.Glob(filepath.Join(telemetry.DefaultDir(dir), "*.jsonl"))
	f, _ := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{oops\n")
	f.Close()
	code, out, errOut = runCLI(t, "", "runs", "stats", "-C", dir)
	if code != 0 || !strings.Contains(errOut, filepath.Base(files[0])+":5:") || !strings.Contains(out, "faux") {
		t.Fatalf("stats over a corrupt line: %d\n%s\n%s", code, out, errOut)
	}
	// Bad input is a usage error with what to do.
	if code, _, errOut := runCLI(t, "", "runs", "stats", "-C", dir, "--by", "colour"); code != 2 || !strings.Contains(errOut, "model, agent, tool") {
		t.Errorf("--by colour: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "runs", "list", "-C", dir, "--since", "last week"); code != 2 || !strings.Contains(errOut, "7d") {
		t.Errorf("--since: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "--max-cost", "-1", "x"); code != 2 || !strings.Contains(errOut, "negative") {
		t.Errorf("--max-cost -1: %d %s", code, errOut)
	}
}
