package coding

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tool"
)

// fixedTracer traces nothing but names one span for propagation.
type fixedTracer struct{ parent string }

type noSpan struct{}

func (noSpan) Warn(telemetry.Warning)                                             {}
func (noSpan) End(*telemetry.Record)                                              {}
func (chatNoSpan) End(*llm.Message, error)                                        {}
func (chatNoSpan) Failover(failover.Event)                                        {}
func (chatNoSpan) FirstChunk(time.Time)                                           {}
func (toolNoSpan) End(*tool.Result)                                               {}
func (t fixedTracer) Compaction(context.Context, telemetry.Compaction, time.Time) {}

type (
	chatNoSpan struct{}
	toolNoSpan struct{}
)

func (t fixedTracer) StartRun(ctx context.Context, _ *telemetry.Run) (context.Context, telemetry.RunSpan) {
	return ctx, noSpan{}
}

func (t fixedTracer) StartChat(ctx context.Context, _ *llm.Request) (context.Context, telemetry.ChatSpan) {
	return ctx, chatNoSpan{}
}

func (t fixedTracer) StartTool(context.Context, *llm.Content) telemetry.ToolSpan { return toolNoSpan{} }

func (t fixedTracer) TraceContext(ctx context.Context) (string, string) {
	if telemetry.RunFrom(ctx) == nil {
		return "", ""
	}
	return t.parent, "rein=1"
}

// A traced run hands its span to the command hooks it runs, as
// TRACEPARENT and TRACESTATE.
func TestHooksContinueTheTrace(t *testing.T) {
	e := newTestEnv(t)
	out := filepath.Join(t.TempDir(), "trace")
	write(t, e.home, map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "LS", "hooks": [{"type": "command",
		"command": "echo \"$TRACEPARENT $TRACESTATE\" > ` + out + `"}]}]}}`})
	ws := t.TempDir()
	o := e.options(ws, faux.Calls("", faux.Call("ls", `{}`)), faux.Text("done"))
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	o.Tracer = fixedTracer{parent: parent}
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Submit(context.Background(), "look"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != parent+" rein=1" {
		t.Errorf("the hook saw %q, want %q", got, parent+" rein=1")
	}
}
