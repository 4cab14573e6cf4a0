package harness

import (
	"fmt"

	"context"
	"encoding/json"
	"errors"
	"github.com/reinhq/rein/agent"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

func compactions(s *MemoryStore) []session.Entry {
	var out []session.Entry
	for _, e := range s.Entries() {
		if e.Type == session.TypeCompaction {
			out = append(out, e)
		}
	}
	return out
}

// withUsage is a text reply that reports prompt tokens.
func withUsage(text string, input int) faux.Reply {
	return faux.Reply{Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(text)},
		Usage: &llm.Usage{Input: input, Output: 10}}}
}

// TestEstimateStartsFromCompactedContext: a reply that reported a huge
// prompt triggers a compaction; afterwards the estimate is that of the
// compacted context, not the old reply's usage (which would leave no
// room for the next reply).
func TestEstimateStartsFromCompactedContext(t *testing.T) {
	sum := &scriptSummarizer{name: "s"}
	f := newFixture(t, []faux.Reply{withUsage("a", 1000), withUsage("b", 170_000), faux.Text("c")}, func(o *Options) {
		o.Summarizers = []compact.Summarizer{sum}
	})
	for _, p := range []string{"one", "two", "three"} {
		if _, err := f.prompt(t, p); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(compactions(f.store)); n != 1 {
		t.Fatalf("%d compactions, want 1", n)
	}
	st := f.h.ContextStatus()
	if st.Tokens > 1000 || st.Tokens == 0 {
		t.Fatalf("estimate after compaction = %+v; want the compacted context's size", st)
	}
	// The request after the compaction was sent with the whole reply
	// budget.
	reqs := f.p.Requests()
	last := reqs[len(reqs)-1]
	if last.MaxTokens != 0 && last.MaxTokens < 1000 {
		t.Fatalf("next reply limited to %d tokens", last.MaxTokens)
	}
	if !compact.IsSummary(&last.Messages[0]) {
		t.Fatal("the request after the compaction does not start with the summary")
	}
}

// TestSummaryFramedAsReference: the summary says it is not a message
// from the user, and the latest user message ends the request.
func TestSummaryFramedAsReference(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b")}, func(o *Options) {
		o.Summarizers = []compact.Summarizer{&scriptSummarizer{name: "s"}}
	})
	if _, err := f.prompt(t, "refactor the parser"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.h.Compact(context.Background(), CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "what is 2+2?"); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if !strings.Contains(msgs[0].Text(), "not a message from the user") || !strings.Contains(session.CompactionPrefix, "summary") {
		t.Fatalf("summary not framed as reference: %q", msgs[0].Text())
	}
	if got := msgs[len(msgs)-1]; got.Role != llm.RoleUser || got.Text() != "what is 2+2?" {
		t.Fatalf("the request does not end with the latest message: %+v", got)
	}
}

// TestContextFilesReadAgainAfterCompaction: context files live in the
// system prompt, which is rebuilt (the SystemFunc called again, reading
// the file anew) after a compaction, and never go into the summary.
func TestContextFilesReadAgainAfterCompaction(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("rule-one: use tabs"), 0o600); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	sum := &scriptSummarizer{name: "s"}
	f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b"), faux.Text("c")}, func(o *Options) {
		o.Summarizers = []compact.Summarizer{sum}
		o.SystemFunc = func(context.Context, Snapshot) ([]llm.SystemPart, error) {
			calls.Add(1)
			b, err := os.ReadFile(agents)
			return []llm.SystemPart{{Text: "base\n" + string(b)}}, err
		}
	})
	for _, p := range []string{"one", "two"} {
		if _, err := f.prompt(t, p); err != nil {
			t.Fatal(err)
		}
	}
	before := calls.Load()
	if _, err := f.h.Compact(context.Background(), CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agents, []byte("rule-two: use spaces"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "three"); err != nil {
		t.Fatal(err)
	}
	if calls.Load() <= before {
		t.Fatal("the system prompt was not rebuilt after the compaction")
	}
	reqs := f.p.Requests()
	if sys := llm.SystemText(reqs[len(reqs)-1].System); !strings.Contains(sys, "rule-two") {
		t.Fatalf("the context file was not read again: %q", sys)
	}
	for _, r := range sum.requests() {
		if strings.Contains(r.Prompt, "rule-one") || strings.Contains(r.System, "rule-one") {
			t.Fatal("the context file went into the summary request")
		}
	}
	for _, e := range compactions(f.store) {
		if strings.Contains(e.Summary, "rule-") {
			t.Fatal("the summary carries the context file")
		}
	}
}

