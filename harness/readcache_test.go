package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// TestReadCacheReferencesStayVisible runs a long session through a small
// window with the guards on while the model re-reads the same four files
// over and over. The read cache answers a re-read by pointing at the
// earlier result; masking and compaction remove earlier results. Every
// request must hold, for each such reference, the earlier result in full.
func TestReadCacheReferencesStayVisible(t *testing.T) {
	const turns = 120
	dir := t.TempDir()
	files := []string{"a.go", "b.go", "c.go", "d.go"}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := faux.Model()
	model.ContextWindow, model.MaxOutput = 24_000, 2_000
	var mu sync.Mutex
	var problems []string
	refs, step := 0, 0
	reply := faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		refs += checkReferences(req.Messages, &problems)
		step++
		if step > turns {
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("done")}}, nil
		}
		// Re-read each file every other turn, in pairs, so that most
		// re-reads fall inside the cache's six turns.
		path := files[(step/2)%2*2+step%2]
		m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(fmt.Sprintf("step %d", step)),
			llm.ToolCall(fmt.Sprintf("c%d", step), "read", []byte(`{"path":"`+path+`"}`))}}
		return m, nil
	}}
	replies := make([]faux.Reply, turns+1)
	for i := range replies {
		replies[i] = reply
	}
	f := newFixture(t, replies, func(o *Options) {
		o.Model = model
		o.Tools = registry(t, bigRead())
		o.Guard = guard.New(guard.Options{Workdir: dir, Tools: []string{"read"}})
		o.Stop.MaxTurns = -1
		o.Summarizers = []compact.Summarizer{&scriptSummarizer{name: "test/summariser"}}
	})
	res, err := f.h.Prompt(context.Background(), "read the files again and again")
	if err != nil {
		t.Fatalf("run failed: %v (%s)", err, res.Detail)
	}
	if len(problems) > 0 {
		t.Fatalf("%d references to results the model no longer sees; first: %s", len(problems), problems[0])
	}
	masks := 0
	for _, e := range f.store.Entries() {
		if e.Kind == KindMask {
			masks++
		}
	}
	if refs < 20 || masks == 0 {
		t.Fatalf("%d references and %d masking decisions: the test did not exercise both", refs, masks)
	}
}

// checkReferences counts the read-cache references of the latest turn in
// a request (the turn that made them) and notes each whose earlier result
// is not in the request in full. (Later, masking may elide the earlier
// result like any old output; the reference is old output by then too.)
func checkReferences(msgs []llm.Message, problems *[]string) int {
	n := 0
	latest := len(msgs)
	for latest > 0 && msgs[latest-1].Role == llm.RoleToolResult {
		latest--
	}
	args := map[string]string{} // call id → arguments
	full := map[string]bool{}   // arguments whose full result came before
	for i, m := range msgs {
		for _, c := range m.Content {
			if c.Type == llm.ContentToolCall {
				args[c.ID] = string(c.Arguments)
			}
		}
		if m.Role != llm.RoleToolResult {
			continue
		}
		a := args[m.ToolCallID]
		text := m.Text()
		switch {
		case strings.HasPrefix(text, "[guard read_cache]") && i >= latest:
			n++
			if !full[a] {
				*problems = append(*problems, fmt.Sprintf("%s answered %q, but no full result of it is in the request", a, text))
			}
		case strings.HasPrefix(text, "content of "):
			full[a] = true
		}
	}
	return n
}
