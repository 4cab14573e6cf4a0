package telemetry

import (
	"context"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
)

// listen counts the run's events. Listeners run on the run's goroutine,
// one event at a time.
func (r *Run) listen(ctx context.Context, e harness.Event) error {
	switch e.Type {
	case agent.EventAgentStart:
		r.mu.Lock()
		rec := r.rec
		r.mu.Unlock()
		r.t.write(&rec)
	case agent.EventTurnStart:
		r.mu.Lock()
		r.rec.Turns = max(r.rec.Turns, e.Turn)
		r.mu.Unlock()
	case agent.EventToolStart:
		if r.span == nil || e.Call == nil {
			return nil
		}
		s := r.t.o.Tracer.StartTool(r.ctx, e.Call)
		r.mu.Lock()
		if r.ended {
			r.mu.Unlock()
			s.End(nil)
			return nil
		}
		if r.tools == nil {
			r.tools = map[string]ToolSpan{}
		}
		r.tools[e.Call.ID] = s
		r.mu.Unlock()
	case agent.EventToolEnd:
		if e.Call == nil {
			return nil
		}
		r.mu.Lock()
		r.rec.ToolCalls++
		tc := r.rec.Tools[e.Call.Name]
		tc.Calls++
		failed := e.Result != nil && e.Result.IsError
		if failed {
			r.rec.ToolErrors++
			tc.Errors++
		}
		if r.rec.Tools == nil {
			r.rec.Tools = map[string]ToolCount{}
		}
		r.rec.Tools[e.Call.Name] = tc
		if e.Result != nil {
			r.notes(e.Result.Notes)
		}
		s := r.tools[e.Call.ID]
		delete(r.tools, e.Call.ID)
		r.mu.Unlock()
		if s != nil {
			s.End(e.Result)
		}
	case harness.EventAfterCompaction:
		if e.Compaction == nil {
			return nil
		}
		c := Compaction{Reason: e.Compaction.Reason, Before: e.Compaction.TokensBefore, After: e.Compaction.TokensAfter,
			DurationMS: e.Compaction.Duration.Milliseconds(), Model: e.Compaction.Model}
		r.mu.Lock()
		r.rec.Compactions = append(r.rec.Compactions, c)
		r.mu.Unlock()
		if r.span != nil {
			end := r.t.o.Clock()
			r.t.o.Tracer.Compaction(r.ctx, c, end.Add(-time.Duration(c.DurationMS)*time.Millisecond))
		}
	}
	return nil
}
