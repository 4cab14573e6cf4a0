package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/redact"
)

func testHistory(t *testing.T, state string, r *redact.Redactor) *FileHistory {
	t.Helper()
	env := map[string]string{"XDG_STATE_HOME": state, "HOME": "/nonexistent"}
	h := OpenHistory(func(k string) string { return env[k] }, "/some/workspace", r)
	if h == nil {
		t.Fatal("no history")
	}
	return h
}

func TestTUIHistoryRoundTrip(t *testing.T) {
	state := t.TempDir()
	h := testHistory(t, state, nil)
	if got, err := h.Load(); err != nil || got != nil {
		t.Fatalf("a new history: %q, %v", got, err)
	}
	for _, p := range []string{"first", "line one\nline two", "line one\nline two", "/model sonnet", "<b> & \"q\""} {
		if err := h.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.HasPrefix(h.path, filepath.Join(state, "rein", "history")+string(filepath.Separator)) || !strings.HasSuffix(h.path, ".jsonl") {
		t.Fatalf("path %s", h.path)
	}
	got, err := testHistory(t, state, nil).Load()
	want := []string{"first", "line one\nline two", "/model sonnet", "<b> & \"q\""}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("loaded %q, %v", got, err)
	}
	// Another workspace has its own file.
	other := OpenHistory(func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] }, "/another", nil)
	if other.path == h.path {
		t.Fatal("two workspaces share a file")
	}
	// HOME without XDG_STATE_HOME, and off.
	home := OpenHistory(func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }, "/w", nil)
	if !strings.HasPrefix(home.path, "/home/u/.local/state/rein/history/") {
		t.Fatalf("path without XDG_STATE_HOME: %s", home.path)
	}
	if OpenHistory(func(k string) string { return map[string]string{"HOME": "/home/u", "REIN_HISTORY": "off"}[k] }, "/w", nil) != nil {
		t.Fatal("REIN_HISTORY=off kept a history")
	}
}

func TestTUIHistoryRedactsSecrets(t *testing.T) {
	state := t.TempDir()
	h := testHistory(t, state, redact.New("hunter2-very-secret"))
	key := "sk-ant-" + strings.Repeat("a1B2", 10)
	if err := h.Add("use the key " + key + " and hunter2-very-secret"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(h.path)
	if strings.Contains(string(b), key) || strings.Contains(string(b), "hunter2-very-secret") || !strings.Contains(string(b), redact.Mask) {
		t.Fatalf("the file holds %s", b)
	}
	if fi, _ := os.Stat(h.path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestTUIHistoryCorruptFile(t *testing.T) {
	state := t.TempDir()
	h := testHistory(t, state, nil)
	os.MkdirAll(filepath.Dir(h.path), 0o700)
	os.WriteFile(h.path, []byte("{\"text\":\"good\",\"time\":\"2026-01-01T00:00:00Z\"}\nnot json\n\x00\x01\n{\"text\":\"also good\"}\n{\"text\":\"torn"), 0o600)
	got, err := h.Load()
	if err == nil || !strings.Contains(err.Error(), "skipped 3 damaged lines") || fmt.Sprint(got) != "[good also good]" {
		t.Fatalf("loaded %q, %v", got, err)
	}
	// A new prompt after the torn line is a line of its own.
	if err := h.Add("new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := testHistory(t, state, nil).Load(); fmt.Sprint(got) != "[good also good new]" {
		t.Fatalf("after a torn line: %q", got)
	}
	// An unreadable history (a directory here) is an error, not a stop.
	os.Remove(h.path)
	os.Mkdir(h.path, 0o700)
	h2 := testHistory(t, state, nil)
	if got, err := h2.Load(); err == nil || got != nil {
		t.Fatalf("a directory loaded: %q, %v", got, err)
	}
	if err := h2.Add("x"); err == nil {
		t.Fatal("added to a directory")
	}
}

func TestTUIHistoryBound(t *testing.T) {
	state := t.TempDir()
	h := testHistory(t, state, nil)
	h.keep = 10
	for i := range 21 {
		if err := h.Add(fmt.Sprint("p", i)); err != nil {
			t.Fatal(err)
		}
	}
	// 21 lines is more than twice 10: cut back to the last 10.
	b, _ := os.ReadFile(h.path)
	if n := strings.Count(string(b), "\n"); n != 10 || !strings.HasPrefix(string(b), `{"text":"p11"`) {
		t.Fatalf("%d lines after compaction:\n%s", n, b)
	}
	for i := 21; i < 25; i++ {
		h.Add(fmt.Sprint("p", i))
	}
	h2 := testHistory(t, state, nil)
	h2.keep = 10
	got, err := h2.Load()
	if err != nil || len(got) != 10 || got[0] != "p15" || got[9] != "p24" {
		t.Fatalf("loaded %q, %v", got, err)
	}
}

func TestTUIHistoryConcurrentAppends(t *testing.T) {
	state := t.TempDir()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := testHistory(t, state, nil)
			h.keep = 15
			for i := range 40 {
				if err := h.Add(fmt.Sprintf("w%d-%d %s", w, i, strings.Repeat("x", 3000))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got, err := testHistory(t, state, nil).Load()
	if err != nil || len(got) == 0 {
		t.Fatalf("after concurrent appends: %d prompts, %v", len(got), err)
	}
}