// TestOverflowCompactsAndRetriesOnce: a context_overflow compacts and
// retries; a second one ends the run saying so.
func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	overflow := faux.Fail(&llm.Error{Code: llm.CodeContextOverflow, Message: "prompt is too long: 210000 tokens > 200000 maximum"})
	t.Run("recovers", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b"), overflow, faux.Text("c")}, func(o *Options) {
			o.Summarizers = []compact.Summarizer{&scriptSummarizer{name: "s"}}
		})
		for _, p := range []string{"one", "two"} {
			if _, err := f.prompt(t, p); err != nil {
				t.Fatal(err)
			}
		}
		res, err := f.prompt(t, "three")
		if err != nil || res.Text() != "c" {
			t.Fatalf("run = %q, %v", res.Text(), err)
		}
		if n := len(compactions(f.store)); n != 1 {
			t.Fatalf("%d compactions, want 1", n)
		}
	})
	t.Run("second overflow ends the run", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b"), overflow, overflow}, func(o *Options) {
			o.Summarizers = []compact.Summarizer{&scriptSummarizer{name: "s"}}
		})
		for _, p := range []string{"one", "two"} {
			if _, err := f.prompt(t, p); err != nil {
				t.Fatal(err)
			}
		}
		res, err := f.prompt(t, "three")
		if !errors.Is(err, llm.ErrContextOverflow) || !strings.Contains(res.Detail, "still overflows") {
			t.Fatalf("run = %s, %v", res.Detail, err)
		}
		if n := len(compactions(f.store)); n != 1 {
			t.Fatalf("%d compactions, want 1", n)
		}
	})
	t.Run("off: reported, nothing compacted", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Text("a"), overflow}, func(o *Options) {
			o.Context.Off = true
		})
		if _, err := f.prompt(t, "one"); err != nil {
			t.Fatal(err)
		}
		res, err := f.prompt(t, "two")
		if !errors.Is(err, llm.ErrContextOverflow) || !strings.Contains(res.Detail, "context management is off") {
			t.Fatalf("run = %s, %v", res.Detail, err)
		}
		if n := len(compactions(f.store)); n != 0 {
			t.Fatalf("%d compactions with compaction off", n)
		}
	})
}

// TestNoCompactionLoop: when what must be kept is itself over the
// threshold, one compaction runs, then the run stops with a clear
// message instead of compacting again and again.
func TestNoCompactionLoop(t *testing.T) {
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 10_000, 1000
	sum := &scriptSummarizer{name: "s"}
	var notices []string
	f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("never sent")}, func(o *Options) {
		o.Model = model
		o.Summarizers = []compact.Summarizer{sum}
	})
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == EventContextNotice {
			notices = append(notices, e.Detail)
		}
		return nil
	})
	if _, err := f.prompt(t, "start"); err != nil {
		t.Fatal(err)
	}
	res, err := f.prompt(t, strings.Repeat("huge request ", 4000)) // ~13k tokens
	if !errors.Is(err, llm.ErrContextOverflow) {
		t.Fatalf("err = %v (%s)", err, res.Detail)
	}
	if n := len(compactions(f.store)); n != 1 {
		t.Fatalf("%d compactions, want exactly 1", n)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "tried again once the context has grown") || !strings.Contains(res.Detail, "what must be kept (the latest request and its turn) is too large") {
		t.Fatalf("notices = %q, detail = %q", notices, res.Detail)
	}
	if f.p.Pending() != 1 {
		t.Fatal("a request that cannot fit was sent")
	}
}

