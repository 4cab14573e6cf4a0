// Package otel exports rein's runs as OpenTelemetry GenAI traces and
// metrics over OTLP/HTTP (http/protobuf), with OpenTelemetry's own SDK
// and exporters. Setup is a telemetry.TraceSetup: the coding agent calls
// it only when telemetry.TracesWanted says the environment or the config
// asks for traces, so that nothing of it runs otherwise.
//
// Spans follow the GenAI semantic conventions (semconv v1.41.0):
// invoke_agent per run, chat {model} per provider request (retries and
// fallbacks as events), execute_tool {tool} per tool call (guard and
// permission decisions as events) and compaction per compaction. Metrics
// are gen_ai.client.token.usage, gen_ai.client.operation.duration and
// gen_ai.client.operation.time_to_first_chunk. See docs/observability.md.
package otel

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/telemetry"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// DefaultEndpoint is the OTLP/HTTP endpoint used when none is set.
const DefaultEndpoint = "http://localhost:4318"

// DefaultTimeout bounds one export, and the flush at exit, when
// OTEL_EXPORTER_OTLP_TIMEOUT does not say otherwise.
const DefaultTimeout = 10 * time.Second

// DefaultContentMaxBytes caps each recorded message content.
const DefaultContentMaxBytes = 16 << 10

// settings are the resolved export settings.
type settings struct {
	traces, metrics string // endpoint URLs; metrics "" = no metrics
	timeout         time.Duration
	headers         map[string]string
	service         string
	capture         bool
	maxContent      int
}

// resolve reads the OTEL_* variables over the config. A protocol other
// than http/protobuf or a malformed endpoint or timeout is an error.
func resolve(s telemetry.TraceSettings) (settings, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	first := func(names ...string) (string, string) {
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return n, v
			}
		}
		return "", ""
	}
	c := s.Config
	var out settings
	name, proto := first("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	if proto == "" {
		name, proto = "the otel protocol in telemetry.json", c.Protocol
	}
	if proto != "" && proto != "http/protobuf" {
		return out, fmt.Errorf("%s is %q: rein exports OTLP over http/protobuf only (a collector's port 4318); set it to http/protobuf", name, proto)
	}
	base := c.Endpoint
	if _, v := first("OTEL_EXPORTER_OTLP_ENDPOINT"); v != "" {
		base = v
	}
	if base == "" {
		base = DefaultEndpoint
	}
	traces := strings.TrimRight(base, "/") + "/v1/traces"
	if _, v := first("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); v != "" {
		traces = v
	}
	metrics := strings.TrimRight(base, "/") + "/v1/metrics"
	if _, v := first("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"); v != "" {
		metrics = v
	}
	for _, u := range []string{traces, metrics} {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return out, fmt.Errorf("OTLP endpoint %q is not an http:// or https:// URL with a host (e.g. http://127.0.0.1:4318)", u)
		}
	}
	out.traces, out.metrics = traces, metrics
	if strings.EqualFold(getenv("OTEL_METRICS_EXPORTER"), "none") {
		out.metrics = ""
	}
	out.timeout = DefaultTimeout
	if n, v := first("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return out, fmt.Errorf("%s=%q: give the export timeout in milliseconds, such as 5000", n, v)
		}
		out.timeout = time.Duration(ms) * time.Millisecond
	}
	out.headers = c.Headers
	out.service = c.ServiceName
	if _, v := first("OTEL_SERVICE_NAME"); v != "" {
		out.service = v
	}
	if out.service == "" {
		out.service = "rein"
	}
	out.capture = c.CaptureContent || strings.EqualFold(getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), "true")
	out.maxContent = c.ContentMaxBytes
	if out.maxContent <= 0 {
		out.maxContent = DefaultContentMaxBytes
	}
	return out, nil
}

