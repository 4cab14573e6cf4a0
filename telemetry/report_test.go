package telemetry

import (
	"bytes"
	"fmt"
	"github.com/reinhq/rein/internal/cputime"
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":           {},
		"7d":         now.AddDate(0, 0, -7),
		"2w":         now.AddDate(0, 0, -14),
		"12h":        now.Add(-12 * time.Hour),
		"1.5d":       now.Add(-36 * time.Hour),
		"2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"7", "d", "-3d", "yesterday", "-1h"} {
		if _, err := ParseSince(bad, now); err == nil || !strings.Contains(err.Error(), "7d") {
			t.Errorf("ParseSince(%q) = %v; want an error with an example", bad, err)
		}
	}
}

func sample(n int) []Record {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	models := []string{"claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"}
	outcomes := []Outcome{OutcomeCompleted, OutcomeCompleted, OutcomeCompleted, OutcomeBudgetExhausted, OutcomeError}
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Version: 1, ID: fmt.Sprintf("%016x", i*7919), Trigger: TriggerUser, Frontend: "run", Agent: []string{"main", "review"}[i%2],
			Provider: "p", Model: models[i%3], Profile: "p:default", Start: start.Add(time.Duration(i) * time.Minute), DurationMS: int64(1000 + i%50*100),
			Outcome: outcomes[i%5], Stop: "completed", Turns: 3 + i%4, Requests: 4, ToolCalls: 5, ToolErrors: i % 2,
			Tools: map[string]ToolCount{"read": {Calls: 3}, "bash": {Calls: 2, Errors: i % 2}}, Guard: map[string]int{"warn:same_call": 1},
			Compactions: []Compaction{{Reason: "threshold", Before: 150000, After: 20000, DurationMS: 3000}},
			Usage:       Usage{Input: 12000, Output: 800, CacheRead: 90000, CacheWrite: 4000}, Cost: 0.05}
	}
	return recs
}

func TestStats(t *testing.T) {
	recs := sample(10)
	rows, err := Stats(recs, ByModel)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[3].Key != "all" || rows[3].Runs != 10 {
		t.Fatalf("rows = %+v", rows)
	}
	if rows[0].Runs != 4 || rows[0].Key != "claude-sonnet-4-5" {
		t.Errorf("first row %+v; want the model with most cost first", rows[0])
	}
	if rows[3].Completed != 6 || rows[3].Budget != 2 || rows[3].Failed != 2 {
		t.Errorf("outcomes of all = %+v", rows[3])
	}
	tools, err := Stats(recs, ByTool)
	if err != nil {
		t.Fatal(err)
	}
	if tools[0].Key != "read" || tools[0].ToolCalls != 30 || tools[1].Key != "bash" || tools[1].ToolErrs != 5 {
		t.Errorf("tool rows = %+v", tools)
	}
	var b bytes.Buffer
	if err := WriteStats(&b, rows, ByModel); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MODEL", "gpt-5", "60%", "$0.500"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("stats table lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := Stats(recs, "colour"); err == nil || !strings.Contains(err.Error(), "model, agent, tool") {
		t.Errorf("bad group: %v", err)
	}
}

func TestFind(t *testing.T) {
	recs := []Record{{ID: "abc123"}, {ID: "abd456"}, {ID: "ab"}}
	if r, err := Find(recs, "abc"); err != nil || r.ID != "abc123" {
		t.Errorf("prefix: %v %v", r, err)
	}
	if r, err := Find(recs, "ab"); err != nil || r.ID != "ab" {
		t.Errorf("exact id wins over prefixes: %v %v", r, err)
	}
	if _, err := Find(recs, "a"); err == nil || !strings.Contains(err.Error(), "matches 3 runs") {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := Find(recs, "zz"); err == nil || !strings.Contains(err.Error(), "rein runs list") {
		t.Errorf("unknown: %v", err)
	}
}

func TestWriteShowAndList(t *testing.T) {
	rec := sample(1)[0]
	rec.Children = []Child{{ID: "kid", Agent: "helper", Outcome: OutcomeCompleted, Usage: Usage{Input: 10, Output: 5}, Cost: 0.01}}
	rec.ChildCost = 0.01
	rec.Fallbacks = []Fallback{{From: "a/x", To: "b/y", Reason: "overloaded"}}
	var b bytes.Buffer
	if err := WriteShow(&b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"outcome", "compaction 1", "150k → 20k tokens", "fallback", "a/x → b/y (overloaded)", "child kid", "$0.060 with children", "warn:same_call 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteList(&b, sample(3)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 4 {
		t.Errorf("list has %d lines:\n%s", n, b.String())
	}
}

// BenchmarkRunsStats reads 10,000 runs from the store, each written as
// runs write it (a first line, then the final one), and groups them by
// model, as rein runs stats does.
func BenchmarkRunsStats(b *testing.B) {
	s := NewStore(b.TempDir())
	for _, r := range sample(10_000) {
		begin := Record{Version: r.Version, ID: r.ID, Trigger: r.Trigger, Frontend: r.Frontend, Agent: r.Agent, Provider: r.Provider,
			Model: r.Model, Start: r.Start, Outcome: OutcomeInterrupted}
		if err := s.Append(&begin); err != nil {
			b.Fatal(err)
		}
		if err := s.Append(&r); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpu := cputime.Self()
	for b.Loop() {
		recs, _, err := s.Read(time.Time{})
		if err != nil || len(recs) != 10_000 {
			b.Fatal(err, len(recs))
		}
		if _, err := Stats(recs, ByModel); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/stats")
	b.ReportMetric(float64((cputime.Self()-cpu).Milliseconds())/float64(b.N), "cpu-ms/stats")
}
