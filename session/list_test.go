package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinhq/rein/llm"
)

func TestList(t *testing.T) {
	workspace := t.TempDir()
	dir := DefaultDir(workspace)
	if dir != filepath.Join(workspace, ".rein", "sessions") {
		t.Fatalf("DefaultDir = %s", dir)
	}
	if got, err := List(dir); err != nil || got != nil {
		t.Fatalf("List of a missing dir: %v %v", got, err)
	}
	base := time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)
	mk := func(id string, created time.Time, modified time.Time, build func(s *Session)) Info {
		s, err := Create(Options{Cwd: workspace, SessionID: id, Now: func() time.Time { return created }})
		if err != nil {
			t.Fatal(err)
		}
		build(s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(s.Path(), modified, modified); err != nil {
			t.Fatal(err)
		}
		return Info{Path: s.Path(), ID: id, Created: created, Modified: modified, Cwd: workspace}
	}
	a := mk("aaaa1111", base, base.Add(3*time.Hour), func(s *Session) {
		s.AppendMessage(llm.UserText("  fix the\n\tflaky   test  "))
		s.AppendMessage(assistantText("done"))
		s.SetName("flaky test")
	})
	a.Name, a.Entries, a.Messages, a.FirstMessage = "flaky test", 3, 2, "fix the flaky test"
	b := mk("bbbb2222", base.Add(time.Hour), base.Add(time.Hour), func(s *Session) {
		s.Append(Entry{Type: TypeModelChange, Model: "m"})
	})
	b.Entries, b.Issues = 1, 1 // the torn line appended below
	long := make([]rune, 300)
	for i := range long {
		long[i] = 'é'
	}
	c := mk("cccc3333", base.Add(2*time.Hour), base.Add(3*time.Hour), func(s *Session) {
		s.AppendMessage(assistantText("no user message first"))
		s.AppendMessage(llm.UserText(string(long)))
	})
	c.Entries, c.Messages, c.FirstMessage = 2, 2, string(long[:PreviewLen-1])+"…"
	appendBytes(t, c.Path, "not json\n{\"type\":\"custom\",\"id\":\"x1\",\"kind\":\"k\"\n") // two damaged lines
	os.Chtimes(c.Path, c.Modified, c.Modified)
	c.Issues = 2
	// A fork, and things that are not sessions.
	src, _ := Open(a.Path, Options{})
	f, err := src.Fork(src.Leaf(), Options{SessionID: "dddd4444", Now: func() time.Time { return base }})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	src.Close()
	os.Chtimes(f.Path(), base, base)
	d := Info{Path: f.Path(), ID: "dddd4444", Created: base, Modified: base, Cwd: workspace, Parent: "aaaa1111", Entries: 2, Messages: 2, FirstMessage: "fix the flaky test"}
	// A torn last line is not counted.
	appendBytes(t, b.Path, `{"type":"message","id":"x","message":{"role":"user","content":[]}}`[:40])
	os.Chtimes(b.Path, b.Modified, b.Modified)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi"), 0o600)
	os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte("not a session\n"), 0o600)
	os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o700)

	got, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first: by modification time, then creation time.
	want := []Info{c, a, b, d}
	if diff := cmp.Diff(want, got, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
	// Another workspace's sessions are elsewhere.
	if other, _ := List(DefaultDir(t.TempDir())); len(other) != 0 {
		t.Fatalf("another workspace lists %d sessions", len(other))
	}

	for _, tc := range []struct {
		id   string
		want string
		err  error
	}{
		{"bbbb2222", "bbbb2222", nil},
		{"cc", "cccc3333", nil},
		{"zz", "", fs.ErrNotExist},
	} {
		info, err := Find(dir, tc.id)
		if info.ID != tc.want || !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
			t.Errorf("Find(%q) = %q, %v", tc.id, info.ID, err)
		}
	}
	s, _ := Create(Options{Dir: dir, SessionID: "cccc9999"})
	s.Close()
	if _, err := Find(dir, "cccc"); err == nil {
		t.Error("an ambiguous prefix was accepted")
	}
}