// TestLatestUserRequestNeverSummarised: in a long tool loop after one
// prompt, the compaction cut lies after the prompt; the summary carries
// it verbatim.
func TestLatestUserRequestNeverSummarised(t *testing.T) {
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 12_000, 1000
	var replies []faux.Reply
	for i := 0; i < 12; i++ {
		replies = append(replies, faux.Calls("", llm.ToolCall("c"+string(rune('a'+i)), "read", []byte(`{"path":"f`+string(rune('a'+i))+`"}`))))
	}
	replies = append(replies, faux.Text("done"))
	const prompt = "Rename the field Foo to Bar in every file of pkg/ (exactly 12 files)."
	f := newFixture(t, replies, func(o *Options) {
		o.Model = model
		o.Tools = registry(t, bigRead())
		o.NoGuards = true
		o.Context.NoMasking = true
		o.Summarizers = []compact.Summarizer{&scriptSummarizer{name: "s"}}
	})
	if _, err := f.prompt(t, prompt); err != nil {
		t.Fatal(err)
	}
	cs := compactions(f.store)
	if len(cs) == 0 {
		t.Fatal("no compaction ran")
	}
	for _, c := range cs {
		if !strings.Contains(c.Summary, prompt) {
			t.Fatalf("the latest request was summarised away:\n%s", c.Summary)
		}
	}
}

