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
)

// readLoop returns replies that read n files, one call a turn, then end
// with a text; each request is checked for intact tool pairs and for the
// window.
func readLoop(t *testing.T, n int, window int, problems *[]string, mu *sync.Mutex) []faux.Reply {
	t.Helper()
	step := 0
	reply := faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		if ok, why := compact.PairsIntact(req.Messages); !ok {
			*problems = append(*problems, why)
		}
		if est := compact.Count(req.Messages, len(req.Messages), compact.FixedChars(req.System, req.Tools), 4).Tokens; est > window {
			*problems = append(*problems, fmt.Sprintf("a request of %d tokens, over the %d window", est, window))
			return llm.Message{}, &llm.Error{Code: llm.CodeContextOverflow, Message: "prompt is too long"}
		}
		step++
		if step > n {
			step = 0
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("done")}}, nil
		}
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(fmt.Sprintf("file %d", step)),
			llm.ToolCall(fmt.Sprintf("c%d", step), "read", fmt.Appendf(nil, `{"path":"src/legacy/f%03d.go"}`, step))}}, nil
	}}
	out := make([]faux.Reply, n+1)
	for i := range out {
		out[i] = reply
	}
	return out
}

// TestCompactionRepeatsFromKeptPart: a later compaction may keep from a
// message an earlier compaction kept (a long summary leaves little room
// for new messages before the threshold is crossed again). On a 16k
// window, with a summariser writing long summaries and large tool
// output, three prompts run to the end and the log holds several
// compactions, each naming a first kept entry the log holds.
func TestCompactionRepeatsFromKeptPart(t *testing.T) {
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 16_000, 2_000
	var mu sync.Mutex
	var problems []string
	var replies []faux.Reply
	for range 3 {
		replies = append(replies, readLoop(t, 12, model.ContextWindow, &problems, &mu)...)
	}
	long := strings.Repeat("the conversion of src/legacy/ is under way; ", 220) // ~1,100 tokens
	sum := &scriptSummarizer{name: "test/long", reply: func(compact.Request) (string, error) {
		return "## Goal\n" + longGoal + "\n## Progress\n" + long, nil
	}}
	f := newFixture(t, replies, func(o *Options) {
		o.Model = model
		o.Tools = registry(t, bigRead())
		o.NoGuards = true
		o.Stop.MaxTurns = -1
		o.Summarizers = []compact.Summarizer{sum}
		o.Context = compact.Settings{NoMasking: true}
	})
	var notices []string
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == EventContextNotice {
			notices = append(notices, e.Detail)
		}
		return nil
	})
	for i, p := range []string{longGoal, "go on with the next twelve", "and twelve more"} {
		res, err := f.h.Prompt(context.Background(), p)
		if err != nil || res.Stop != StopCompleted {
			t.Fatalf("prompt %d: %v, stop %s: %s; notices: %q", i+1, err, res.Stop, res.Detail, notices)
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems, first: %s", len(problems), problems[0])
	}
	checkCompactions(t, f.store.Entries(), 3)
	for _, n := range notices {
		t.Log(n)
	}
	t.Log(len(sum.requests()))
}

// checkCompactions fails unless entries hold at least min compactions,
// each with the goal verbatim and a first kept entry the log holds.
func checkCompactions(t *testing.T, entries []session.Entry, least int) {
	t.Helper()
	ids := map[string]bool{}
	n := 0
	for _, e := range entries {
		ids[e.ID] = true
		if e.Type != session.TypeCompaction {
			continue
		}
		n++
		if !strings.Contains(e.Summary, longGoal) {
			t.Fatalf("compaction %d lost the goal:\n%s", n, e.Summary)
		}
		if e.FirstKept != "" && !ids[e.FirstKept] {
			t.Fatalf("compaction %d keeps from %s, which the log does not hold before it", n, e.FirstKept)
		}
	}
	if n < least {
		t.Fatalf("%d compactions, want at least %d", n, least)
	}
}
