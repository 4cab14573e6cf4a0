package otelpipe

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tool"
)

// ref names a span: its trace and its own id, in hex.
type ref struct {
	trace, span string
	remote      bool
}

type ctxKey struct{}

// pipe implements telemetry.Tracer and telemetry.Propagator by queueing
// one line per call for the companion. Calls never block: a full queue
// drops the call (and one warning says so).
type pipe struct {
	lines   chan []byte
	flushed chan struct{}
	warn    func(string)
	redact  func(string) string
	capture bool
	parent  ref    // from TRACEPARENT; zero when none
	state   string // TRACESTATE passed on with TRACEPARENT

	mu     sync.Mutex
	closed bool
	warned sync.Once
}

func newPipe(w interface {
	Write([]byte) (int, error)
	Close() error
}, s telemetry.TraceSettings, r Ready, getenv func(string) string) *pipe {
	p := &pipe{lines: make(chan []byte, queue), flushed: make(chan struct{}), warn: s.Warn, redact: s.Redact, capture: r.Capture}
	if t, sp, ok := parseTraceparent(getenv("TRACEPARENT")); ok {
		p.parent = ref{trace: t, span: sp, remote: true}
		p.state = strings.TrimSpace(getenv("TRACESTATE"))
	}
	go p.writer(w)
	return p
}

// parseTraceparent reads a W3C traceparent of version 00.
func parseTraceparent(v string) (string, string, bool) {
	f := strings.Split(strings.TrimSpace(v), "-")
	if len(f) < 4 || len(f[0]) != 2 || f[0] == "ff" || len(f[1]) != 32 || len(f[2]) != 16 || len(f[3]) != 2 {
		return "", "", false
	}
	for _, x := range f[:4] {
		if _, err := hex.DecodeString(x); err != nil || strings.ToLower(x) != x {
			return "", "", false
		}
	}
	if f[1] == strings.Repeat("0", 32) || f[2] == strings.Repeat("0", 16) {
		return "", "", false
	}
	return f[1], f[2], true
}

func (p *pipe) warnOnce(msg string) {
	p.warned.Do(func() {
		if p.warn != nil {
			p.warn(msg)
		}
	})
}

// send queues c; it never blocks.
func (p *pipe) send(c *Call) {
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	b = append(b, '\n')
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	select {
	case p.lines <- b:
	default:
		p.warnOnce(fmt.Sprintf("warning: %s falls behind or stopped; some spans are dropped so that the run is not slowed", Companion))
	}
}

// close ends the stream once the queued calls are written.
func (p *pipe) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.lines)
	}
	p.mu.Unlock()
	<-p.flushed
}

func newID(n int) string {
	b := make([]byte, 0, 16)
	for len(b) < n {
		var w [8]byte
		for i, x := 0, rand.Uint64(); i < 8; i++ {
			w[i] = byte(x >> (8 * i))
		}
		b = append(b, w[:]...)
	}
	return hex.EncodeToString(b[:n])
}

// child makes the ids of a new span under the span ctx carries, else
// under TRACEPARENT, else of a new trace; it fills c and returns the new
// span's ref.
func (p *pipe) child(ctx context.Context, c *Call) ref {
	parent, ok := ctx.Value(ctxKey{}).(ref)
	if !ok {
		parent = p.parent
	}
	r := ref{trace: parent.trace, span: newID(8)}
	if r.trace == "" {
		r.trace = newID(16)
	}
	c.Trace, c.Span, c.Parent, c.Remote = r.trace, r.span, parent.span, parent.remote
	return r
}

func now() int64 { return time.Now().UnixNano() }

// TraceContext names the span ctx carries in W3C trace-context form.
func (p *pipe) TraceContext(ctx context.Context) (string, string) {
	r, ok := ctx.Value(ctxKey{}).(ref)
	if !ok {
		return "", ""
	}
	return "00-" + r.trace + "-" + r.span + "-01", p.state
}

