package otel

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of rein's own, beside the GenAI conventions.
const (
	KeyRunID        = attribute.Key("rein.run.id")
	KeyRunParent    = attribute.Key("rein.run.parent")
	KeyTrigger      = attribute.Key("rein.run.trigger")
	KeyFrontend     = attribute.Key("rein.run.frontend")
	KeyDepth        = attribute.Key("rein.run.depth")
	KeyOutcome      = attribute.Key("rein.run.outcome")
	KeyStop         = attribute.Key("rein.run.stop")
	KeyTurns        = attribute.Key("rein.run.turns")
	KeyToolCalls    = attribute.Key("rein.run.tool_calls")
	KeyToolErrors   = attribute.Key("rein.run.tool_errors")
	KeyCost         = attribute.Key("rein.cost.usd")
	KeyChildCost    = attribute.Key("rein.cost.children_usd")
	KeyProfile      = attribute.Key("rein.failover.profile")
	KeyFailoverKind = attribute.Key("rein.failover.kind")
	KeyReason       = attribute.Key("rein.failover.reason")
	KeyAttempt      = attribute.Key("rein.failover.attempt")
	KeyDelay        = attribute.Key("rein.failover.delay_ms")
	KeyFrom         = attribute.Key("rein.failover.from")
	KeyDecision     = attribute.Key("rein.decision")
	KeyCompReason   = attribute.Key("rein.compaction.reason")
	KeyCompBefore   = attribute.Key("rein.compaction.tokens_before")
	KeyCompAfter    = attribute.Key("rein.compaction.tokens_after")
	KeyCompModel    = attribute.Key("rein.compaction.model")
	KeyBudgetLimit  = attribute.Key("rein.budget.limit")
	KeyBudgetSpent  = attribute.Key("rein.budget.spent")
	KeyBudgetMax    = attribute.Key("rein.budget.max")
	// KeyReasoningTokens is the GenAI conventions' name, newer than the
	// semconv package pinned here, for the part of the output tokens spent
	// reasoning; set only when the provider reports it.
	KeyReasoningTokens = attribute.Key("gen_ai.usage.reasoning.output_tokens")
)

// Span and event names.
const (
	SpanCompaction     = "compaction"
	EventFailover      = "rein.failover"
	EventGuard         = "rein.guard"
	EventPermission    = "rein.permission"
	EventBudgetWarning = "rein.budget.warning"
	EventFirstChunk    = "gen_ai.first_chunk"
)

// tracer implements telemetry.Tracer over an SDK tracer provider.
type tracer struct {
	t      trace.Tracer
	parent context.Context // TRACEPARENT of the process, if any
	// now is the clock of span and event timestamps: time.Now in
	// process, the recorded time of each call when replaying a stream.
	now    func() time.Time
	set    settings
	redact func(string) string

	tokens   genaiconv.ClientTokenUsage
	duration genaiconv.ClientOperationDuration
	ttfc     genaiconv.ClientOperationTimeToFirstChunk
}

func newTracer(tp *sdktrace.TracerProvider, mp *sdkmetric.MeterProvider, set settings, s telemetry.TraceSettings) *tracer {
	const scope = "github.com/reinhq/rein/telemetry/otel"
	t := &tracer{t: tp.Tracer(scope, trace.WithInstrumentationVersion(s.Version), trace.WithSchemaURL(semconv.SchemaURL)),
		set: set, redact: s.Redact, parent: context.Background(), now: time.Now}
	var m metric.Meter
	if mp != nil {
		m = mp.Meter(scope)
	}
	t.tokens, _ = genaiconv.NewClientTokenUsage(m)
	t.duration, _ = genaiconv.NewClientOperationDuration(m)
	t.ttfc, _ = genaiconv.NewClientOperationTimeToFirstChunk(m)
	return t
}

// Traceparent returns the W3C traceparent of the span in ctx.
func (t *tracer) Traceparent(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}

// start returns ctx, with the process's TRACEPARENT as parent when ctx
// holds no span.
func (t *tracer) start(ctx context.Context) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	if sc := trace.SpanContextFromContext(t.parent); sc.IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}