// TestCompactBadInput covers the bad inputs of a compaction by hand.
func TestCompactBadInput(t *testing.T) {
	batch := faux.Calls("", llm.ToolCall("p1", "echo", []byte(`{"v":"1"}`)), llm.ToolCall("p2", "echo", []byte(`{"v":"2"}`)))
	t.Run("cut inside a parallel batch", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{batch, faux.Text("done")}, nil)
		if _, err := f.prompt(t, "go"); err != nil {
			t.Fatal(err)
		}
		var second string
		for _, e := range f.store.Entries() {
			if e.Type == session.TypeMessage && e.Message.ToolCallID == "p2" {
				second = e.ID
			}
		}
		_, err := f.h.Compact(context.Background(), CompactOptions{FirstKept: second})
		var he *Error
		if !errors.As(err, &he) || he.Code != CodeConfig || !strings.Contains(err.Error(), "inside a tool batch") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("first kept is the first entry", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Text("a")}, nil)
		if _, err := f.prompt(t, "go"); err != nil {
			t.Fatal(err)
		}
		_, err := f.h.Compact(context.Background(), CompactOptions{FirstKept: entryID(t, f.store, "go")})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "nothing before it") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("first kept not in the context", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Text("a")}, nil)
		if _, err := f.prompt(t, "go"); err != nil {
			t.Fatal(err)
		}
		_, err := f.h.Compact(context.Background(), CompactOptions{FirstKept: "nope"})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "not in the current context") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("nothing to compact", func(t *testing.T) {
		f := newFixture(t, nil, nil)
		_, err := f.h.Compact(context.Background(), CompactOptions{})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "nothing to compact") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("every summariser fails: digest, and the user is told", func(t *testing.T) {
		bad := &scriptSummarizer{name: "bad", reply: func(compact.Request) (string, error) { return "", nil }}
		f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b")}, func(o *Options) {
			o.Summarizers = []compact.Summarizer{bad}
		})
		var notice string
		f.h.Subscribe(func(_ context.Context, e Event) error {
			if e.Type == EventContextNotice {
				notice = e.Detail
			}
			return nil
		})
		for _, p := range []string{"one", "two"} {
			if _, err := f.prompt(t, p); err != nil {
				t.Fatal(err)
			}
		}
		// The session's own model (faux) has no reply left: it fails too.
		e, err := f.h.Compact(context.Background(), CompactOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(e.Summary, compact.DigestMarker) || !strings.Contains(e.Summary, "one") {
			t.Fatalf("summary = %q", e.Summary)
		}
		if !strings.Contains(notice, "digest") || !strings.Contains(notice, "returned nothing") {
			t.Fatalf("notice = %q", notice)
		}
	})
	t.Run("busy", func(t *testing.T) {
		g := newGate()
		f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("wait", `{}`)), faux.Text("done")}, func(o *Options) {
			o.Tools = registry(t, g.tool())
		})
		done := make(chan error)
		go func() { _, err := f.h.Prompt(context.Background(), "go"); done <- err }()
		<-g.entered
		_, err := f.h.Compact(context.Background(), CompactOptions{})
		close(g.open)
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "busy") {
			t.Fatalf("err = %v", err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("unknown window is assumed and said", func(t *testing.T) {
		var st *compact.Status
		f := newFixture(t, []faux.Reply{faux.Text("a")}, func(o *Options) {
			o.Model.ContextWindow = 0
		})
		f.h.Subscribe(func(_ context.Context, e Event) error {
			if e.Context != nil {
				st = e.Context
			}
			return nil
		})
		if _, err := f.prompt(t, "hi"); err != nil {
			t.Fatal(err)
		}
		if st == nil || !st.Assumed || st.Window != compact.AssumedWindow || !strings.Contains(st.String(), "assumed") {
			t.Fatalf("status = %+v", st)
		}
	})
	t.Run("bad settings", func(t *testing.T) {
		_, err := New(Options{Provider: faux.New(), Model: faux.Model(), Context: compact.Settings{Soft: 0.9, Hard: 0.5}})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "soft threshold") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestCompactionHooks: before_compaction replaces the focus; the
// after_compaction event reports the compaction.
func TestCompactionHooks(t *testing.T) {
	sum := &scriptSummarizer{name: "s"}
	f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b")}, func(o *Options) {
		o.Hooks = hook.New()
		o.Summarizers = []compact.Summarizer{sum}
	})
	f.h.Hooks().OnBeforeCompaction(func(_ context.Context, e *hook.CompactionEvent) (hook.SummaryResult, error) {
		if e.Focus != "the parser" {
			t.Errorf("hook saw focus %q", e.Focus)
		}
		return hook.SummaryResult{Focus: "the lexer"}, nil
	})
	var rep *CompactionReport
	var raw []byte
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == EventAfterCompaction {
			rep = e.Compaction
			raw, _ = json.Marshal(e)
		}
		return nil
	})
	for _, p := range []string{"one", "two"} {
		if _, err := f.prompt(t, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.h.Compact(context.Background(), CompactOptions{Focus: "the parser"}); err != nil {
		t.Fatal(err)
	}
	if r := sum.requests(); len(r) == 0 || !strings.Contains(r[0].Prompt, "the lexer") {
		t.Fatal("the hook's focus did not reach the summariser")
	}
	if rep == nil || rep.Model != "s" || rep.TokensBefore == 0 || rep.TokensAfter == 0 || rep.Fallback || rep.Reason != "manual" {
		t.Fatalf("report = %+v", rep)
	}
	if !strings.Contains(string(raw), `"compaction":{"reason":"manual"`) {
		t.Fatalf("event JSON = %s", raw)
	}
}

// TestHandoffModeOnSmallerWindow: moving to a model with a smaller
// window compacts for it in handoff mode.
func TestHandoffModeOnSmallerWindow(t *testing.T) {
	sum := &scriptSummarizer{name: "s"}
	f := newFixture(t, []faux.Reply{faux.Text(strings.Repeat("long answer ", 1800)), faux.Text("b")}, func(o *Options) {
		o.Summarizers = []compact.Summarizer{sum}
	})
	if _, err := f.prompt(t, "one"); err != nil {
		t.Fatal(err)
	}
	small := faux.Model()
	small.ID, small.ContextWindow, small.MaxOutput = "faux-small", 6000, 1000
	if err := f.h.SetModel(small); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "two"); err != nil {
		t.Fatal(err)
	}
	r := sum.requests()
	if len(r) == 0 || !strings.Contains(r[0].System, "NEW MODEL") {
		t.Fatal("no handoff-mode compaction for the smaller window")
	}
}

