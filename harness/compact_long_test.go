package harness

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// scriptSummarizer is a summariser for tests: it answers with reply(r),
// records every request, and can fail.
type scriptSummarizer struct {
	name  string
	mu    sync.Mutex
	reqs  []compact.Request
	reply func(r compact.Request) (string, error)
}

func (s *scriptSummarizer) Name() string { return s.name }
func (s *scriptSummarizer) Window() int  { return 0 }
func (s *scriptSummarizer) Summarize(_ context.Context, r compact.Request) (string, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	n := len(s.reqs)
	s.mu.Unlock()
	if s.reply == nil {
		return fmt.Sprintf("## Progress\nsummary %d\n## Next\ncontinue", n), nil
	}
	return s.reply(r)
}

func (s *scriptSummarizer) requests() []compact.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]compact.Request(nil), s.reqs...)
}

type readArgs struct {
	Path string `json:"path"`
}

// bigRead returns 6,000 characters naming the file.
func bigRead() *tool.Tool {
	return tool.MustNew("read", "reads a file", func(_ context.Context, _ *tool.Call, in readArgs) (tool.Result, error) {
		return tool.Text(strings.Repeat("content of "+in.Path+"\n", 6000/(12+len(in.Path)))), nil
	})
}

const longGoal = "Convert each of the 300 files under src/legacy/ to the v2 API and report the count; do not touch vendor/."

// TestLongRunSmallWindow runs 300+ turns of large tool output through a
// 24k-token window: the run finishes without an overflow, every request
// keeps its tool pairs whole and stays inside the window, and every
// summary carries the goal verbatim (here the summariser never writes
// it: the check adds it back).
func TestLongRunSmallWindow(t *testing.T) {
	for _, tc := range []struct {
		name           string
		settings       compact.Settings
		minCompactions int
		wantMasks      bool
	}{
		{"masking and compaction", compact.Settings{}, 1, true},
		{"compaction only", compact.Settings{NoMasking: true}, 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) { longRun(t, tc.settings, tc.minCompactions, tc.wantMasks) })
	}
}

func longRun(t *testing.T, settings compact.Settings, minCompactions int, wantMasks bool) {
	const turns = 320
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 24_000, 2_000
	var mu sync.Mutex
	var problems []string
	maxTokens := 0
	step := 0
	reply := faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		if ok, why := compact.PairsIntact(req.Messages); !ok {
			problems = append(problems, why)
		}
		est := compact.Count(req.Messages, len(req.Messages), compact.FixedChars(req.System, req.Tools), 4).Tokens
		maxTokens = max(maxTokens, est)
		if est > model.ContextWindow {
			return llm.Message{}, &llm.Error{Code: llm.CodeContextOverflow, Message: fmt.Sprintf("prompt is too long: %d tokens > %d maximum", est, model.ContextWindow)}
		}
		step++
		if step > turns {
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("converted 300 of 300 files")}}, nil
		}
		// Every fifth turn is a parallel batch of two reads.
		m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(fmt.Sprintf("file %d", step))}}
		m.Content = append(m.Content, llm.ToolCall(fmt.Sprintf("c%d", step), "read", []byte(fmt.Sprintf(`{"path":"src/legacy/f%03d.go"}`, step))))
		if step%5 == 0 {
			m.Content = append(m.Content, llm.ToolCall(fmt.Sprintf("c%db", step), "read", []byte(fmt.Sprintf(`{"path":"src/legacy/g%03d.go"}`, step))))
		}
		return m, nil
	}}
	replies := make([]faux.Reply, turns+1)
	for i := range replies {
		replies[i] = reply
	}
	sum := &scriptSummarizer{name: "test/summariser"}
	f := newFixture(t, replies, func(o *Options) {
		o.Model = model
		o.Tools = registry(t, bigRead())
		o.NoGuards = true
		o.Stop.MaxTurns = -1
		o.Summarizers = []compact.Summarizer{sum}
		o.Context = settings
	})
	var statuses int
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Context != nil {
			statuses++
		}
		if e.Type == EventContextNotice {
			t.Logf("%s: %s", e.Type, e.Detail)
		}
		return nil
	})
	// No deadlock guard: under the race detector on a busy machine the
	// 320 turns may take longer than it allows; go test's own timeout
	// still catches a hang.
	res, err := f.h.Prompt(context.Background(), longGoal)
	if err != nil {
		t.Fatalf("run failed: %v (%s)", err, res.Detail)
	}
	if res.Stop != StopCompleted || res.Turns != turns+1 {
		t.Fatalf("stop = %s after %d turns: %s", res.Stop, res.Turns, res.Detail)
	}
	if len(problems) > 0 {
		t.Fatalf("tool pairs broken in %d requests, first: %s", len(problems), problems[0])
	}
	if maxTokens > model.ContextWindow {
		t.Fatalf("a request held %d tokens, over the %d window", maxTokens, model.ContextWindow)
	}
	var compactions, masks int
	for _, e := range f.store.Entries() {
		switch {
		case e.Type == session.TypeCompaction:
			compactions++
			if !strings.Contains(e.Summary, longGoal) {
				t.Fatalf("compaction %d lost the goal:\n%s", compactions, e.Summary)
			}
		case e.Type == session.TypeCustom && e.Kind == KindMask:
			masks++
		}
	}
	if compactions < minCompactions || (masks > 0) != wantMasks || len(sum.requests()) < compactions {
		t.Fatalf("%d compactions, %d masking decisions, %d summariser calls", compactions, masks, len(sum.requests()))
	}
	if statuses != turns+1 {
		t.Fatalf("%d turn_end events carried the context status, want %d", statuses, turns+1)
	}
	// The second and later compactions update the previous summary.
	last := ""
	for _, r := range sum.requests() {
		if strings.Contains(r.Prompt, "<conversation>") {
			last = r.Prompt
		}
	}
	if compactions > 1 && !strings.Contains(last, "<previous-summary>") {
		t.Fatal("a later compaction did not update the previous summary")
	}
	t.Logf("%d turns, %d compactions, %d masking decisions, largest request %d tokens of %d", res.Turns, compactions, masks, maxTokens, model.ContextWindow)
}
