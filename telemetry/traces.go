package telemetry

import (
	"context"
	"strings"
)

// TraceSettings is what a TraceSetup gets to start a tracer.
type TraceSettings struct {
	// Config is the otel section of telemetry.json.
	Config OTelConfig
	// Getenv reads OTEL_* variables and TRACEPARENT; nil means none.
	Getenv func(string) string
	// Redact masks secrets in message content before it is recorded.
	Redact func(string) string
	// Warn receives the one warning about an export failure, and notes.
	Warn func(string)
	// Version is rein's version (service.version).
	Version string
}

// TraceSetup starts a tracer: package telemetry/otel's Setup is one. It
// returns the tracer and the function that flushes and stops it, bounded
// by the export timeout; an error means no traces, and is for the user.
type TraceSetup func(ctx context.Context, s TraceSettings) (Tracer, func(context.Context) error, error)

// TracesWanted reports whether the environment or the config asks for
// traces: OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn them
// off; OTEL_TRACES_EXPORTER=otlp, an OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or "enabled" in the config turn
// them on. It reads variables only, so that rein links but never starts
// an exporter when traces are off.
func TracesWanted(getenv func(string) string, cfg OTelConfig) bool {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || cfg.Enabled
}

// Traceparent returns the W3C traceparent of the span ctx carries, when
// the run's tracer can tell it, for the environment of commands a run
// starts (hooks). "" without a tracer or a span.
func Traceparent(ctx context.Context) string {
	r := RunFrom(ctx)
	if r == nil || r.t.o.Tracer == nil {
		return ""
	}
	if p, ok := r.t.o.Tracer.(interface {
		Traceparent(ctx context.Context) string
	}); ok {
		return p.Traceparent(ctx)
	}
	return ""
}
