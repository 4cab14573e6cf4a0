package permission

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reinhq/rein/tool"
)

// BenchmarkDecide50Rules measures one decision on a bash call against 50
// rules, parse included.
func BenchmarkDecide50Rules(b *testing.B) {
	var allow, ask, deny []string
	for i := range 30 {
		allow = append(allow, fmt.Sprintf("Bash(tool%d run *)", i))
	}
	for i := range 10 {
		ask = append(ask, fmt.Sprintf("Bash(deploy%d:*)", i))
		deny = append(deny, fmt.Sprintf("Read(./secret%d/**)", i))
	}
	g := New(Options{Mode: ModeAutoRead, Workdir: "/w", Rules: rules(b, "/w", allow, ask, deny)})
	c := bashCall(`cd sub && timeout 60 tool29 run --flag "a b" | tool3 run -x > out.txt`)
	if v := g.Decide(context.Background(), c); v.Effect != Allow {
		b.Fatalf("verdict %+v", v)
	}
	start := cpuTime()
	for b.Loop() {
		g.Decide(context.Background(), c)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/decision")
	if start > 0 {
		// The process's CPU time per decision (GC included), which stays
		// put when other processes compete for the machine.
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/decision")
	}
}

// BenchmarkDecideEveryday measures decisions on the harmless corpus's
// 170 everyday commands (git, go, ls, grep, pipes, redirections) against
// the same 50 rules, in a real workspace, parse included: the mean per
// decision, and the slowest command's figure.
func BenchmarkDecideEveryday(b *testing.B) {
	var allow, ask, deny []string
	for i := range 30 {
		allow = append(allow, fmt.Sprintf("Bash(tool%d run *)", i))
	}
	for i := range 10 {
		ask = append(ask, fmt.Sprintf("Bash(deploy%d:*)", i))
		deny = append(deny, fmt.Sprintf("Read(./secret%d/**)", i))
	}
	ws := b.TempDir()
	g := New(Options{Mode: ModeAutoRead, Workdir: ws, Home: b.TempDir(), Rules: rules(b, ws, allow, ask, deny)})
	var calls []*tool.Call
	for _, cmd := range readCorpus(b, filepath.Join("bypass", "harmless.txt")) {
		calls = append(calls, bashCall(cmd))
	}
	per := make([]time.Duration, len(calls))
	start := cpuTime()
	for b.Loop() {
		for i, c := range calls {
			t := time.Now()
			g.Decide(context.Background(), c)
			per[i] += time.Since(t)
		}
	}
	n := float64(b.N * len(calls))
	b.ReportMetric(float64(b.Elapsed().Microseconds())/n, "µs/decision")
	if start > 0 {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/n, "cpu-µs/decision")
	}
	slices.Sort(per)
	b.ReportMetric(float64(per[len(per)*95/100].Microseconds())/float64(b.N), "p95-µs/command")
	b.ReportMetric(float64(per[len(per)-1].Microseconds())/float64(b.N), "max-µs/command")
}