// TraceContext names the span ctx carries in W3C trace-context form.
func (t *tracer) TraceContext(ctx context.Context) (string, string) {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"], c["tracestate"]
}

// providerName maps rein's provider names to the conventions' values.
func providerName(p string) string {
	switch p {
	case "gemini", "google":
		return string(genaiconv.ProviderNameGCPGemini)
	case "":
		return "unknown"
	}
	return p
}

func (t *tracer) StartRun(ctx context.Context, r *telemetry.Run) (context.Context, telemetry.RunSpan) {
	return t.startRun(ctx, r.Snapshot())
}

func (t *tracer) startRun(ctx context.Context, rec telemetry.Record) (context.Context, telemetry.RunSpan) {
	name := "invoke_agent"
	if rec.Agent != "" {
		name += " " + rec.Agent
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentID(rec.ID),
		semconv.GenAIProviderNameKey.String(providerName(rec.Provider)),
		semconv.GenAIRequestModel(rec.Model),
		KeyRunID.String(rec.ID), KeyTrigger.String(string(rec.Trigger)), KeyFrontend.String(rec.Frontend), KeyDepth.Int(rec.Depth),
	}
	if rec.Agent != "" {
		attrs = append(attrs, semconv.GenAIAgentName(rec.Agent))
	}
	if rec.Session != "" {
		attrs = append(attrs, semconv.GenAIConversationID(rec.Session))
	}
	if rec.Parent != "" {
		attrs = append(attrs, KeyRunParent.String(rec.Parent))
	}
	ctx, span := t.t.Start(t.start(ctx), name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...), trace.WithTimestamp(t.now()))
	return ctx, &runSpan{t: t, span: span}
}

type runSpan struct {
	t    *tracer
	span trace.Span
}

func (s *runSpan) Warn(w telemetry.Warning) {
	s.span.AddEvent(EventBudgetWarning, trace.WithAttributes(KeyBudgetLimit.String(w.Limit), KeyBudgetSpent.Float64(w.Spent), KeyBudgetMax.Float64(w.Max)), trace.WithTimestamp(s.t.now()))
}

func (s *runSpan) End(rec *telemetry.Record) {
	u := rec.Usage
	s.span.SetAttributes(
		semconv.GenAIResponseModel(rec.Model),
		semconv.GenAIUsageInputTokens(u.Prompt()), semconv.GenAIUsageOutputTokens(u.Output),
		semconv.GenAIUsageCacheReadInputTokens(u.CacheRead), semconv.GenAIUsageCacheCreationInputTokens(u.CacheWrite),
		KeyOutcome.String(string(rec.Outcome)), KeyStop.String(rec.Stop), KeyTurns.Int(rec.Turns),
		KeyToolCalls.Int(rec.ToolCalls), KeyToolErrors.Int(rec.ToolErrors), KeyCost.Float64(rec.Cost))
	if u.Reasoning > 0 {
		s.span.SetAttributes(KeyReasoningTokens.Int(u.Reasoning))
	}
	if rec.ChildCost > 0 {
		s.span.SetAttributes(KeyChildCost.Float64(rec.ChildCost))
	}
	if rec.Profile != "" {
		s.span.SetAttributes(KeyProfile.String(rec.Profile))
	}
	switch rec.Outcome {
	case telemetry.OutcomeCompleted, telemetry.OutcomeInterrupted:
	default:
		s.span.SetAttributes(semconv.ErrorTypeKey.String(string(rec.Outcome)))
		s.span.SetStatus(codes.Error, rec.Detail)
	}
	s.span.End(trace.WithTimestamp(s.t.now()))
}

