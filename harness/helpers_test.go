package harness

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	goleak.VerifyTestMain(m)
}

func fixedClock() time.Time { return time.Unix(1_700_000_000, 0).UTC() }

type echoArgs struct {
	V string `json:"v"`
}

// echoTool answers with its argument.
func echoTool() *tool.Tool {
	return tool.MustNew("echo", "echoes v", func(_ context.Context, _ *tool.Call, in echoArgs) (tool.Result, error) {
		return tool.Text("echo:" + in.V), nil
	})
}

// gateTool blocks until its gate is opened (or the call is cancelled),
// reporting on entered when it starts.
type gate struct {
	entered chan struct{}
	open    chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 8), open: make(chan struct{})} }

func (g *gate) tool() *tool.Tool {
	return tool.MustNew("wait", "waits", func(ctx context.Context, _ *tool.Call, _ struct{}) (tool.Result, error) {
		g.entered <- struct{}{}
		select {
		case <-g.open:
			return tool.Text("waited"), nil
		case <-ctx.Done():
			return tool.Text("cancelled"), nil
		}
	})
}

func registry(t testing.TB, tools ...*tool.Tool) *tool.Registry {
	t.Helper()
	r, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type fixture struct {
	h     *Harness
	p     *faux.Provider
	store *MemoryStore
}

// newFixture builds a harness over a faux provider and a memory store
// with the echo tool; mod adjusts the options.
func newFixture(t testing.TB, replies []faux.Reply, mod func(*Options)) *fixture {
	t.Helper()
	p := faux.New(replies...)
	p.IDPrefix = "call_"
	p.Now = fixedClock
	store := NewMemoryStore(fixedClock)
	o := Options{Provider: p, Model: faux.Model(), Tools: registry(t, echoTool()), Store: store, Clock: fixedClock,
		System: []llm.SystemPart{{Text: "base system"}}}
	if mod != nil {
		mod(&o)
	}
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, p: p, store: store}
}

// within runs f and fails the test if it does not return in time (a
// deadlock guard, not a timing assertion).
func within(t testing.TB, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("deadlock: the operation did not return")
	}
}

// prompt runs Prompt under the deadlock guard.
func (f *fixture) prompt(t testing.TB, text string) (Result, error) {
	t.Helper()
	var res Result
	var err error
	within(t, func() { res, err = f.h.Prompt(context.Background(), text) })
	return res, err
}

// transcript renders the store's entries, one short line each, leaving
// out the journal entries (journal_test.go checks those).
func transcript(entries []session.Entry) []string {
	var out []string
	for _, e := range entries {
		if e.Type.Journal() {
			continue
		}
		out = append(out, describe(e))
	}
	return out
}

func describe(e session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		return describeMessage(e.Message)
	case session.TypeModelChange:
		return "model:" + e.Provider + "/" + e.Model
	case session.TypeThinkingChange:
		return "thinking:" + string(e.Thinking)
	case session.TypeToolsChange:
		return "tools:" + strings.Join(e.Tools, ",")
	case session.TypeCustom:
		return "custom:" + e.Kind + ":" + string(e.Data)
	case session.TypeLabel:
		return "label:" + e.Label
	case session.TypeLeaf:
		return "leaf:" + e.Target
	case session.TypeCompaction, session.TypeBranchSummary:
		return string(e.Type) + ":" + e.Summary
	}
	return string(e.Type)
}

func describeMessage(m *llm.Message) string {
	switch m.Role {
	case llm.RoleAssistant:
		var parts []string
		if t := m.Text(); t != "" {
			parts = append(parts, t)
		}
		for _, c := range m.ToolCalls() {
			parts = append(parts, "call "+c.Name+string(c.Arguments))
		}
		if m.Failed() {
			parts = append(parts, "failed:"+string(m.StopReason))
		}
		return "assistant:" + strings.Join(parts, "+")
	case llm.RoleToolResult:
		return "result:" + m.ToolName + ":" + m.Text()
	}
	return "user:" + m.Text()
}

// messagesOnly keeps the message lines of a transcript.
func messagesOnly(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "user:") || strings.HasPrefix(l, "assistant:") || strings.HasPrefix(l, "result:") {
			out = append(out, l)
		}
	}
	return out
}

// requestTexts renders the messages of one recorded request.
func requestTexts(req llm.Request) []string {
	var out []string
	for i := range req.Messages {
		out = append(out, describeMessage(&req.Messages[i]))
	}
	return out
}

// recorder is a listener that records event types (message events with
// their role and text).
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) listen(_ context.Context, e Event) error {
	var s string
	switch e.Type {
	case agent.EventMessageUpdate:
		return nil
	case agent.EventMessageEnd:
		s = "end " + describeMessage(e.Message)
	case agent.EventToolStart, agent.EventToolEnd:
		s = fmt.Sprintf("%s %s", e.Type, e.Call.Name)
	case agent.EventAgentEnd:
		s = "agent_end " + string(e.Stop)
	default:
		s = string(e.Type)
	}
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
	return nil
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}
