package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	llmtest.QuickMinimize()
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

// TestEntryRoundTrip encodes every entry type and decodes it back.
func TestEntryRoundTrip(t *testing.T) {
	for _, e := range everyEntryType() {
		t.Run(string(e.Type)+"/"+e.ID, func(t *testing.T) {
			var enc encoder
			line, err := enc.entryLine(&e)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(line, []byte("\n")); n != 1 || line[len(line)-1] != '\n' {
				t.Fatalf("entry is not one line: %q", line)
			}
			got, err := DecodeEntry(line[:len(line)-1])
			if err != nil {
				t.Fatal(err)
			}
			if got.Raw != nil {
				t.Errorf("an entry this version wrote kept its raw line: %s", got.Raw)
			}
			if diff := cmp.Diff(e, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAppendEveryTypeAndReload appends one entry of each type through a
// session and checks that the file reloads to the same entries.
func TestAppendEveryTypeAndReload(t *testing.T) {
	s := mustCreate(t, testOpts(t, t.TempDir()))
	var want []Entry
	for _, e := range everyEntryType() {
		want = append(want, mustAppend(t, s, e))
	}
	if diff := cmp.Diff(want, s.Entries()); diff != "" {
		t.Fatalf("in memory (-appended +entries):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	h, got, issues, err := ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 0 {
		t.Fatalf("issues: %v", issues)
	}
	wantHeader := Header{Type: HeaderType, Version: FormatVersion, ID: "0123456789abcdef", Created: h.Created, Cwd: "/work/project"}
	if diff := cmp.Diff(wantHeader, h); diff != "" || h.Created.IsZero() {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("reloaded (-appended +file):\n%s", diff)
	}
}

func TestAppendFillsAndMovesLeaf(t *testing.T) {
	opts := testOpts(t, t.TempDir())
	s := mustCreate(t, opts)
	a := mustAppend(t, s, Entry{Type: TypeMessage, Message: ptr(llm.UserText("a"))})
	if a.ID != "e0000001" || a.Parent != "" || a.Timestamp.IsZero() || a.Timestamp.Location() != time.UTC {
		t.Fatalf("filled entry: %+v", a)
	}
	b := mustAppend(t, s, Entry{Type: TypeModelChange, Provider: "p", Model: "m"})
	tests := []struct {
		name       string
		e          Entry
		wantParent string
		wantLeaf   func(Entry) string
	}{
		{"tree entry under the leaf", Entry{Type: TypeCustom, Kind: "k"}, b.ID, func(e Entry) string { return e.ID }},
		{"label keeps the leaf", Entry{Type: TypeLabel, Target: a.ID, Label: "start"}, "", nil},
		{"session_info keeps the leaf", Entry{Type: TypeSessionInfo, Name: "n"}, "", nil},
		{"explicit parent branches", Entry{Type: TypeMessage, Parent: a.ID, Message: ptr(llm.UserText("b"))}, a.ID, func(e Entry) string { return e.ID }},
		{"leaf entry moves the leaf to its target", Entry{Type: TypeLeaf, Target: a.ID}, "", func(Entry) string { return a.ID }},
		{"leaf entry to the root", Entry{Type: TypeLeaf}, "", func(Entry) string { return "" }},
		{"a new root", Entry{Type: TypeMessage, Message: ptr(llm.UserText("c"))}, "", func(e Entry) string { return e.ID }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := s.Leaf()
			got := mustAppend(t, s, tc.e)
			wantParent := tc.wantParent
			if wantParent == "" {
				wantParent = before
			}
			if got.Parent != wantParent {
				t.Errorf("parent %q, want %q", got.Parent, wantParent)
			}
			wantLeaf := before
			if tc.wantLeaf != nil {
				wantLeaf = tc.wantLeaf(got)
			}
			if s.Leaf() != wantLeaf {
				t.Errorf("leaf %q, want %q", s.Leaf(), wantLeaf)
			}
		})
	}
}

func TestAppendRejects(t *testing.T) {
	s := mustCreate(t, testOpts(t, t.TempDir()))
	a := mustAppend(t, s, Entry{Type: TypeMessage, Message: ptr(llm.UserText("a"))})
	lbl := mustAppend(t, s, Entry{Type: TypeLabel, Target: a.ID, Label: "x"})
	tests := []struct {
		name string
		e    Entry
		want error
	}{
		{"no type", Entry{}, ErrInvalidEntry},
		{"unknown type", Entry{Type: "future"}, ErrInvalidEntry},
		{"message without message", Entry{Type: TypeMessage}, ErrInvalidEntry},
		{"message with a bad role", Entry{Type: TypeMessage, Message: &llm.Message{Role: "system"}}, ErrInvalidEntry},
		{"model change without model", Entry{Type: TypeModelChange, Provider: "p"}, ErrInvalidEntry},
		{"bad thinking level", Entry{Type: TypeThinkingChange, Thinking: "extreme"}, ErrInvalidEntry},
		{"compaction without summary", Entry{Type: TypeCompaction}, ErrInvalidEntry},
		{"compaction keeping a missing entry", Entry{Type: TypeCompaction, Summary: "s", FirstKept: "nope"}, ErrInvalidEntry},
		{"branch summary without summary", Entry{Type: TypeBranchSummary}, ErrInvalidEntry},
		{"custom without kind", Entry{Type: TypeCustom}, ErrInvalidEntry},
		{"duplicate id", Entry{Type: TypeCustom, Kind: "k", ID: a.ID}, ErrInvalidEntry},
		{"missing parent", Entry{Type: TypeCustom, Kind: "k", Parent: "nope"}, ErrNotFound},
		{"side entry as parent", Entry{Type: TypeCustom, Kind: "k", Parent: lbl.ID}, ErrNotFound},
		{"navigate to a missing entry", Entry{Type: TypeLeaf, Target: "nope"}, ErrNotFound},
		{"navigate to a label", Entry{Type: TypeLeaf, Target: lbl.ID}, ErrNotFound},
		{"label a missing entry", Entry{Type: TypeLabel, Target: "nope", Label: "x"}, ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := len(s.Entries())
			_, err := s.Append(tc.e)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if len(s.Entries()) != n {
				t.Fatal("a rejected entry was added")
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(llm.UserText("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	_, entries, _, _ := ReadFile(s.Path())
	if len(entries) != 2 {
		t.Fatalf("file has %d entries, want 2", len(entries))
	}
}

func TestNavigateReopenRestoresLeaf(t *testing.T) {
	opts := testOpts(t, t.TempDir())
	s := mustCreate(t, opts)
	u1, _ := s.AppendMessage(llm.UserText("first"))
	a1, _ := s.AppendMessage(assistantText("one"))
	u2, _ := s.AppendMessage(llm.UserText("second"))
	mustAppend(t, s, Entry{Type: TypeLabel, Target: u2.ID, Label: "after"}) // side entries after the navigation must not move the leaf
	for _, tc := range []struct {
		name   string
		target string
		msgs   int
	}{
		{"back to the first answer", a1.ID, 2},
		{"to the first prompt", u1.ID, 1},
		{"before everything", "", 0},
		{"forward again", u2.ID, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Navigate(tc.target); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, s, Entry{Type: TypeSessionInfo, Name: tc.name})
			path := s.Path()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			s = r
			if r.Leaf() != tc.target {
				t.Fatalf("leaf after reopen %q, want %q", r.Leaf(), tc.target)
			}
			if n := len(r.Context().Messages); n != tc.msgs {
				t.Fatalf("%d messages, want %d", n, tc.msgs)
			}
			if r.Name() != tc.name {
				t.Fatalf("name %q", r.Name())
			}
		})
	}
	s.Close()
	if err := s.Navigate(u1.ID); !errors.Is(err, ErrClosed) {
		t.Fatalf("navigate after close: %v", err)
	}
}

func TestLabels(t *testing.T) {
	opts := testOpts(t, t.TempDir())
	s := mustCreate(t, opts)
	a, _ := s.AppendMessage(llm.UserText("a"))
	b, _ := s.AppendMessage(assistantText("b"))
	steps := []struct {
		id, label string
		want      map[string]string
	}{
		{a.ID, "start", map[string]string{a.ID: "start"}},
		{b.ID, "answer", map[string]string{a.ID: "start", b.ID: "answer"}},
		{a.ID, "renamed", map[string]string{a.ID: "renamed", b.ID: "answer"}},
		{b.ID, "", map[string]string{a.ID: "renamed"}},
	}
	for _, st := range steps {
		if err := s.Label(st.id, st.label); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, s.Labels()); diff != "" {
			t.Fatalf("labels (-want +got):\n%s", diff)
		}
	}
	if s.Leaf() != b.ID {
		t.Fatalf("labels moved the leaf to %q", s.Leaf())
	}
	s.Close()
	r, err := Open(s.Path(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff(steps[len(steps)-1].want, r.Labels()); diff != "" {
		t.Fatalf("labels after reopen (-want +got):\n%s", diff)
	}
}

func TestFork(t *testing.T) {
	dir := t.TempDir()
	opts := testOpts(t, dir)
	s := mustCreate(t, opts)
	mustAppend(t, s, Entry{Type: TypeModelChange, Provider: "p", Model: "m1"})
	u1, _ := s.AppendMessage(llm.UserText("one"))
	a1, _ := s.AppendMessage(assistantText("reply one"))
	s.AppendMessage(llm.UserText("two"))
	s.AppendMessage(assistantText("reply two"))
	s.Label(u1.ID, "start")
	s.Label(s.Leaf(), "end") // not on the forked path
	s.SetName("original")
	wantCtx := BuildContext(s.Entries(), a1.ID)
	wantPath, _ := s.Branch(a1.ID)

	fopts := testOpts(t, "")
	fopts.SessionID = "fedcba9876543210"
	f, err := s.Fork(a1.ID, fopts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if filepath.Dir(f.Path()) != dir || f.Path() == s.Path() {
		t.Fatalf("fork path %s", f.Path())
	}
	h := f.Header()
	if h.Parent != s.ID() || h.ParentPath != s.Path() || h.ID != "fedcba9876543210" || h.Cwd != "/work/project" {
		t.Fatalf("fork header %+v", h)
	}
	if f.Leaf() != a1.ID {
		t.Fatalf("fork leaf %q, want %q", f.Leaf(), a1.ID)
	}
	if diff := cmp.Diff(wantCtx, f.Context()); diff != "" {
		t.Fatalf("fork context (-want +got):\n%s", diff)
	}
	gotPath, _ := f.Branch(a1.ID)
	if diff := cmp.Diff(wantPath, gotPath); diff != "" {
		t.Fatalf("fork path (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{u1.ID: "start"}, f.Labels()); diff != "" {
		t.Fatalf("fork labels (-want +got):\n%s", diff)
	}
	if f.Name() != "" {
		t.Fatalf("fork inherited the name %q", f.Name())
	}
	// The fork is a session of its own.
	if _, err := f.AppendMessage(llm.UserText("in the fork")); err != nil {
		t.Fatal(err)
	}
	if len(s.Context().Messages) != 4 {
		t.Fatal("appending to the fork changed the original")
	}
	if _, err := s.Fork("nope", fopts); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fork at a missing entry: %v", err)
	}
	empty, err := s.Fork("", Options{Now: opts.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if len(empty.Entries()) != 0 || empty.Leaf() != "" {
		t.Fatalf("empty fork has %d entries", len(empty.Entries()))
	}
}

func TestConcurrentAppends(t *testing.T) {
	s := mustCreate(t, Options{Dir: t.TempDir(), Sync: SyncBatch})
	const workers, each = 4, 50
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := s.AppendMessage(llm.UserText(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
				_ = s.Context()
				_ = s.Leaf()
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, entries, issues, err := ReadFile(s.Path())
	if err != nil || len(issues) != 0 {
		t.Fatalf("err %v issues %v", err, issues)
	}
	if len(entries) != workers*each {
		t.Fatalf("%d entries", len(entries))
	}
	if n := len(BuildContext(entries, LastLeaf(entries)).Messages); n != workers*each {
		t.Fatalf("the appends do not form one chain: %d messages on the path", n)
	}
}

func ptr[T any](v T) *T { return &v }

func assistantText(s string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(s)}, StopReason: llm.StopEnd, Provider: "faux", Model: "m", API: llm.APIFaux}
}

// TestRepeatingNewID: an ID source that repeats itself cannot make two
// entries share an ID.
func TestRepeatingNewID(t *testing.T) {
	opts := testOpts(t, t.TempDir())
	opts.NewID = func() string { return "same" }
	s := mustCreate(t, opts)
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		e, err := s.AppendMessage(llm.UserText("x"))
		if err != nil {
			t.Fatal(err)
		}
		if seen[e.ID] || e.ID == "" {
			t.Fatalf("id %q used twice", e.ID)
		}
		seen[e.ID] = true
	}
	s.Label(s.Leaf(), "l")
	f, err := s.Fork(s.Leaf(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Labels()) != 1 {
		t.Fatalf("fork labels %v", f.Labels())
	}
}

func TestWorkItemsEntryIsASideEntry(t *testing.T) {
	s, err := Create(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := s.AppendMessage(llm.UserText("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(Entry{Type: TypeWorkItems, Items: json.RawMessage(`{"id":"1"}`)}); !errors.Is(err, ErrInvalidEntry) {
		t.Fatalf("an object for items: %v", err)
	}
	if _, err := s.Append(Entry{Type: TypeWorkItems}); !errors.Is(err, ErrInvalidEntry) {
		t.Fatalf("no items: %v", err)
	}
	if _, err := s.Append(Entry{Type: TypeWorkItems, Items: json.RawMessage(`[{"id":"1","title":"a","status":"pending"}]`)}); err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != m.ID {
		t.Fatal("a work_items entry moved the leaf")
	}
	if got := string(s.WorkItems()); got != `[{"id":"1","title":"a","status":"pending"}]` {
		t.Fatalf("WorkItems = %s", got)
	}
}