func (t *tracer) StartChat(ctx context.Context, req *llm.Request) (context.Context, telemetry.ChatSpan) {
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		semconv.GenAIProviderNameKey.String(providerName(req.Model.Provider)),
		semconv.GenAIRequestModel(req.Model.ID),
	}
	if req.MaxTokens > 0 {
		attrs = append(attrs, semconv.GenAIRequestMaxTokens(req.MaxTokens))
	}
	if req.Temperature != nil {
		attrs = append(attrs, semconv.GenAIRequestTemperature(*req.Temperature))
	}
	host, port := serverOf(req.Model.BaseURL)
	if host != "" {
		attrs = append(attrs, semconv.ServerAddress(host))
		if port > 0 {
			attrs = append(attrs, semconv.ServerPort(port))
		}
	}
	if t.set.capture {
		attrs = append(attrs, semconv.GenAISystemInstructionsKey.String(t.content(llm.SystemText(req.System))),
			semconv.GenAIInputMessagesKey.String(t.contentJSON(req.Messages)))
	}
	now := t.now()
	ctx, span := t.t.Start(t.start(ctx), "chat "+req.Model.ID, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...), trace.WithTimestamp(now))
	return ctx, &chatSpan{t: t, ctx: ctx, span: span, start: now, provider: providerName(req.Model.Provider), model: req.Model.ID, host: host, port: port}
}

func serverOf(base string) (string, int) {
	if base == "" {
		return "", 0
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", 0
	}
	port, _ := strconv.Atoi(u.Port())
	return u.Hostname(), port
}

type chatSpan struct {
	t               *tracer
	ctx             context.Context
	span            trace.Span
	start           time.Time
	first           time.Duration
	provider, model string
	host            string
	port            int
}

func (s *chatSpan) Failover(e failover.Event) {
	attrs := []attribute.KeyValue{KeyFailoverKind.String(string(e.Kind)), semconv.GenAIProviderNameKey.String(providerName(e.Provider)),
		semconv.GenAIRequestModel(e.Model), KeyProfile.String(e.Profile)}
	if e.Reason != "" {
		attrs = append(attrs, KeyReason.String(string(e.Reason)))
	}
	if e.Attempt > 0 {
		attrs = append(attrs, KeyAttempt.Int(e.Attempt))
	}
	if e.Delay > 0 {
		attrs = append(attrs, KeyDelay.Int64(e.Delay.Milliseconds()))
	}
	if e.From != "" {
		attrs = append(attrs, KeyFrom.String(e.From))
	}
	s.span.AddEvent(EventFailover, trace.WithAttributes(attrs...), trace.WithTimestamp(s.t.now()))
}

func (s *chatSpan) FirstChunk(at time.Time) {
	now := s.t.now()
	s.first = now.Sub(s.start)
	s.span.AddEvent(EventFirstChunk, trace.WithTimestamp(now))
}

func (s *chatSpan) End(m *llm.Message, err error) {
	op := genaiconv.OperationNameAttr("chat")
	prov := genaiconv.ProviderNameAttr(s.provider)
	extra := []attribute.KeyValue{s.t.duration.AttrRequestModel(s.model)}
	if s.host != "" {
		extra = append(extra, s.t.duration.AttrServerAddress(s.host))
	}
	if m != nil {
		if m.Model != "" {
			s.span.SetAttributes(semconv.GenAIResponseModel(m.Model))
			extra = append(extra, s.t.duration.AttrResponseModel(m.Model))
		}
		if m.ResponseID != "" {
			s.span.SetAttributes(semconv.GenAIResponseID(m.ResponseID))
		}
		if m.StopReason != "" {
			s.span.SetAttributes(semconv.GenAIResponseFinishReasons(string(m.StopReason)))
		}
		if u := m.Usage; u != nil {
			s.span.SetAttributes(semconv.GenAIUsageInputTokens(u.PromptTokens()), semconv.GenAIUsageOutputTokens(u.Output),
				semconv.GenAIUsageCacheReadInputTokens(u.CacheRead), semconv.GenAIUsageCacheCreationInputTokens(u.CacheWrite),
				KeyCost.Float64(u.Cost.Total))
			if u.Reasoning > 0 {
				s.span.SetAttributes(KeyReasoningTokens.Int(u.Reasoning))
			}
			s.t.tokens.Record(s.ctx, int64(u.PromptTokens()), op, prov, genaiconv.TokenTypeInput, extra...)
			s.t.tokens.Record(s.ctx, int64(u.Output), op, prov, genaiconv.TokenTypeOutput, extra...)
		}
		if s.t.set.capture && err == nil {
			s.span.SetAttributes(semconv.GenAIOutputMessagesKey.String(s.t.contentJSON([]llm.Message{*m})))
		}
	}
	if s.first > 0 {
		s.span.SetAttributes(semconv.GenAIResponseTimeToFirstChunk(s.first.Seconds()))
		s.t.ttfc.Record(s.ctx, s.first.Seconds(), op, prov, extra...)
	}
	if err != nil {
		code := string(llm.CodeOf(err))
		s.span.SetAttributes(semconv.ErrorTypeKey.String(code))
		s.span.SetStatus(codes.Error, err.Error())
		extra = append(extra, s.t.duration.AttrErrorType(genaiconv.ErrorTypeAttr(code)))
	}
	s.t.duration.Record(s.ctx, s.t.now().Sub(s.start).Seconds(), op, prov, extra...)
	s.span.End(trace.WithTimestamp(s.t.now()))
}