// silent is installed as OpenTelemetry's global error handler so that the
// SDK does not log a line on every failed export. Failures reach the user
// through the exporter wrappers of each Setup (spanExporter,
// metricExporter), once: the global handler cannot tell which Setup an
// error belongs to, so an exporter still retrying after its shutdown would
// otherwise warn in the name of a later one.
var silent = otel.ErrorHandlerFunc(func(error) {})

// failure reports the first export error, once.
type failure struct {
	once sync.Once
	warn func(string)
}

func (f *failure) report(what string, err error) {
	if err == nil || f == nil {
		return
	}
	f.once.Do(func() {
		if f.warn != nil {
			f.warn(fmt.Sprintf("warning: OpenTelemetry export failed (%s): %v; the run goes on, later failures are not reported", what, err))
		}
	})
}

// Setup starts the OTLP/HTTP trace (and, unless OTEL_METRICS_EXPORTER is
// none, metric) exporters of the settings and returns the tracer and the
// function that flushes and stops them within the export timeout. It
// connects to nothing: a collector that is down or hangs costs one
// warning, at the first failed export, and at most the export timeout at
// shutdown. A bad protocol, endpoint or timeout is an error, and no
// exporter is started.
func Setup(ctx context.Context, s telemetry.TraceSettings) (telemetry.Tracer, func(context.Context) error, error) {
	t, stop, err := setup(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	return t, stop, nil
}

// setup is Setup with extra tracer provider options (the replay's ids).
func setup(ctx context.Context, s telemetry.TraceSettings, extra ...sdktrace.TracerProviderOption) (*tracer, func(context.Context) error, error) {
	set, err := resolve(s)
	if err != nil {
		return nil, nil, err
	}
	fail := &failure{warn: s.Warn}
	otel.SetErrorHandler(silent)
	retry := otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: set.timeout}
	topts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(set.traces), otlptracehttp.WithTimeout(set.timeout), otlptracehttp.WithRetry(retry)}
	if len(set.headers) > 0 {
		topts = append(topts, otlptracehttp.WithHeaders(set.headers))
	}
	texp, err := otlptracehttp.New(ctx, topts...)
	if err != nil {
		return nil, nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		semconv.ServiceName(set.service), semconv.ServiceVersion(s.Version)))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithResource(res),
		sdktrace.WithBatcher(&spanExporter{SpanExporter: texp, fail: fail}, sdktrace.WithExportTimeout(set.timeout))}, extra...)...)
	var mp *sdkmetric.MeterProvider
	if set.metrics != "" {
		mopts := []otlpmetrichttp.Option{otlpmetrichttp.WithEndpointURL(set.metrics), otlpmetrichttp.WithTimeout(set.timeout),
			otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig(retry))}
		if len(set.headers) > 0 {
			mopts = append(mopts, otlpmetrichttp.WithHeaders(set.headers))
		}
		mexp, err := otlpmetrichttp.New(ctx, mopts...)
		if err != nil {
			_ = tp.Shutdown(ctx)
			return nil, nil, fmt.Errorf("OTLP metric exporter: %w", err)
		}
		// Metrics are exported at shutdown (one run, one export) or every
		// minute in long sessions.
		mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(&metricExporter{Exporter: mexp, fail: fail}, sdkmetric.WithTimeout(set.timeout))))
	}
	t := newTracer(tp, mp, set, s)
	t.parent = remoteParent(s.Getenv)
	shutdown := func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, set.timeout)
		defer cancel()
		err := tp.Shutdown(ctx)
		if mp != nil {
			err = errors.Join(err, mp.Shutdown(ctx))
		}
		if err != nil {
			fail.report("flush at exit", err)
		}
		return err
	}
	return t, shutdown, nil
}

// remoteParent reads TRACEPARENT (and TRACESTATE) from the environment:
// the runs of this process continue that trace.
func remoteParent(getenv func(string) string) context.Context {
	ctx := context.Background()
	if getenv == nil {
		return ctx
	}
	tp := strings.TrimSpace(getenv("TRACEPARENT"))
	if tp == "" {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": tp, "tracestate": strings.TrimSpace(getenv("TRACESTATE"))}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}
