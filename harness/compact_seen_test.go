package harness

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

// TestSummariserSeesTheMaskedView: the summariser is sent the context as
// the model saw it — masked tool output as its stub, not the output —
// and what it is sent is close to the size of what it replaces.
func TestSummariserSeesTheMaskedView(t *testing.T) {
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 16_000, 2_000
	var mu sync.Mutex
	var problems []string
	sum := &scriptSummarizer{name: "test/s", reply: func(r compact.Request) (string, error) {
		return "## Goal\n" + longGoal + "\n## Progress\nsome files of src/legacy/ converted", nil
	}}
	f := newFixture(t, readLoop(t, 150, model.ContextWindow, &problems, &mu), func(o *Options) {
		o.Model = model
		o.Tools = registry(t, bigRead())
		o.NoGuards = true
		o.Stop.MaxTurns = -1
		o.Summarizers = []compact.Summarizer{sum}
		o.Context = compact.Settings{Soft: 0.3, Hard: 0.45}
	})
	if res, err := f.prompt(t, longGoal); err != nil || res.Stop != StopCompleted {
		t.Fatalf("run: %v %s", err, res.Detail)
	}
	if len(problems) > 0 {
		t.Fatal(problems[0])
	}
	reqs := sum.requests()
	if len(reqs) == 0 {
		t.Fatal("no compaction")
	}
	for _, r := range reqs {
		if !strings.Contains(r.Prompt, "[output elided to save context: read") {
			t.Fatalf("the summariser was not sent the stubs the model saw:\n%.2000s", r.Prompt)
		}
		// A masked read's output is 6,000 characters of "content of …";
		// only the kept turns' output may appear, a few times at most.
		if n := strings.Count(r.Prompt, "content of src/legacy/"); n > 3*500 {
			t.Fatalf("the summariser was sent %d lines of masked output", n)
		}
	}
	in, replaced := 0, 0
	for _, e := range f.store.Entries() {
		if e.Type == session.TypeCustom && e.Kind == KindCompactionReport {
			rep := decodeReport(t, e)
			in += rep.SummarizerInput
			replaced += rep.Replaced
		}
	}
	ratio := float64(in) / float64(replaced)
	t.Logf("%d compactions: summariser input %d tokens for %d replaced: %.2f", len(reqs), in, replaced, ratio)
	if replaced == 0 || ratio > 1.2 {
		t.Fatalf("summariser input ÷ tokens replaced = %.2f (%d / %d), want ≤ 1.2", ratio, in, replaced)
	}
}

// hiddenStore is a store that cannot look entries up: a compaction
// cannot name its first kept entry.
type hiddenStore struct{ Store }

// TestCannotCompactGoesOnMasking: when no compaction can be written (the
// store cannot name the entry to keep from), the run is not ended: it
// says so once and goes on with masking, every request inside the window.
func TestCannotCompactGoesOnMasking(t *testing.T) {
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 16_000, 2_000
	var mu sync.Mutex
	var problems []string
	f := newFixture(t, readLoop(t, 150, model.ContextWindow, &problems, &mu), func(o *Options) {
		o.Model = model
		o.Tools = registry(t, bigRead())
		o.NoGuards = true
		o.Stop.MaxTurns = -1
		o.Store = hiddenStore{o.Store}
		o.Context = compact.Settings{Soft: 0.3, Hard: 0.45}
	})
	var notices []string
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == EventContextNotice {
			notices = append(notices, e.Detail)
		}
		return nil
	})
	res, err := f.prompt(t, longGoal)
	if err != nil || res.Stop != StopCompleted {
		t.Fatalf("the run ended: %v %s; notices %q", err, res.Detail, notices)
	}
	if len(problems) > 0 {
		t.Fatal(problems[0])
	}
	if len(notices) == 0 || !strings.Contains(notices[0], "goes on with masking") {
		t.Fatalf("notices = %q", notices)
	}
	if len(compactions(f.store)) != 0 {
		t.Fatal("a compaction was written without its first kept entry")
	}
}

func decodeReport(t *testing.T, e session.Entry) CompactionReport {
	t.Helper()
	var rep CompactionReport
	if err := json.Unmarshal(e.Data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}