// Traceparent returns the W3C traceparent of the span ctx carries.
func (p *pipe) Traceparent(ctx context.Context) string {
	tp, _ := p.TraceContext(ctx)
	return tp
}

func (p *pipe) StartRun(ctx context.Context, r *telemetry.Run) (context.Context, telemetry.RunSpan) {
	rec := r.Snapshot()
	c := &Call{Op: OpRun, T: now(), Record: &rec}
	ref := p.child(ctx, c)
	p.send(c)
	return context.WithValue(ctx, ctxKey{}, ref), runSpan{span{p: p, ref: ref}}
}

func (p *pipe) StartChat(ctx context.Context, req *llm.Request) (context.Context, telemetry.ChatSpan) {
	ch := &Chat{Model: req.Model.ID, Provider: req.Model.Provider, BaseURL: req.Model.BaseURL, MaxTokens: req.MaxTokens, Temperature: req.Temperature}
	if p.capture {
		ch.System = p.text(llm.SystemText(req.System))
		ch.Messages = p.messages(req.Messages)
	}
	c := &Call{Op: OpChat, T: now(), Chat: ch}
	ref := p.child(ctx, c)
	p.send(c)
	return context.WithValue(ctx, ctxKey{}, ref), chatSpan{span{p: p, ref: ref}}
}

func (p *pipe) StartTool(ctx context.Context, call *llm.Content) telemetry.ToolSpan {
	tc := &llm.Content{Type: call.Type, ID: call.ID, Name: call.Name}
	if p.capture {
		tc.Arguments = p.args(call.Arguments)
	}
	c := &Call{Op: OpTool, T: now(), Tool: tc}
	ref := p.child(ctx, c)
	p.send(c)
	return toolSpan{span{p: p, ref: ref}}
}

func (p *pipe) Compaction(ctx context.Context, cm telemetry.Compaction, start time.Time) {
	c := &Call{Op: OpCompaction, T: now(), Compaction: &cm, Start: start.UnixNano()}
	p.child(ctx, c)
	p.send(c)
}

// span is a started span of any kind.
type span struct {
	p   *pipe
	ref ref
}

func (s span) call(op string) *Call {
	return &Call{Op: op, T: now(), Trace: s.ref.trace, Span: s.ref.span}
}

type runSpan struct{ span }

func (s runSpan) Warn(w telemetry.Warning) {
	c := s.call(OpRunWarn)
	c.Warning = &w
	s.p.send(c)
}

func (s runSpan) End(rec *telemetry.Record) {
	c := s.call(OpRunEnd)
	c.Record = rec
	s.p.send(c)
}

type chatSpan struct{ span }

func (s chatSpan) Failover(e failover.Event) {
	c := s.call(OpFailover)
	c.Failover = &e
	s.p.send(c)
}

// FirstChunk is stamped with the time of the call, as every call is.
func (s chatSpan) FirstChunk(time.Time) { s.p.send(s.call(OpFirstChunk)) }

func (s chatSpan) End(m *llm.Message, err error) {
	c := s.call(OpChatEnd)
	if m != nil {
		mm := *m
		if s.p.capture {
			mm.Content = s.p.contents(m.Content)
		} else {
			mm.Content = nil
		}
		c.Message = &mm
	}
	if err != nil {
		c.Error = &Error{Code: llm.CodeOf(err), Message: err.Error()}
	}
	s.p.send(c)
}

type toolSpan struct{ span }

func (s toolSpan) End(res *tool.Result) {
	c := s.call(OpToolEnd)
	if res != nil {
		c.Result = &Result{IsError: res.IsError, Notes: res.Notes}
		if s.p.capture {
			var b strings.Builder
			for _, x := range res.Content {
				b.WriteString(x.Text)
			}
			c.Result.Text = s.p.text(b.String())
		}
	}
	s.p.send(c)
}
