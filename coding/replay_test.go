package coding

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm/catalog"
)

// TestRecordedModel finds the last plausible model id under a model key
// at any depth, ignores prose, and gives "" for a missing file.
func TestRecordedModel(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rec.jsonl")
	body := `{"type":"x","message":{"model":"claude-sonnet-4-5-20250929"}}
{"info":{"config":{"model":{"model_name":"gpt-5.1"}}}}
{"model":"a sentence with 2 spaces"}
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := RecordedModel(p); got != "gpt-5.1" {
		t.Errorf("RecordedModel = %q, want gpt-5.1", got)
	}
	if got := RecordedModel(filepath.Join(dir, "none")); got != "" {
		t.Errorf("missing file: %q", got)
	}
}

// TestRecordedWindow resolves a provider-prefixed, dated model id to the
// catalog's window and refuses one the catalog does not know.
func TestRecordedWindow(t *testing.T) {
	cat := catalog.New(catalog.Options{})
	m, ok := recordedWindow(cat, "openrouter/anthropic/claude-sonnet-4-5-20250929")
	if !ok || m.ContextWindow != 200_000 {
		t.Errorf("dated id: %v %d", ok, m.ContextWindow)
	}
	if _, ok := recordedWindow(cat, "no-such-model-7"); ok {
		t.Error("unknown model resolved")
	}
	if _, ok := recordedWindow(cat, ""); ok {
		t.Error("empty id resolved")
	}
}

// TestContextReplayer replays one neutral recording at a given window,
// at the assumed window when it names no model, and reports a file that
// is no recording.
func TestContextReplayer(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "calls.jsonl")
	body := `{"turn":1,"tool":"bash","args":{"command":"ls"},"result":"a.txt b.txt"}
{"turn":2,"tool":"read","args":{"path":"a.txt"},"result":"hello"}
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &ContextReplayer{Window: 8000}
	got, err := r.Replay(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != "neutral" || got.Window != 8000 || got.WindowFrom != WindowFromFlag || got.Budget.Window != 8000 || len(got.Turns) == 0 {
		t.Errorf("flag window: %+v", got)
	}
	got, err = (&ContextReplayer{}).Replay(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.WindowFrom != WindowFromAssumed || got.Window != compact.AssumedWindow || got.Model != "" {
		t.Errorf("no model: from %q window %d model %q", got.WindowFrom, got.Window, got.Model)
	}
	junk := filepath.Join(dir, "junk.txt")
	os.WriteFile(junk, []byte("not a recording"), 0o644)
	if _, err := r.Replay(junk); err == nil {
		t.Error("junk replayed without an error")
	}
}
