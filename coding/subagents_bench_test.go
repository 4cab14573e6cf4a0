package coding

import (
	"context"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/subagent"
)

// BenchmarkSubagentSpawn measures what a foreground child costs beyond
// its model: opening it as a session of its own (workspace, settings,
// tools, log with its header), the spawned and completed entries in the
// parent's log, the run's bookkeeping and closing it. The scripted model
// answers at once.
//
// "log" keeps session logs on disk (fsync of the child's header and of
// the parent's entries included); "nolog" opens the parent without a
// log, so neither writes one: the in-process cost alone.
func BenchmarkSubagentSpawn(b *testing.B) {
	for _, logged := range []bool{true, false} {
		name := "log"
		if !logged {
			name = "nolog"
		}
		b.Run(name, func(b *testing.B) { benchSpawn(b, !logged) })
	}
}

func benchSpawn(b *testing.B, noSession bool) {
	e := &testEnv{vars: map[string]string{}}
	e.home = b.TempDir()
	e.vars["HOME"] = e.home
	o := e.options(b.TempDir())
	o.Provider = newRouter(faux.New(), func(context.Context, *llm.Request) (llm.Message, error) { return text("ok"), nil })
	o.AgentDefinitions = defs{worker("w")}
	o.NoSession = noSession
	a, err := Open(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		res, err := a.Subagents().Spawn(ctx, subagent.Request{Type: "w", Prompt: "p", Description: "bench"})
		if err != nil || res.Record.State != subagent.Completed {
			b.Fatalf("%+v %v", res.Record, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