// TestHandoff starts a fresh session linked to the old one whose first
// message is the briefing.
func TestHandoff(t *testing.T) {
	dir := t.TempDir()
	old, err := session.Create(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	sum := &scriptSummarizer{name: "s", reply: func(compact.Request) (string, error) {
		return "## Goal\nship it\n## Next\nrun the tests", nil
	}}
	p := faux.New(faux.Text("a"))
	h, err := New(Options{Provider: p, Model: faux.Model(), Store: old, Summarizers: []compact.Summarizer{sum}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(context.Background(), "ship it"); err != nil {
		t.Fatal(err)
	}
	child, err := old.Fork("", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	if _, err := h.Handoff(context.Background(), HandoffOptions{To: child}); err != nil {
		t.Fatal(err)
	}
	if child.Header().Parent != old.ID() {
		t.Fatal("the new session is not linked to the old one")
	}
	msgs := child.Context().Messages
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text(), HandoffPrefix) || !strings.Contains(msgs[0].Text(), "run the tests") {
		t.Fatalf("child context = %+v", msgs)
	}
	if r := sum.requests(); len(r) != 1 || !strings.Contains(r[0].System, "NEW MODEL") {
		t.Fatal("the briefing was not asked for in handoff mode")
	}
	if _, err := h.Handoff(context.Background(), HandoffOptions{}); !errors.Is(err, ErrConfig) {
		t.Fatalf("no target: %v", err)
	}
}

// TestCompactsAfterRun: a run that ends over the hard threshold is
// compacted before the harness goes idle, so the next prompt starts small.
func TestCompactsAfterRun(t *testing.T) {
	sum := &scriptSummarizer{name: "s"}
	f := newFixture(t, []faux.Reply{faux.Text("a"), withUsage("b", 170_000)}, func(o *Options) {
		o.Summarizers = []compact.Summarizer{sum}
	})
	var reasons []string
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == EventAfterCompaction {
			reasons = append(reasons, e.Compaction.Reason)
		}
		return nil
	})
	for _, p := range []string{"one", "two"} {
		if _, err := f.prompt(t, p); err != nil {
			t.Fatal(err)
		}
	}
	if len(reasons) != 1 || reasons[0] != "after_run" {
		t.Fatalf("compactions: %v, want one after the run", reasons)
	}
	if st := f.h.ContextStatus(); st.Tokens > 1000 {
		t.Fatalf("status after the run's compaction = %d tokens", st.Tokens)
	}
}

// TestCompactionWithApplicationMessages: messages an application writes
// to the log during a run do not shift the entry a compaction keeps
// from; the context rebuilt from the log keeps every tool pair whole.
func TestCompactionWithApplicationMessages(t *testing.T) {
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 12_000, 1000
	var replies []faux.Reply
	for i := 0; i < 14; i++ {
		replies = append(replies, faux.Calls("", llm.ToolCall(fmt.Sprintf("c%d", i), "read", []byte(fmt.Sprintf(`{"path":"f%d"}`, i)))))
	}
	replies = append(replies, faux.Text("done"))
	f := newFixture(t, replies, func(o *Options) {
		o.Model = model
		o.Tools = registry(t, bigRead())
		o.NoGuards = true
		o.Context.NoMasking = true
		o.Summarizers = []compact.Summarizer{&scriptSummarizer{name: "s"}}
	})
	turns := 0
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventTurnEnd {
			turns++
			if turns%3 == 0 {
				m := llm.UserText(fmt.Sprintf("note %d from the application", turns))
				return f.h.AppendEntry(session.Entry{Type: session.TypeMessage, Message: &m})
			}
		}
		return nil
	})
	if _, err := f.prompt(t, "read them all"); err != nil {
		t.Fatal(err)
	}
	if len(compactions(f.store)) == 0 {
		t.Fatal("no compaction ran")
	}
	msgs := f.store.Context().Messages
	if ok, why := compact.PairsIntact(msgs); !ok {
		t.Fatalf("the context rebuilt from the log splits a pair: %s", why)
	}
	for _, c := range compactions(f.store) {
		e, ok := f.store.Entry(c.FirstKept)
		if !ok || e.Message == nil || e.Message.Role == llm.RoleToolResult {
			t.Fatalf("compaction keeps from %+v", e)
		}
	}
}
