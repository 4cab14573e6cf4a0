package otel

import (
	"context"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/internal/cputime"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/telemetry/otelpipe"
	"github.com/reinhq/rein/tool"
)

// BenchmarkTracedTurn measures a prompt of two turns (a tool call, then
// the answer) observed with traces and metrics exported to a local OTLP
// receiver; telemetry's BenchmarkTurn/records is the same prompt without
// traces.
// The in-process case is the exporter a Go program embeds; rein-otel is
// the rein program's path: tracer calls streamed to the built companion,
// which exports (its own CPU is not in cpu-µs/turn, which is this
// process's).
func BenchmarkTracedTurn(b *testing.B) {
	b.Run("in-process", func(b *testing.B) { tracedTurn(b, Setup) })
	b.Run("rein-otel", func(b *testing.B) { tracedTurn(b, otelpipe.With(builtCompanion(b))) })
}

func tracedTurn(b *testing.B, setup telemetry.TraceSetup) {
	rcv := newReceiver(b)
	tr, stop, err := setup(context.Background(), telemetry.TraceSettings{Version: "bench",
		Getenv: envOf("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.srv.URL)})
	if err != nil {
		b.Fatal(err)
	}
	defer stop(context.Background())
	tel := telemetry.New(telemetry.Options{Tracer: tr, Store: telemetry.NewStore(b.TempDir()), Frontend: "bench"})
	reg, err := tool.NewRegistry(echoTool())
	if err != nil {
		b.Fatal(err)
	}
	p := faux.New()
	var h *harness.Harness
	b.ReportAllocs()
	cpu := cputime.Self()
	for i := 0; b.Loop(); i++ {
		if i%16 == 0 {
			if h, err = harness.New(harness.Options{Provider: tel.Provider(p), Model: faux.Model(), Tools: reg, Store: harness.NewMemoryStore(nil),
				NoGuards: true, System: []llm.SystemPart{{Text: "system"}}}); err != nil {
				b.Fatal(err)
			}
		}
		p.Push(fixed(100, 10, faux.Call("echo", `{"v":"a"}`)), fixed(120, 5, llm.Text("done")))
		ctx, run := tel.Begin(context.Background(), h, telemetry.Info{})
		res, err := h.Prompt(ctx, "go")
		run.End(res, err)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(2*b.N), "µs/turn")
	b.ReportMetric(float64((cputime.Self()-cpu).Microseconds())/float64(2*b.N), "cpu-µs/turn")
}
