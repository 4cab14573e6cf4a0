package otelpipe

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/telemetry"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestReinLinksNoSDK: the rein program links none of OpenTelemetry's SDK,
// its exporters or protobuf, whose package inits would run on every
// start; they live in rein-otel.
func TestReinLinksNoSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/reinhq/rein/cmd/rein").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps gave %d packages: %s", len(deps), out)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "go.opentelemetry.io/otel/sdk") || strings.HasPrefix(d, "go.opentelemetry.io/otel/exporters") ||
			strings.HasPrefix(d, "google.golang.org/protobuf") || strings.HasPrefix(d, "google.golang.org/grpc") {
			t.Errorf("cmd/rein links %s", d)
		}
	}
	out, err = exec.Command("go", "list", "-deps", "github.com/reinhq/rein/cmd/rein-otel").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "go.opentelemetry.io/otel/sdk/trace\n") {
		t.Errorf("rein-otel does not link the SDK (%v)", err)
	}
}

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.list = append(w.list, s); w.mu.Unlock() }
func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

// script writes an executable shell script standing in for a broken
// companion.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), Companion)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// drive makes one traced call of each kind.
func drive(tr telemetry.Tracer) {
	ctx, chat := tr.StartChat(context.Background(), &llm.Request{Model: llm.Model{ID: "m"}})
	for range 100 {
		tr.StartTool(ctx, &llm.Content{Type: llm.ContentToolCall, Name: "echo"}).End(nil)
	}
	chat.End(nil, nil)
}

// TestMissingCompanion: no rein-otel beside rein nor on PATH gives one
// error naming how to install it.
func TestMissingCompanion(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := Setup(context.Background(), telemetry.TraceSettings{})
	if !errors.Is(err, ErrNoCompanion) || !strings.Contains(err.Error(), Install) {
		t.Fatalf("err %v", err)
	}
	p := script(t, "exit 0")
	t.Setenv("PATH", filepath.Dir(p))
	if got, err := Find(); err != nil || got != p {
		t.Fatalf("Find %q %v, want %q", got, err, p)
	}
}

// TestCompanionThatDies: a companion that answers and then exits, one
// that never answers, and one that refuses: the run goes on, one warning
// or error, and the stop returns.
func TestCompanionThatDies(t *testing.T) {
	var w warnings
	tr, stop, err := With(script(t, `read hello; echo '{"timeout_ms":200}'; exit 0`))(context.Background(), telemetry.TraceSettings{Warn: w.add})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		drive(tr)
	}
	_ = stop(context.Background())
	if ws := w.all(); len(ws) != 1 || !strings.Contains(ws[0], Install) {
		t.Errorf("warnings %q: want one naming the install command", ws)
	}

	_, _, err = With(script(t, `exit 1`))(context.Background(), telemetry.TraceSettings{})
	if err == nil || !strings.Contains(err.Error(), Install) {
		t.Errorf("a companion that never answers: %v", err)
	}
	_, _, err = With(script(t, `read hello; echo '{"error":"bad protocol grpc"}'`))(context.Background(), telemetry.TraceSettings{})
	if err == nil || err.Error() != "bad protocol grpc" {
		t.Errorf("a refusing companion: %v", err)
	}
}

// TestTraceContext: ids are made in rein, children keep the trace, and
// TRACEPARENT is continued.
func TestTraceContext(t *testing.T) {
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	env := func(k string) string {
		if k == "TRACEPARENT" {
			return parent
		}
		return ""
	}
	tr, stop, err := With(script(t, `read hello; echo '{"timeout_ms":200}'; cat >/dev/null`))(context.Background(),
		telemetry.TraceSettings{Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	p := tr.(telemetry.Propagator)
	if tp, _ := p.TraceContext(context.Background()); tp != "" {
		t.Errorf("no span: %q", tp)
	}
	ctx, _ := tr.StartChat(context.Background(), &llm.Request{})
	tp, _ := p.TraceContext(ctx)
	if !strings.HasPrefix(tp, "00-4bf92f3577b34da6a3ce929d0e0e4736-") || strings.Contains(tp, "00f067aa0ba902b7") || len(tp) != len(parent) {
		t.Errorf("traceparent %q", tp)
	}
	for _, bad := range []string{"", "00-xyz", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"} {
		if _, _, ok := parseTraceparent(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
