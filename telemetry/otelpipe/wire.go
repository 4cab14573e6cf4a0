package otelpipe

import (
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/telemetry"
)

// The stream between rein and rein-otel. rein writes one JSON object a
// line on the companion's standard input: first a Hello, then one Call
// per tracer call, in the order of the calls. The companion answers on
// its standard output with one Ready line, then Note lines (warnings)
// until it exits. When rein closes the stream the companion flushes its
// exporters within the export timeout and exits.

// Hello is the first line of the stream: what the companion needs to
// resolve the export settings as the in-process exporter would.
type Hello struct {
	// Env holds the OTEL_* variables rein's Getenv answers (EnvNames).
	Env     map[string]string    `json:"env,omitempty"`
	Config  telemetry.OTelConfig `json:"config"`
	Version string               `json:"version,omitempty"`
}

// EnvNames are the variables copied into Hello.Env. The companion also
// inherits rein's environment, where the exporters read the rest of
// the standard OTEL_* variables (headers, resource attributes).
var EnvNames = []string{
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
	"OTEL_METRICS_EXPORTER", "OTEL_SERVICE_NAME", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
}

// Ready is the companion's first line: an error (bad settings, no
// traces) or the settings rein must honour on its side.
type Ready struct {
	Error string `json:"error,omitempty"`
	// Capture says message content is recorded: rein then sends it,
	// redacted.
	Capture bool `json:"capture,omitempty"`
	// TimeoutMS is the export timeout, which bounds the wait at exit.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// Note is a later line of the companion: a warning for the user.
type Note struct {
	Warn string `json:"warn"`
}

// Operations of a Call.
const (
	OpRun        = "run"        // StartRun: Span, Parent, Record
	OpRunWarn    = "run.warn"   // RunSpan.Warn: Span, Warning
	OpRunEnd     = "run.end"    // RunSpan.End: Span, Record
	OpChat       = "chat"       // StartChat: Span, Parent, Chat
	OpFailover   = "chat.retry" // ChatSpan.Failover: Span, Failover
	OpFirstChunk = "chat.first" // ChatSpan.FirstChunk: Span
	OpChatEnd    = "chat.end"   // ChatSpan.End: Span, Message, Error
	OpTool       = "tool"       // StartTool: Span, Parent, Call
	OpToolEnd    = "tool.end"   // ToolSpan.End: Span, Result
	OpCompaction = "compaction" // Compaction: Span, Parent, Compaction, Start
)

// Call is one tracer call. T is when it happened (Unix nanoseconds): the
// companion stamps spans and events with it, not with the time it reads
// the line. Trace and Span are the ids rein gave the span (hex), Parent
// the id of its parent span in the same trace ("" for a root), Remote
// marks a parent from TRACEPARENT.
type Call struct {
	Op     string `json:"op"`
	T      int64  `json:"t"`
	Trace  string `json:"trace,omitempty"`
	Span   string `json:"span,omitempty"`
	Parent string `json:"parent,omitempty"`
	Remote bool   `json:"remote,omitempty"`

	Record     *telemetry.Record     `json:"record,omitempty"`
	Warning    *telemetry.Warning    `json:"warning,omitempty"`
	Chat       *Chat                 `json:"chat,omitempty"`
	Failover   *failover.Event       `json:"failover,omitempty"`
	Message    *llm.Message          `json:"message,omitempty"`
	Error      *Error                `json:"error,omitempty"`
	Tool       *llm.Content          `json:"tool,omitempty"`
	Result     *Result               `json:"result,omitempty"`
	Compaction *telemetry.Compaction `json:"compaction,omitempty"`
	Start      int64                 `json:"start,omitempty"`
}

// Chat is the part of a request a chat span records. System and
// Messages are sent only when content is captured, already redacted.
type Chat struct {
	Model       string        `json:"model"`
	Provider    string        `json:"provider,omitempty"`
	BaseURL     string        `json:"base_url,omitempty"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	System      string        `json:"system,omitempty"`
	Messages    []llm.Message `json:"messages,omitempty"`
}

// Error is a request's error: its code and text.
type Error struct {
	Code    llm.ErrorCode `json:"code"`
	Message string        `json:"message"`
}

// Result is the part of a tool result a tool span records; nil Result in
// a Call means the call never finished. Text is sent only when content
// is captured, already redacted.
type Result struct {
	IsError bool     `json:"is_error,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	Text    string   `json:"text,omitempty"`
}
