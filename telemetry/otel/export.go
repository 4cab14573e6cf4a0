package otel

import (
	"context"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// spanExporter reports the first failed export once.
type spanExporter struct {
	sdktrace.SpanExporter
	fail *failure
}

func (e *spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	e.fail.report("traces", err)
	return err
}

// metricExporter reports the first failed export once.
type metricExporter struct {
	sdkmetric.Exporter
	fail *failure
}

func (e *metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := e.Exporter.Export(ctx, rm)
	e.fail.report("metrics", err)
	return err
}
