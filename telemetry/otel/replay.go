package otel

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/telemetry/otelpipe"
	"github.com/reinhq/rein/tool"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Replay is the body of the companion program rein-otel. It reads the
// stream package otelpipe writes (a Hello line, then one Call a line),
// answers with a Ready line, and replays each call on a tracer made by
// Setup's own code, with the SDK and OTLP exporters: spans and events
// carry the times of the calls, and the span and trace ids rein made.
// Warnings go to out as Note lines. At the end of in it flushes the
// exporters within the export timeout and returns. A malformed line is
// skipped with one warning; a call on an unknown span is ignored.
func Replay(ctx context.Context, in io.Reader, out io.Writer) error {
	var mu sync.Mutex
	enc := json.NewEncoder(out)
	write := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(v)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	if !sc.Scan() {
		return fmt.Errorf("no hello line on standard input: %v", sc.Err())
	}
	var hello otelpipe.Hello
	if err := json.Unmarshal(sc.Bytes(), &hello); err != nil {
		write(otelpipe.Ready{Error: "rein-otel: bad hello line: " + err.Error()})
		return err
	}
	s := telemetry.TraceSettings{Config: hello.Config, Version: hello.Version,
		Getenv: func(k string) string { return hello.Env[k] },
		Warn:   func(w string) { write(otelpipe.Note{Warn: w}) }}
	ids := &fedIDs{}
	t, stop, err := setup(ctx, s, sdktraceIDs(ids))
	if err != nil {
		write(otelpipe.Ready{Error: err.Error()})
		return err
	}
	write(otelpipe.Ready{Capture: t.set.capture, TimeoutMS: t.set.timeout.Milliseconds()})
	r := &replayer{t: t, ids: ids, spans: map[string]any{}}
	t.now = func() time.Time { return r.at }
	bad := false
	for sc.Scan() {
		var c otelpipe.Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			if !bad {
				bad = true
				s.Warn("warning: rein-otel skipped a malformed line of the trace stream: " + err.Error())
			}
			continue
		}
		r.apply(&c)
	}
	if err := sc.Err(); err != nil {
		s.Warn("warning: rein-otel: reading the trace stream: " + err.Error())
	}
	if err := stop(context.WithoutCancel(ctx)); err != nil {
		return &ExportError{Err: err}
	}
	return nil
}

// ExportError is Replay's error when the flush at the end failed: that
// failure was already sent as a warning. rein-otel exits with
// ExitExportFailed for it, so that rein does not warn twice.
type ExportError struct{ Err error }

func (e *ExportError) Error() string { return "export failed: " + e.Err.Error() }
func (e *ExportError) Unwrap() error { return e.Err }

// ExitExportFailed is rein-otel's exit code after an ExportError.
const ExitExportFailed = 3

// fedIDs is an sdktrace.IDGenerator that hands out the ids read from the
// stream for the span being started.
type fedIDs struct {
	mu    sync.Mutex
	trace trace.TraceID
	span  trace.SpanID
}

func (g *fedIDs) set(t trace.TraceID, s trace.SpanID) {
	g.mu.Lock()
	g.trace, g.span = t, s
	g.mu.Unlock()
}

func (g *fedIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.trace, g.span
}

func (g *fedIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.span
}

// replayer holds the open spans by id. It runs on one goroutine.
type replayer struct {
	t     *tracer
	ids   *fedIDs
	at    time.Time
	spans map[string]any
}

// start prepares the ids of the span c starts and returns the context
// of its parent.
func (r *replayer) start(c *otelpipe.Call) (context.Context, bool) {
	var tid trace.TraceID
	var sid, pid trace.SpanID
	if b, err := hex.DecodeString(c.Trace); err != nil || len(b) != len(tid) {
		return nil, false
	} else {
		copy(tid[:], b)
	}
	if b, err := hex.DecodeString(c.Span); err != nil || len(b) != len(sid) {
		return nil, false
	} else {
		copy(sid[:], b)
	}
	r.ids.set(tid, sid)
	ctx := context.Background()
	if c.Parent == "" {
		return ctx, true
	}
	if b, err := hex.DecodeString(c.Parent); err != nil || len(b) != len(pid) {
		return nil, false
	} else {
		copy(pid[:], b)
	}
	psc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: pid, TraceFlags: trace.FlagsSampled, Remote: c.Remote})
	return trace.ContextWithSpanContext(ctx, psc), true
}

func (r *replayer) apply(c *otelpipe.Call) {
	r.at = time.Unix(0, c.T)
	switch c.Op {
	case otelpipe.OpRun, otelpipe.OpChat, otelpipe.OpTool, otelpipe.OpCompaction:
		ctx, ok := r.start(c)
		if !ok {
			return
		}
		switch {
		case c.Op == otelpipe.OpRun && c.Record != nil:
			_, s := r.t.startRun(ctx, *c.Record)
			r.spans[c.Span] = s
		case c.Op == otelpipe.OpChat && c.Chat != nil:
			ch := c.Chat
			req := &llm.Request{Model: llm.Model{ID: ch.Model, Provider: ch.Provider, BaseURL: ch.BaseURL},
				MaxTokens: ch.MaxTokens, Temperature: ch.Temperature, Messages: ch.Messages}
			if ch.System != "" {
				req.System = []llm.SystemPart{{Text: ch.System}}
			}
			_, s := r.t.StartChat(ctx, req)
			r.spans[c.Span] = s
		case c.Op == otelpipe.OpTool && c.Tool != nil:
			r.spans[c.Span] = r.t.StartTool(ctx, c.Tool)
		case c.Op == otelpipe.OpCompaction && c.Compaction != nil:
			r.t.Compaction(ctx, *c.Compaction, time.Unix(0, c.Start))
		}
		return
	}
	s := r.spans[c.Span]
	switch c.Op {
	case otelpipe.OpRunWarn:
		if s, ok := s.(telemetry.RunSpan); ok && c.Warning != nil {
			s.Warn(*c.Warning)
		}
	case otelpipe.OpRunEnd:
		if s, ok := s.(telemetry.RunSpan); ok && c.Record != nil {
			s.End(c.Record)
			delete(r.spans, c.Span)
		}
	case otelpipe.OpFailover:
		if s, ok := s.(telemetry.ChatSpan); ok && c.Failover != nil {
			s.Failover(*c.Failover)
		}
	case otelpipe.OpFirstChunk:
		if s, ok := s.(telemetry.ChatSpan); ok {
			s.FirstChunk(r.at)
		}
	case otelpipe.OpChatEnd:
		if s, ok := s.(telemetry.ChatSpan); ok {
			var err error
			if c.Error != nil {
				err = &llm.Error{Code: c.Error.Code, Message: c.Error.Message}
			}
			s.End(c.Message, err)
			delete(r.spans, c.Span)
		}
	case otelpipe.OpToolEnd:
		if s, ok := s.(telemetry.ToolSpan); ok {
			var res *tool.Result
			if c.Result != nil {
				res = &tool.Result{IsError: c.Result.IsError, Notes: c.Result.Notes}
				if c.Result.Text != "" {
					res.Content = []llm.Content{{Type: llm.ContentText, Text: c.Result.Text}}
				}
			}
			s.End(res)
			delete(r.spans, c.Span)
		}
	}
}

func sdktraceIDs(g *fedIDs) sdktrace.TracerProviderOption { return sdktrace.WithIDGenerator(g) }
