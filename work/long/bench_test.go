package long

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSessionOverhead is what a worker session costs beyond the
// model and the commands: opening the agent, the plan's reads and atomic
// writes, git checks, the notes entry and the bookkeeping commit. The
// model is scripted and answers at once; the set-up script and verify
// commands run but their time is subtracted.
func BenchmarkSessionOverhead(b *testing.B) {
	var overhead, modelTime, commands time.Duration
	for b.Loop() {
		b.StopTimer()
		f := newFixture(b, planOf(1, nil))
		o := f.options(model(4, diligent))
		b.StartTimer()
		res, err := Work(context.Background(), WorkOptions{Options: o})
		if err != nil || len(res.Sessions) != 1 || res.Sessions[0].Outcome != OutcomeDone {
			b.Fatalf("%+v %v", res, err)
		}
		r := res.Sessions[0]
		overhead += r.Elapsed - r.Model - r.Commands
		modelTime += r.Model
		commands += r.Commands
	}
	n := float64(b.N)
	b.ReportMetric(float64(overhead.Milliseconds())/n, "overhead-ms/session")
	b.ReportMetric(float64(modelTime.Milliseconds())/n, "model-ms/session")
	b.ReportMetric(float64(commands.Milliseconds())/n, "commands-ms/session")
}
