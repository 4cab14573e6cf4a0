package otel

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/telemetry"
)

func TestSetupBadInput(t *testing.T) { bothPaths(t, testSetupBadInput) }

func testSetupBadInput(t *testing.T, setup telemetry.TraceSetup) {
	for _, c := range []struct {
		env  []string
		cfg  telemetry.OTelConfig
		want string
	}{
		{[]string{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}, telemetry.OTelConfig{}, "http/protobuf only"},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"}, telemetry.OTelConfig{}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
		{nil, telemetry.OTelConfig{Protocol: "grpc"}, "telemetry.json"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"}, telemetry.OTelConfig{}, "http:// or https://"},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "ftp://x/v1/traces"}, telemetry.OTelConfig{}, "http:// or https://"},
		{[]string{"OTEL_EXPORTER_OTLP_TIMEOUT", "5s"}, telemetry.OTelConfig{}, "milliseconds"},
	} {
		tr, stop, err := setup(context.Background(), telemetry.TraceSettings{Getenv: envOf(c.env...), Config: c.cfg})
		if err == nil || !strings.Contains(err.Error(), c.want) || tr != nil || stop != nil {
			t.Errorf("%v %+v: %v; want an error with %q", c.env, c.cfg, err, c.want)
		}
	}
}

func TestTracesWanted(t *testing.T) {
	for _, c := range []struct {
		env  []string
		cfg  telemetry.OTelConfig
		want bool
	}{
		{nil, telemetry.OTelConfig{}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318"}, telemetry.OTelConfig{}, true},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://x:4318/v1/traces"}, telemetry.OTelConfig{}, true},
		{[]string{"OTEL_TRACES_EXPORTER", "otlp"}, telemetry.OTelConfig{}, true},
		{nil, telemetry.OTelConfig{Enabled: true}, true},
		{[]string{"OTEL_TRACES_EXPORTER", "none", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318"}, telemetry.OTelConfig{}, false},
		{[]string{"OTEL_SDK_DISABLED", "true"}, telemetry.OTelConfig{Enabled: true}, false},
	} {
		if got := telemetry.TracesWanted(envOf(c.env...), c.cfg); got != c.want {
			t.Errorf("%v %+v: %v, want %v", c.env, c.cfg, got, c.want)
		}
	}
}

// runWith runs one prompt with traces to endpoint and returns the
// record, the warnings and the shutdown's error.
func runWith(t *testing.T, setup telemetry.TraceSetup, endpoint string) (telemetry.Record, []string, error) {
	t.Helper()
	var warn warnings
	tr, stop, err := setup(context.Background(), telemetry.TraceSettings{Warn: warn.add,
		Getenv: envOf("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, "OTEL_EXPORTER_OTLP_TIMEOUT", "300")})
	if err != nil {
		t.Fatal(err)
	}
	tel := telemetry.New(telemetry.Options{Tracer: tr})
	h := agent(t, tel, faux.New(fixed(10, 10, faux.Call("echo", `{"v":"a"}`)), fixed(10, 10, llm.Text("done"))))
	rec := prompt(t, tel, h, "", "go")
	err = stop(context.Background())
	return rec, warn.all(), err
}

// TestUnreachableCollector: nothing listens at the endpoint. The run is
// unaffected, and the failure is one warning.
func TestUnreachableCollector(t *testing.T) { bothPaths(t, testUnreachableCollector) }

func testUnreachableCollector(t *testing.T, setup telemetry.TraceSetup) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	rec, warns, err := runWith(t, setup, "http://"+addr)
	if rec.Outcome != telemetry.OutcomeCompleted || rec.ToolCalls != 1 {
		t.Errorf("run %+v", rec)
	}
	if err == nil || len(warns) != 1 || !strings.Contains(warns[0], "OpenTelemetry export failed") {
		t.Errorf("shutdown %v; warnings %q: want one warning", err, warns)
	}
}

// TestHangingCollector: the collector accepts and never answers. The
// flush at exit gives up at the export timeout; one warning.
func TestHangingCollector(t *testing.T) { bothPaths(t, testHangingCollector) }

func testHangingCollector(t *testing.T, setup telemetry.TraceSetup) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	rec, warns, err := runWith(t, setup, srv.URL)
	if rec.Outcome != telemetry.OutcomeCompleted {
		t.Errorf("run %+v", rec)
	}
	if err == nil || len(warns) != 1 {
		t.Errorf("shutdown %v; warnings %q: want one warning", err, warns)
	}
}

// TestCollectorRejects: a collector answering 400 to everything.
func TestCollectorRejects(t *testing.T) { bothPaths(t, testCollectorRejects) }

func testCollectorRejects(t *testing.T, setup telemetry.TraceSetup) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer srv.Close()
	_, warns, _ := runWith(t, setup, srv.URL)
	if len(warns) != 1 || !strings.Contains(warns[0], "400") {
		t.Errorf("warnings %q: want one naming the status", warns)
	}
}
