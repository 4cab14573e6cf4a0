package session

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/reinhq/rein/llm"
)

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	goleak.VerifyTestMain(m)
}

// testOpts returns options with a fixed clock and sequential ids.
func testOpts(t *testing.T, dir string) Options {
	t.Helper()
	var n atomic.Int64
	base := time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)
	var tick atomic.Int64
	return Options{
		Dir:       dir,
		Cwd:       "/work/project",
		SessionID: "0123456789abcdef",
		Now:       func() time.Time { return base.Add(time.Duration(tick.Add(1)) * time.Millisecond) },
		NewID:     func() string { return fmt.Sprintf("e%07d", n.Add(1)) },
	}
}

func mustCreate(t *testing.T, opts Options) *Session {
	t.Helper()
	s, err := Create(opts)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func mustAppend(t *testing.T, s *Session, e Entry) Entry {
	t.Helper()
	got, err := s.Append(e)
	if err != nil {
		t.Fatalf("Append(%s): %v", e.Type, err)
	}
	return got
}

func TestCreateAppendReopen(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir)
	s := mustCreate(t, opts)
	mustAppend(t, s, Entry{Type: TypeModelChange, Provider: "faux", Model: "m1"})
	u, err := s.AppendMessage(llm.UserText("hello"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("hi")}, StopReason: llm.StopEnd})
	if err != nil {
		t.Fatal(err)
	}
	if a.Parent != u.ID || s.Leaf() != a.ID {
		t.Fatalf("parent %q leaf %q, want %q %q", a.Parent, s.Leaf(), u.ID, a.ID)
	}
	want := s.Context()
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir {
		t.Fatalf("path %s not in %s", path, dir)
	}
	r, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff(want, r.Context()); diff != "" {
		t.Fatalf("context after reopen (-want +got):\n%s", diff)
	}
	if len(r.Issues()) != 0 {
		t.Fatalf("issues: %v", r.Issues())
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("lock file: %v", err)
	}
}
