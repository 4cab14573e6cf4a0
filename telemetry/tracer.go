package telemetry

import (
	"context"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/tool"
)

// Tracer turns the steps of runs into spans. Package telemetry/otel
// implements it over OpenTelemetry; a nil Tracer in Options costs
// nothing. Implementations must be safe for concurrent use and must not
// block: they are called on the run's goroutine.
type Tracer interface {
	// StartRun starts the span of a run (invoke_agent). The context it
	// returns carries the span to the run's requests and tools, and to
	// runs begun inside it.
	StartRun(ctx context.Context, r *Run) (context.Context, RunSpan)
	// StartChat starts the span of one provider request (chat {model});
	// failover decisions and the first chunk are reported on it.
	StartChat(ctx context.Context, req *llm.Request) (context.Context, ChatSpan)
	// StartTool starts the span of one tool call (execute_tool {tool}).
	StartTool(ctx context.Context, call *llm.Content) ToolSpan
	// Compaction reports a compaction of the run that started at start.
	Compaction(ctx context.Context, c Compaction, start time.Time)
}

// RunSpan is the span of a run.
type RunSpan interface {
	// Warn reports a budget warning.
	Warn(w Warning)
	// End ends the span with the run's record.
	End(rec *Record)
}

// ChatSpan is the span of one provider request.
type ChatSpan interface {
	// Failover reports a retry, rotation, cooldown or fallback.
	Failover(e failover.Event)
	// FirstChunk reports the first content of the reply.
	FirstChunk(at time.Time)
	// End ends the span with the final message (nil when the stream
	// ended without one) and the stream's error.
	End(m *llm.Message, err error)
}

// ToolSpan is the span of one tool call.
type ToolSpan interface {
	// End ends the span with the call's result (after every middleware:
	// guard and permission decisions are among its Notes).
	End(res *tool.Result)
}

// Propagator is a Tracer that can name the span a context carries in W3C
// trace-context form, so that programs rein starts (hooks) and servers
// it calls (MCP) continue the trace.
type Propagator interface {
	// TraceContext returns the traceparent (and tracestate, "" when none)
	// of the span in ctx; "" when ctx carries none.
	TraceContext(ctx context.Context) (traceparent, tracestate string)
}

// TraceContext returns the W3C trace context of the run ctx carries: its
// span, or the span of the request or tool inside it. It returns "" when
// no run is traced or its tracer cannot propagate.
func TraceContext(ctx context.Context) (traceparent, tracestate string) {
	r := RunFrom(ctx)
	if r == nil {
		return "", ""
	}
	p, ok := r.t.o.Tracer.(Propagator)
	if !ok {
		return "", ""
	}
	return p.TraceContext(ctx)
}