func (t *tracer) StartTool(ctx context.Context, call *llm.Content) telemetry.ToolSpan {
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(call.Name),
		semconv.GenAIToolCallID(call.ID), semconv.GenAIToolTypeKey.String("function")}
	if t.set.capture {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(t.content(string(call.Arguments))))
	}
	_, span := t.t.Start(t.start(ctx), "execute_tool "+call.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...), trace.WithTimestamp(t.now()))
	return &toolSpan{t: t, span: span}
}

type toolSpan struct {
	t    *tracer
	span trace.Span
}

func (s *toolSpan) End(res *tool.Result) {
	if res != nil {
		for _, n := range res.Notes {
			switch {
			case strings.HasPrefix(n, "guard:"):
				s.span.AddEvent(EventGuard, trace.WithAttributes(KeyDecision.String(strings.TrimPrefix(n, "guard:"))), trace.WithTimestamp(s.t.now()))
			case strings.HasPrefix(n, "permission:"):
				s.span.AddEvent(EventPermission, trace.WithAttributes(KeyDecision.String(strings.TrimPrefix(n, "permission:"))), trace.WithTimestamp(s.t.now()))
			}
		}
		if res.IsError {
			s.span.SetAttributes(semconv.ErrorTypeKey.String("tool_error"))
			s.span.SetStatus(codes.Error, "the tool call failed")
		}
		if s.t.set.capture {
			var b strings.Builder
			for _, c := range res.Content {
				b.WriteString(c.Text)
			}
			s.span.SetAttributes(semconv.GenAIToolCallResultKey.String(s.t.content(b.String())))
		}
	} else {
		s.span.SetAttributes(semconv.ErrorTypeKey.String("unfinished"))
	}
	s.span.End(trace.WithTimestamp(s.t.now()))
}

func (t *tracer) Compaction(ctx context.Context, c telemetry.Compaction, start time.Time) {
	_, span := t.t.Start(t.start(ctx), SpanCompaction, trace.WithTimestamp(start), trace.WithAttributes(
		KeyCompReason.String(c.Reason), KeyCompBefore.Int(c.Before), KeyCompAfter.Int(c.After), KeyCompModel.String(c.Model)))
	span.End(trace.WithTimestamp(start.Add(time.Duration(c.DurationMS) * time.Millisecond)))
}

// content redacts s and cuts it to the size cap, on a rune boundary.
func (t *tracer) content(s string) string {
	if t.redact != nil {
		s = t.redact(s)
	}
	if len(s) <= t.set.maxContent {
		return s
	}
	cut := t.set.maxContent
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[cut]"
}

// contentJSON renders messages as the conventions' JSON (role and parts),
// redacted and capped.
func (t *tracer) contentJSON(msgs []llm.Message) string {
	type part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	out := make([]message, 0, len(msgs))
	for _, m := range msgs {
		role := string(m.Role)
		if m.Role == llm.RoleToolResult {
			role = "tool"
		}
		msg := message{Role: role}
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentText:
				msg.Parts = append(msg.Parts, part{Type: "text", Content: c.Text})
			case llm.ContentThinking:
				msg.Parts = append(msg.Parts, part{Type: "reasoning", Content: c.Text})
			case llm.ContentToolCall:
				msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
		}
		if m.Role == llm.RoleToolResult {
			msg.Parts = []part{{Type: "tool_call_response", ID: m.ToolCallID, Content: m.Text()}}
		}
		out = append(out, msg)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ""
	}
	return t.content(string(b))
}
