package telemetry

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// priced is the faux model with a price: $10 per million input tokens,
// $30 per million output tokens.
func priced() llm.Model {
	m := faux.Model()
	m.Price = llm.Price{Input: 10, Output: 30}
	return m
}

// fixed is a reply with fixed usage.
func fixed(in, out int, content ...llm.Content) faux.Reply {
	return faux.Reply{Message: &llm.Message{Role: llm.RoleAssistant, Content: content, Usage: &llm.Usage{Input: in, Output: out}}}
}

func echoCall(v string) llm.Content { return faux.Call("echo", `{"v":"`+v+`"}`) }

type echoArgs struct {
	V string `json:"v"`
}

func echoTool() *tool.Tool {
	return tool.MustNew("echo", "echoes v", func(_ context.Context, _ *tool.Call, in echoArgs) (tool.Result, error) {
		if in.V == "fail" {
			return tool.Errorf("echo failed"), nil
		}
		return tool.Text("echo:" + in.V), nil
	})
}

// clock is a manual clock that moves a second at each reading.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func ids() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("run%d", n)
	}
}

type env struct {
	t     *Telemetry
	store *Store
	p     *faux.Provider
	h     *harness.Harness
	mem   *harness.MemoryStore
	warns []Warning
	mu    sync.Mutex
}

// newEnv builds a harness over a faux provider wrapped by a Telemetry
// writing to a temporary store.
func newEnv(t *testing.T, limits Limits, replies ...faux.Reply) *env {
	t.Helper()
	e := &env{store: NewStore(t.TempDir()), p: faux.New(replies...)}
	e.p.IDPrefix = "call_"
	e.t = New(Options{Store: e.store, Frontend: "test", Limits: limits, Clock: newClock().Now, NewID: ids(),
		OnWarning: func(w Warning) { e.mu.Lock(); e.warns = append(e.warns, w); e.mu.Unlock() }})
	e.h, e.mem = e.harness(t, e.p)
	return e
}

func (e *env) harness(t *testing.T, p llm.Provider) (*harness.Harness, *harness.MemoryStore) {
	t.Helper()
	reg, err := tool.NewRegistry(echoTool())
	if err != nil {
		t.Fatal(err)
	}
	mem := harness.NewMemoryStore(nil)
	h, err := harness.New(harness.Options{Provider: e.t.Provider(p), Model: priced(), Tools: reg, Store: mem, NoGuards: true,
		System: []llm.SystemPart{{Text: "system"}}})
	if err != nil {
		t.Fatal(err)
	}
	return h, mem
}

// prompt runs one observed prompt.
func (e *env) prompt(t *testing.T, ctx context.Context, h *harness.Harness, info Info, text string) (harness.Result, error, Record) {
	t.Helper()
	ctx, run := e.t.Begin(ctx, h, info)
	res, err := h.Prompt(ctx, text)
	return res, err, run.End(res, err)
}

func runEntries(mem *harness.MemoryStore) []session.Entry {
	var out []session.Entry
	for _, en := range mem.Entries() {
		if en.Type == session.TypeCustom && en.Kind == SessionEntryKind {
			out = append(out, en)
		}
	}
	return out
}
