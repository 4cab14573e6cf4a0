package harness

import (
	"context"
	"testing"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

// benchReplies is one prompt's script: a tool call, then an answer.
func benchReplies() []faux.Reply {
	return []faux.Reply{faux.Calls("checking", faux.Call("echo", `{"v":"x"}`)), faux.Text("all done here")}
}

const turnsPerPrompt = 2

// promptsPerHarness bounds the conversation a benchmark grows before it
// starts over, so that the numbers are per turn, not per session size.
const promptsPerHarness = 16

// BenchmarkHarnessTurn measures a turn through the harness (snapshot,
// hooks wiring, persistence, listeners, save point) on top of the loop,
// with the scripted provider. "loop" is the bare loop for comparison.
func BenchmarkHarnessTurn(b *testing.B) {
	b.Run("loop", func(b *testing.B) {
		// The same conversations as the harness runs, grown and restarted
		// the same way, so that the difference is the harness's own cost.
		p := faux.New()
		tools := registry(b, echoTool())
		cfg := agent.Config{Settings: agent.Settings{Provider: p, Model: faux.Model(), Tools: tools,
			System: []llm.SystemPart{{Text: "system"}}}}
		var conv []llm.Message
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if i%promptsPerHarness == 0 {
				conv = nil
			}
			p.Push(benchReplies()...)
			conv = append(conv, llm.UserText("go"))
			for ev, err := range agent.Run(context.Background(), cfg, conv) {
				if err != nil {
					b.Fatal(err)
				}
				if ev.Type == agent.EventAgentEnd {
					conv = append(conv, ev.Messages...)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*turnsPerPrompt), "µs/turn")
	})
	// overhead runs a bare loop prompt and a harness prompt alternately,
	// timing each, so that load changes on the machine affect both alike.
	b.Run("overhead", func(b *testing.B) {
		p, q := faux.New(), faux.New()
		tools := registry(b, echoTool())
		system := []llm.SystemPart{{Text: "system"}}
		cfg := agent.Config{Settings: agent.Settings{Provider: p, Model: faux.Model(), Tools: tools, System: system}}
		var conv []llm.Message
		var h *Harness
		var loopTime, harnessTime time.Duration
		for i := 0; i < b.N; i++ {
			if i%promptsPerHarness == 0 {
				conv = nil
				var err error
				if h, err = New(Options{Provider: q, Model: faux.Model(), Tools: tools, System: system}); err != nil {
					b.Fatal(err)
				}
				h.Subscribe(func(context.Context, Event) error { return nil })
			}
			p.Push(benchReplies()...)
			q.Push(benchReplies()...)
			t0 := time.Now()
			conv = append(conv, llm.UserText("go"))
			for ev, err := range agent.Run(context.Background(), cfg, conv) {
				if err != nil {
					b.Fatal(err)
				}
				if ev.Type == agent.EventAgentEnd {
					conv = append(conv, ev.Messages...)
				}
			}
			t1 := time.Now()
			if _, err := h.Prompt(context.Background(), "go"); err != nil {
				b.Fatal(err)
			}
			loopTime, harnessTime = loopTime+t1.Sub(t0), harnessTime+time.Since(t1)
		}
		turns := float64(b.N * turnsPerPrompt)
		b.ReportMetric(float64(loopTime.Microseconds())/turns, "loop-µs/turn")
		b.ReportMetric(float64(harnessTime.Microseconds())/turns, "harness-µs/turn")
		b.ReportMetric(float64((harnessTime-loopTime).Microseconds())/turns, "overhead-µs/turn")
	})
	b.Run("memory", func(b *testing.B) {
		benchHarness(b, func(b *testing.B) Store { return NewMemoryStore(nil) })
	})
	for _, mode := range []struct {
		name string
		sync session.SyncMode
	}{{"session-sync-every", session.SyncEvery}, {"session-sync-batch", session.SyncBatch}} {
		b.Run(mode.name, func(b *testing.B) {
			dir := b.TempDir()
			var open []*session.Session
			b.Cleanup(func() {
				for _, s := range open {
					s.Close()
				}
			})
			benchHarness(b, func(b *testing.B) Store {
				s, err := session.Create(session.Options{Dir: dir, Sync: mode.sync})
				if err != nil {
					b.Fatal(err)
				}
				open = append(open, s)
				return s
			})
		})
	}
}

func benchHarness(b *testing.B, newStore func(b *testing.B) Store) {
	var h *Harness
	p := faux.New()
	tools := registry(b, echoTool())
	events := 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%promptsPerHarness == 0 {
			b.StopTimer()
			var err error
			h, err = New(Options{Provider: p, Model: faux.Model(), Tools: tools, Store: newStore(b),
				System: []llm.SystemPart{{Text: "system"}}})
			if err != nil {
				b.Fatal(err)
			}
			h.Subscribe(func(context.Context, Event) error { events++; return nil })
			b.StartTimer()
		}
		p.Push(benchReplies()...)
		if _, err := h.Prompt(context.Background(), "go"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*turnsPerPrompt), "µs/turn")
	if events == 0 {
		b.Fatal("no events")
	}
}
