package otel

import (
	"context"
	"iter"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if companion.dir != "" {
			os.RemoveAll(companion.dir)
		}
		os.Exit(code)
	}))
}

const parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
const parentSpan = "00f067aa0ba902b7"

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// warnings collects warnings.
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

func fixed(in, out int, content ...llm.Content) faux.Reply {
	return faux.Reply{Message: &llm.Message{Role: llm.RoleAssistant, Content: content, Usage: &llm.Usage{Input: in, Output: out}}}
}

type echoArgs struct {
	V string `json:"v"`
}

func echoTool() *tool.Tool {
	return tool.MustNew("echo", "echoes v", func(_ context.Context, _ *tool.Call, in echoArgs) (tool.Result, error) {
		return tool.Text("echo:" + in.V + " secret-token-123"), nil
	})
}

// overloaded always fails as overloaded.
type overloaded struct{}

func (overloaded) Stream(_ context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return llm.ErrorStream(req, &llm.Error{Code: llm.CodeOverloaded, Provider: req.Model.Provider, Message: "busy"})
}

var primary = llm.Model{ID: "primary-1", Provider: "anthropic", API: llm.APIFaux, ContextWindow: 200_000, MaxOutput: 8000, BaseURL: "http://127.0.0.1:9/v1"}

// agent builds a harness whose provider is a failover chain (an
// overloaded primary, then the faux model) wrapped by tel.
func agent(t *testing.T, tel *telemetry.Telemetry, p *faux.Provider) *harness.Harness {
	t.Helper()
	fo, err := failover.New([]failover.Target{{Provider: overloaded{}, Model: primary}, {Provider: p, Model: faux.Model()}},
		failover.Options{Backoff: failover.Backoff{MaxAttempts: 1}, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(echoTool())
	if err != nil {
		t.Fatal(err)
	}
	h, err := harness.New(harness.Options{Provider: tel.Provider(fo), Model: primary, Tools: reg, NoGuards: true,
		System: []llm.SystemPart{{Text: "system"}}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func prompt(t *testing.T, tel *telemetry.Telemetry, h *harness.Harness, agentName, text string) telemetry.Record {
	t.Helper()
	ctx, run := tel.Begin(context.Background(), h, telemetry.Info{Agent: agentName, Session: "sess-1"})
	res, err := h.Prompt(ctx, text)
	return run.End(res, err)
}

func byName(spans []span, name string) []span {
	var out []span
	for _, s := range spans {
		if s.name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestTraceOfARun: a run with a tool call, a failover and a compaction
// reaches an OTLP receiver as GenAI spans under the TRACEPARENT of the
// process, with metrics, and message content stays off by default.
func TestTraceOfARun(t *testing.T) { bothPaths(t, testTraceOfARun) }

func testTraceOfARun(t *testing.T, setup telemetry.TraceSetup) {
	rcv := newReceiver(t)
	var warn warnings
	tr, stop, err := setup(context.Background(), telemetry.TraceSettings{Version: "test", Warn: warn.add,
		Getenv: envOf("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.srv.URL, "TRACEPARENT", "00-"+parentTrace+"-"+parentSpan+"-01")})
	if err != nil {
		t.Fatal(err)
	}
	tel := telemetry.New(telemetry.Options{Tracer: tr})
	p := faux.New(
		fixed(1000, 10, llm.Text("first answer")),
		fixed(170_000, 20, faux.Call("echo", `{"v":"x"}`)),
		fixed(4000, 300, llm.Text("summary of the work")),
		reasoned(fixed(2000, 30, llm.Text("done")), 25))
	h := agent(t, tel, p)
	if rec := prompt(t, tel, h, "coder", "first"); rec.Outcome != telemetry.OutcomeCompleted {
		t.Fatalf("first run: %+v", rec)
	}
	rec := prompt(t, tel, h, "coder", "second")
	if rec.Outcome != telemetry.OutcomeCompleted || len(rec.Compactions) != 1 || len(rec.Fallbacks) != 3 {
		t.Fatalf("second run: outcome %s, compactions %d, fallbacks %+v", rec.Outcome, len(rec.Compactions), rec.Fallbacks)
	}
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if bad := rcv.Bad(); len(bad) > 0 || len(warn.all()) > 0 {
		t.Fatalf("receiver: %v; warnings: %v", bad, warn.all())
	}
	spans := rcv.Spans()
	runs := byName(spans, "invoke_agent coder")
	if len(runs) != 2 {
		t.Fatalf("%d invoke_agent spans in %d spans", len(runs), len(spans))
	}
	run := runs[1]
	for _, r := range runs {
		if r.trace != parentTrace || r.parent != parentSpan {
			t.Errorf("run span is not under TRACEPARENT: trace %s parent %s", r.trace, r.parent)
		}
	}
	for k, v := range map[string]string{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder", "gen_ai.conversation.id": "sess-1",
		"gen_ai.usage.output_tokens": "350", "gen_ai.usage.reasoning.output_tokens": "25", "rein.run.outcome": "completed", "rein.run.tool_calls": "1", "rein.run.id": rec.ID,
	} {
		if run.attrs[k] != v {
			t.Errorf("run span %s = %q, want %q", k, run.attrs[k], v)
		}
	}
	if run.service != "rein" || run.scope != "github.com/reinhq/rein/telemetry/otel" {
		t.Errorf("service %q scope %q", run.service, run.scope)
	}
	var chats []span
	for _, s := range spans {
		if strings.HasPrefix(s.name, "chat ") && s.parent == run.id {
			chats = append(chats, s)
		}
	}
	// The second run: the call, the compaction's summary, the answer;
	// each fell back from the overloaded primary.
	if len(chats) != 3 {
		t.Fatalf("%d chat spans under the second run", len(chats))
	}
	first := chats[0]
	if first.name != "chat primary-1" || first.kind != "Client" || first.attrs["gen_ai.request.model"] != "primary-1" ||
		first.attrs["gen_ai.response.model"] != "faux" || first.attrs["gen_ai.usage.input_tokens"] != "170000" ||
		first.attrs["gen_ai.provider.name"] != "anthropic" || first.attrs["server.address"] != "127.0.0.1" {
		t.Errorf("chat span %s %+v", first.name, first.attrs)
	}
	if _, ok := first.attrs["gen_ai.response.time_to_first_chunk"]; !ok {
		t.Error("no time to first chunk on the chat span")
	}
	if i := slices.Index(first.events, EventFailover); i < 0 || first.eventAttrs[i]["rein.failover.kind"] != "fallback" ||
		first.eventAttrs[i]["rein.failover.reason"] != "overloaded" {
		t.Errorf("chat span events %v %v: want the fallback", first.events, first.eventAttrs)
	}
	if _, ok := first.attrs["gen_ai.input.messages"]; ok {
		t.Error("message content recorded although capture is off")
	}
	tools := byName(spans, "execute_tool echo")
	if len(tools) != 1 || tools[0].parent != run.id || tools[0].attrs["gen_ai.tool.name"] != "echo" || tools[0].attrs["gen_ai.operation.name"] != "execute_tool" {
		t.Errorf("tool spans %+v", tools)
	}
	comps := byName(spans, SpanCompaction)
	if len(comps) != 1 || comps[0].parent != run.id || comps[0].attrs["rein.compaction.tokens_before"] == "" || comps[0].end < comps[0].start {
		t.Errorf("compaction spans %+v", comps)
	}
	metrics := rcv.Metrics()
	for _, m := range []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "gen_ai.client.operation.time_to_first_chunk"} {
		if !slices.Contains(metrics, m) {
			t.Errorf("metric %s not received (got %v)", m, metrics)
		}
	}
}

// TestContentCaptureIsRedactedAndCapped: with capture on, prompts,
// replies and tool results are recorded after the redactor, cut to the
// size cap.
func TestContentCaptureIsRedactedAndCapped(t *testing.T) {
	bothPaths(t, testContentCaptureIsRedactedAndCapped)
}

func testContentCaptureIsRedactedAndCapped(t *testing.T, setup telemetry.TraceSetup) {
	rcv := newReceiver(t)
	redact := func(s string) string { return strings.ReplaceAll(s, "secret-token-123", "[REDACTED]") }
	tr, stop, err := setup(context.Background(), telemetry.TraceSettings{Redact: redact,
		Config: telemetry.OTelConfig{Endpoint: rcv.srv.URL, CaptureContent: true, ContentMaxBytes: 200}, Getenv: envOf()})
	if err != nil {
		t.Fatal(err)
	}
	tel := telemetry.New(telemetry.Options{Tracer: tr})
	p := faux.New(fixed(10, 10, faux.Call("echo", `{"v":"a"}`)), fixed(10, 10, llm.Text("the token was secret-token-123")))
	h := agent(t, tel, p)
	prompt(t, tel, h, "", strings.Repeat("long prompt ", 40))
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	tools := byName(rcv.Spans(), "execute_tool echo")
	if len(tools) != 1 || tools[0].attrs["gen_ai.tool.call.result"] != "echo:a [REDACTED]" || tools[0].attrs["gen_ai.tool.call.arguments"] != `{"v":"a"}` {
		t.Fatalf("tool span %+v", tools)
	}
	var sawOutput bool
	for _, s := range rcv.Spans() {
		if in := s.attrs["gen_ai.input.messages"]; strings.HasPrefix(s.name, "chat") && (len(in) > 200+len("…[cut]") || !strings.HasSuffix(in, "…[cut]")) {
			t.Errorf("input messages not capped: %d bytes", len(in))
		}
		if out := s.attrs["gen_ai.output.messages"]; strings.Contains(out, "[REDACTED]") {
			sawOutput = true
		}
		for _, v := range s.attrs {
			if strings.Contains(v, "secret-token-123") {
				t.Errorf("span %s carries the secret", s.name)
			}
		}
	}
	if !sawOutput {
		t.Error("no redacted output message recorded")
	}
}

// reasoned says that n of r's output tokens were reasoning.
func reasoned(r faux.Reply, n int) faux.Reply {
	r.Message.Usage.Reasoning = n
	return r
}

// A tool called in a traced run sees the run's span as its trace context
// (what rein hands to hooks and MCP servers), inside the TRACEPARENT of
// the process.
func TestToolsSeeTheRunSpan(t *testing.T) { bothPaths(t, testToolsSeeTheRunSpan) }

func testToolsSeeTheRunSpan(t *testing.T, setup telemetry.TraceSetup) {
	rcv := newReceiver(t)
	tr, stop, err := setup(context.Background(), telemetry.TraceSettings{Version: "test",
		Getenv: envOf("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.srv.URL, "OTEL_METRICS_EXPORTER", "none", "TRACEPARENT", "00-"+parentTrace+"-"+parentSpan+"-01")})
	if err != nil {
		t.Fatal(err)
	}
	tel := telemetry.New(telemetry.Options{Tracer: tr})
	var seen string
	probe := tool.MustNew("probe", "reports the trace context", func(ctx context.Context, _ *tool.Call, _ struct{}) (tool.Result, error) {
		seen, _ = telemetry.TraceContext(ctx)
		return tool.Text("ok"), nil
	})
	reg, err := tool.NewRegistry(probe)
	if err != nil {
		t.Fatal(err)
	}
	h, err := harness.New(harness.Options{Provider: tel.Provider(faux.New(fixed(10, 1, faux.Call("probe", `{}`)), fixed(10, 1, llm.Text("done")))),
		Model: faux.Model(), Tools: reg, NoGuards: true, System: []llm.SystemPart{{Text: "system"}}})
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, tel, h, "coder", "go")
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	runs := byName(rcv.Spans(), "invoke_agent coder")
	if len(runs) != 1 {
		t.Fatalf("%d run spans", len(runs))
	}
	if want := "00-" + parentTrace + "-" + runs[0].id + "-01"; seen != want {
		t.Errorf("the tool saw trace context %q, want %q", seen, want)
	}
}
