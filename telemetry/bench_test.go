package telemetry

import (
	"context"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/internal/cputime"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
)

// BenchmarkTurn measures a prompt of two turns (a tool call, then the
// answer) through a harness over the scripted model: "off" without
// telemetry, "records" observed with run records written to a store.
// The difference is what run records and budgets cost a turn.
func BenchmarkTurn(b *testing.B) {
	for _, mode := range []string{"off", "records"} {
		b.Run(mode, func(b *testing.B) {
			reg, err := tool.NewRegistry(echoTool())
			if err != nil {
				b.Fatal(err)
			}
			p := faux.New()
			var prov llm.Provider = p
			var tel *Telemetry
			if mode == "records" {
				tel = New(Options{Store: NewStore(b.TempDir()), Frontend: "bench", Limits: Limits{Cost: 1000}})
				prov = tel.Provider(p)
			}
			var h *harness.Harness
			b.ReportAllocs()
			cpu := cputime.Self()
			for i := 0; b.Loop(); i++ {
				if i%16 == 0 {
					if h, err = harness.New(harness.Options{Provider: prov, Model: priced(), Tools: reg, Store: harness.NewMemoryStore(nil),
						NoGuards: true, System: []llm.SystemPart{{Text: "system"}}}); err != nil {
						b.Fatal(err)
					}
				}
				p.Push(fixed(100, 10, echoCall("a")), fixed(120, 5, llm.Text("done")))
				ctx := context.Background()
				var run *Run
				if tel != nil {
					ctx, run = tel.Begin(ctx, h, Info{})
				}
				res, err := h.Prompt(ctx, "go")
				if run != nil {
					run.End(res, err)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(2*b.N), "µs/turn")
			b.ReportMetric(float64((cputime.Self()-cpu).Microseconds())/float64(2*b.N), "cpu-µs/turn")
		})
	}
}
