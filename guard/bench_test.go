package guard

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reinhq/rein/tool"
)

// warmGuard returns a guard whose window is full and whose read cache
// holds a few files, as in the middle of a run.
func warmGuard(b *testing.B) *Guard {
	g := New(Options{Workdir: "/work", Offline: true})
	for i := range 40 {
		var c Call
		switch i % 4 {
		case 0:
			c = Call{Tool: "read", Args: json.RawMessage(fmt.Sprintf(`{"path":"src/f%d.go"}`, i))}
		case 1:
			c = Call{Tool: "bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"go test ./pkg%d"}`, i))}
		case 2:
			c = Call{Tool: "grep", Args: json.RawMessage(fmt.Sprintf(`{"pattern":"x%d","path":"."}`, i))}
		default:
			c = Call{Tool: "edit", Args: json.RawMessage(fmt.Sprintf(`{"path":"src/g%d.go","edits":[{"old":"a","new":"b"}]}`, i))}
		}
		c.Turn = i + 1
		d := g.Decide(c)
		g.Record(c, d, tool.Text(fmt.Sprintf("result %d\nok 0.%02ds", i, i)))
	}
	return g
}

// BenchmarkDecideRead measures the decision on a read call that every
// rule allows (the common case), with a full window.
func BenchmarkDecideRead(b *testing.B) {
	g := warmGuard(b)
	c := Call{Tool: "read", Args: json.RawMessage(`{"path":"internal/server/handler.go","offset":120,"limit":80}`)}
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for i := range b.N {
		c.Turn = 100 + i
		if d := g.Decide(c); d.Action != Allow {
			b.Fatalf("decision = %+v", d)
		}
	}
	reportCPU(b, start)
}

// BenchmarkDecideBash measures the decision on bash calls: "parse" with a
// new command every time (a full parse with mvdan.cc/sh), "repeat" with a
// command seen before (its classification is reused).
func BenchmarkDecideBash(b *testing.B) {
	cmds := make([]Call, 4096)
	for i := range cmds {
		cmds[i] = Call{Tool: "bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"cd /work/src && go test -run 'TestHandler%d' ./internal/... 2>&1 | tail -40"}`, i))}
	}
	b.Run("parse", func(b *testing.B) {
		g := warmGuard(b)
		b.ReportAllocs()
		b.ResetTimer()
		start := cpuTime()
		for i := range b.N {
			c := cmds[i%len(cmds)]
			c.Turn = 100 + i
			if d := g.Decide(c); d.Action != Allow {
				b.Fatalf("decision = %+v", d)
			}
		}
		reportCPU(b, start)
	})
	b.Run("repeat", func(b *testing.B) {
		g := warmGuard(b)
		c := cmds[0]
		b.ReportAllocs()
		b.ResetTimer()
		start := cpuTime()
		for i := range b.N {
			c.Turn = 100 + i
			if d := g.Decide(c); d.Action != Allow {
				b.Fatalf("decision = %+v", d)
			}
		}
		reportCPU(b, start)
	})
}

// BenchmarkDecideRecord measures a whole call's bookkeeping: Decide and
// Record of a read with a 4 KB result of Go source.
func BenchmarkDecideRecord(b *testing.B) {
	g := warmGuard(b)
	res := tool.Text(strings.Repeat("func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tlog.Printf(\"took %v\", time.Since(start))\n}\n", 40))
	calls := make([]Call, 64)
	for i := range calls {
		calls[i] = Call{Tool: "read", Args: json.RawMessage(fmt.Sprintf(`{"path":"pkg/file%d.go"}`, i))}
	}
	b.ReportAllocs()
	b.ReportMetric(float64(len(res.Text())), "result-bytes")
	b.ResetTimer()
	start := cpuTime()
	for i := range b.N {
		c := calls[i%len(calls)]
		c.Turn = 100 + i*10
		d := g.Decide(c)
		g.Record(c, d, res)
	}
	reportCPU(b, start)
}
