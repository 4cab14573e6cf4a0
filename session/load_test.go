package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

// writeSession writes a session with the given messages (a chain) and
// returns its path and entries.
func writeSession(t *testing.T, msgs ...string) (string, []Entry) {
	t.Helper()
	s := mustCreate(t, testOpts(t, t.TempDir()))
	var out []Entry
	for i, m := range msgs {
		msg := llm.UserText(m)
		if i%2 == 1 {
			msg = assistantText(m)
		}
		e, err := s.AppendMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Path(), out
}

func appendBytes(t *testing.T, path string, b string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func issueKinds(issues []LoadIssue) []string {
	var out []string
	for _, is := range issues {
		out = append(out, string(is.Kind))
	}
	return out
}

func TestTornLastLine(t *testing.T) {
	for _, torn := range []string{
		`{"type":"message","id":"zz","parent":"x","timestamp":"2026-05-14T10:00:00Z","mess`,
		`{`,
		"\x00\x00\x00\x00\x00\x00",
		`{"type":"message","id":"zz","message":{"role":"user","content":[]}}` + " trailing",
	} {
		t.Run(torn[:1], func(t *testing.T) {
			path, written := writeSession(t, "one", "two", "three")
			fi, _ := os.Stat(path)
			good := fi.Size()
			appendBytes(t, path, torn)

			// ReadFile reports it and changes nothing.
			_, entries, issues, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := []LoadIssue{{Kind: IssueTornLine, Line: 5, Offset: good, Detail: issues[0].Detail}}
			if diff := cmp.Diff(want, issues); diff != "" {
				t.Fatalf("issues (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(written, entries); diff != "" {
				t.Fatalf("entries (-want +got):\n%s", diff)
			}
			if fi, _ := os.Stat(path); fi.Size() != good+int64(len(torn)) {
				t.Fatal("ReadFile changed the file")
			}

			// Open sets it aside and truncates; new entries start on a
			// line of their own.
			s, err := Open(path, testOpts(t, ""))
			if err != nil {
				t.Fatal(err)
			}
			is := s.Issues()
			if len(is) != 1 || is[0].Kind != IssueTornLine || is[0].Sidecar == "" || !strings.HasPrefix(is[0].Sidecar, path+".torn-") {
				t.Fatalf("issues after open: %+v", is)
			}
			side, err := os.ReadFile(is[0].Sidecar)
			if err != nil || string(side) != torn {
				t.Fatalf("sidecar holds %q (%v), want %q", side, err, torn)
			}
			if fi, _ := os.Stat(path); fi.Size() != good {
				t.Fatalf("file is %d bytes, want %d", fi.Size(), good)
			}
			e, err := s.AppendMessage(llm.UserText("four"))
			if err != nil {
				t.Fatal(err)
			}
			if e.Parent != written[2].ID {
				t.Fatalf("new entry's parent %q", e.Parent)
			}
			s.Close()
			_, entries, issues, _ = ReadFile(path)
			if len(issues) != 0 || len(entries) != 4 {
				t.Fatalf("after append: %d entries, issues %v", len(entries), issues)
			}
		})
	}
}

func TestMissingFinalNewline(t *testing.T) {
	path, written := writeSession(t, "one", "two")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.TrimSuffix(b, []byte("\n")), 0o600) // as an editor might save it
	_, entries, issues, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"missing_newline"}, issueKinds(issues)); diff != "" {
		t.Fatal(diff)
	}
	if diff := cmp.Diff(written, entries); diff != "" {
		t.Fatalf("the last entry was lost (-want +got):\n%s", diff)
	}
	s, err := Open(path, testOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(llm.UserText("three")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, entries, issues, _ = ReadFile(path)
	if len(entries) != 3 || len(issues) != 0 {
		t.Fatalf("%d entries, issues %v", len(entries), issues)
	}
}

// TestCorruptMiddleLine damages one line in the middle of a chain: the
// issue names its line, and the entries after it stay on the branch.
func TestCorruptMiddleLine(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(line string) string
		wantIDs bool // whether the corrupt line's id could be salvaged
	}{
		{"payload cut", func(l string) string { return l[:len(l)/2] + `"}` }, true},
		{"garbled start", func(l string) string { return "#" + strings.Repeat("x", 20) + l[40:] }, false},
		{"not json at all", func(string) string { return "hello world" }, false},
		{"wrong payload shape", func(l string) string {
			return strings.Replace(l, `"message":{`, `"message":[{`, 1)[:len(l)] + "]}"
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, written := writeSession(t, "u1", "a1", "u2", "a2", "u3")
			b, _ := os.ReadFile(path)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			// Line 1 is the header; entry 3 ("u2") is line 4.
			lines[3] = tc.damage(lines[3])
			os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)

			s, err := Open(path, testOpts(t, ""))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			issues := s.Issues()
			if diff := cmp.Diff([]string{"corrupt_line", "reparented"}, issueKinds(issues)); diff != "" {
				t.Fatalf("issue kinds (-want +got):\n%s\n%v", diff, issues)
			}
			if issues[0].Line != 4 || !strings.Contains(issues[0].String(), "line 4") {
				t.Errorf("corrupt line reported as %v", issues[0])
			}
			if got := issues[0].ID; tc.wantIDs != (got == written[2].ID) {
				t.Errorf("salvaged id %q", got)
			}
			if issues[1].ID != written[3].ID || issues[1].Line != 5 {
				t.Errorf("reparent issue %+v", issues[1])
			}
			// a2 hangs under a1, the parent of the lost u2.
			if e, _ := s.Entry(written[3].ID); e.Parent != written[1].ID {
				t.Errorf("a2's parent is %q, want %q", e.Parent, written[1].ID)
			}
			var texts []string
			for _, m := range s.Context().Messages {
				texts = append(texts, m.Text())
			}
			if diff := cmp.Diff([]string{"u1", "a1", "a2", "u3"}, texts); diff != "" {
				t.Errorf("context (-want +got):\n%s", diff)
			}
			if s.Leaf() != written[4].ID {
				t.Errorf("leaf %q", s.Leaf())
			}
		})
	}
}

// TestCorruptLineOnAnotherBranch: when the corrupt line was a parent on
// a branch, its child attaches to the corrupt entry's own parent even if
// other entries were written in between.
func TestCorruptLineOnAnotherBranch(t *testing.T) {
	dir := t.TempDir()
	s := mustCreate(t, testOpts(t, dir))
	root, _ := s.AppendMessage(llm.UserText("root"))
	lost, _ := s.AppendMessage(assistantText("lost"))
	s.Navigate(root.ID)
	other, _ := s.AppendMessage(assistantText("other branch"))
	child := mustAppend(t, s, Entry{Type: TypeMessage, Parent: lost.ID, Message: ptr(llm.UserText("child of lost"))})
	s.Close()
	b, _ := os.ReadFile(s.Path())
	b = bytes.Replace(b, []byte(`"role":"assistant","content":[{"type":"text","text":"lost"}]`), []byte(`"role":`), 1)
	os.WriteFile(s.Path(), b, 0o600)

	_, entries, issues, err := ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"corrupt_line", "reparented"}, issueKinds(issues)); diff != "" {
		t.Fatal(diff)
	}
	got := BuildContext(entries, child.ID)
	if diff := cmp.Diff([]string{root.ID, child.ID}, got.EntryIDs); diff != "" {
		t.Errorf("child's path (-want +got):\n%s", diff)
	}
	if p := BuildContext(entries, other.ID).EntryIDs; len(p) != 2 {
		t.Errorf("other branch: %v", p)
	}
}

// TestDuplicateKeys: a line with its parent given twice means the last
// one, as encoding/json reads it; a missing last parent is repaired.
func TestDuplicateKeys(t *testing.T) {
	path, written := writeSession(t, "one", "two")
	appendBytes(t, path, `{"type":"custom","id":"c1","parent":"`+written[1].ID+`","parent":"gone","kind":"k"}`+"\n"+
		`{"type":"custom","id":"c2","parent":"gone","parent":"`+written[0].ID+`","kind":"k"}`+"\n")
	_, entries, issues, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"reparented"}, issueKinds(issues)); diff != "" || issues[0].ID != "c1" {
		t.Fatalf("issues %v", issues)
	}
	if entries[2].Parent != written[1].ID || entries[3].Parent != written[0].ID {
		t.Fatalf("parents %q %q", entries[2].Parent, entries[3].Parent)
	}
}

func TestDuplicateAndBadTarget(t *testing.T) {
	path, written := writeSession(t, "one", "two")
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	appendBytes(t, path, lines[2]+"\n"+`{"type":"leaf","id":"l1","target":"missing","timestamp":"2026-05-14T10:00:00Z"}`+"\n")
	_, entries, issues, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"duplicate_id", "bad_target"}, issueKinds(issues)); diff != "" {
		t.Fatalf("%s\n%v", diff, issues)
	}
	if len(entries) != 3 || LastLeaf(entries) != written[1].ID {
		t.Fatalf("%d entries, leaf %q", len(entries), LastLeaf(entries))
	}
}

// TestUnknownTypesAndFields loads entries from a newer version: unknown
// types in the middle of the path and unknown fields on known types. The
// context skips what it does not know, the chain resolves through them,
// and a fork writes them back byte for byte.
func TestUnknownTypesAndFields(t *testing.T) {
	path, written := writeSession(t, "one", "two")
	future := []string{
		`{"type":"reasoning_trace","id":"f1","parent":"` + written[1].ID + `","timestamp":"2026-05-14T10:00:01Z","trace":{"steps":[1,2,3]},"note":"ünïcode"}`,
		`{"type":"message","id":"f2","parent":"f1","timestamp":"2026-05-14T10:00:02Z","message":{"role":"user","content":[{"type":"text","text":"three","lang":"en"}],"priority":5},"origin":"mobile"}`,
		`{"type":"model_change","id":"f3","parent":"f2","timestamp":"2026-05-14T10:00:03Z","provider":"p","model":"m2","region":"eu"}`,
		`{"type":"message","id":"f4","parent":"f3","timestamp":"2026-05-14T10:00:04Z","message":{"role":"assistant","content":[{"type":"text","text":"four"}],"stop_reason":"stop"}}`,
	}
	appendBytes(t, path, strings.Join(future, "\n")+"\n")

	s, err := Open(path, testOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Issues()) != 0 {
		t.Fatalf("issues: %v", s.Issues())
	}
	c := s.Context()
	var texts []string
	for _, m := range c.Messages {
		texts = append(texts, m.Text())
	}
	if diff := cmp.Diff([]string{"one", "two", "three", "four"}, texts); diff != "" {
		t.Fatalf("context (-want +got):\n%s", diff)
	}
	if c.Model != "m2" || s.Leaf() != "f4" {
		t.Fatalf("model %q leaf %q", c.Model, s.Leaf())
	}
	for id, raw := range map[string]bool{"f1": true, "f2": true, "f3": true, "f4": false} {
		if e, _ := s.Entry(id); (e.Raw != nil) != raw {
			t.Errorf("%s: Raw = %s", id, e.Raw)
		}
	}

	f, err := s.Fork("f4", Options{Now: fixedNow, NewID: testOpts(t, "").NewID})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fb, _ := os.ReadFile(f.Path())
	for _, line := range future[:3] {
		if !bytes.Contains(fb, []byte("\n"+line+"\n")) {
			t.Errorf("fork lost the line byte for byte:\n%s\nfork:\n%s", line, fb)
		}
	}
	if diff := cmp.Diff(c, f.Context()); diff != "" {
		t.Errorf("fork context (-want +got):\n%s", diff)
	}
}

// TestForkReparentedUnknownEntry: an unknown entry whose parent was lost
// keeps its bytes in a fork except for the repaired parent.
func TestForkReparentedUnknownEntry(t *testing.T) {
	path, written := writeSession(t, "one")
	appendBytes(t, path, "this line is corrupt\n"+
		`{"type":"future","id":"f1","parent":"lostparent","x":{"b":1,"a":2}}`+"\n")
	s, err := Open(path, testOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := s.Fork("f1", Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, entries, issues, err := ReadFile(f.Path())
	if err != nil || len(issues) != 0 {
		t.Fatalf("%v %v", err, issues)
	}
	if len(entries) != 2 || entries[1].Parent != written[0].ID || !bytes.Contains(entries[1].Raw, []byte(`"x":{"b":1,"a":2}`)) {
		t.Fatalf("forked entries: %+v", entries)
	}
}

func TestHeaderProblems(t *testing.T) {
	dir := t.TempDir()
	header := `{"type":"session","version":1,"id":"x","created":"2026-05-14T10:00:00Z"}`
	tests := []struct {
		name     string
		content  string
		openErr  error
		readErr  error
		readKind []string
	}{
		{"empty file", "", ErrNotSession, ErrNotSession, nil},
		{"torn header", header[:30], ErrNotSession, ErrNotSession, nil},
		{"not a header", `{"type":"message","id":"a"}` + "\n", ErrNotSession, ErrNotSession, nil},
		{"no created time", `{"type":"session","version":1,"id":"x"}` + "\n", ErrNotSession, ErrNotSession, nil},
		{"no version", `{"type":"session","id":"x","created":"2026-05-14T10:00:00Z"}` + "\n", ErrNotSession, ErrNotSession, nil},
		{"newer version", `{"type":"session","version":2,"id":"x","created":"2026-05-14T10:00:00Z"}` + "\n", ErrVersion, nil, []string{"newer_version"}},
		{"header without newline", header, nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			os.WriteFile(path, []byte(tc.content), 0o600)
			_, _, issues, err := ReadFile(path)
			if !errors.Is(err, tc.readErr) || (err == nil) != (tc.readErr == nil) {
				t.Fatalf("ReadFile: %v, want %v", err, tc.readErr)
			}
			if diff := cmp.Diff(tc.readKind, issueKinds(issues)); diff != "" {
				t.Errorf("issues: %s", diff)
			}
			s, err := Open(path, Options{})
			if !errors.Is(err, tc.openErr) || (err == nil) != (tc.openErr == nil) {
				t.Fatalf("Open: %v, want %v", err, tc.openErr)
			}
			if s != nil {
				s.Close()
			}
			if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
				t.Errorf("a failed or closed Open left its lock file: %v", err)
			}
		})
	}
}

// TestPiSessionFile: pi's session files are a close cousin but not this
// format; loading one says so instead of misreading it.
func TestPiSessionFile(t *testing.T) {
	for _, name := range []string{"session-read-tool-then-followup.jsonl", "session-read-tool-error.jsonl"} {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := ReadFile(filepath.Join("..", "testdata", "sessions", "pi", name))
			if !errors.Is(err, ErrNotSession) || !strings.Contains(err.Error(), "pi") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestVeryLongLine(t *testing.T) {
	path, _ := writeSession(t, "one")
	s, err := Open(path, testOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("ab\"c\n", 200_000) // a 1 MB text, 1.2 MB of JSON
	e, err := s.AppendMessage(llm.ToolResult("c", "read", false, llm.Text(big)))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, entries, issues, err := ReadFile(path)
	if err != nil || len(issues) != 0 {
		t.Fatalf("%v %v", err, issues)
	}
	if len(entries) != 2 || entries[1].ID != e.ID || entries[1].Message.Text() != big {
		t.Fatal("the long entry did not survive")
	}
}

// TestTornTwiceSameClock: two torn lines set aside at the same instant get
// sidecars of their own.
func TestTornTwiceSameClock(t *testing.T) {
	path, _ := writeSession(t, "one")
	var sidecars []string
	for i := 0; i < 2; i++ {
		appendBytes(t, path, `{"type":"mess`)
		s, err := Open(path, Options{Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		sidecars = append(sidecars, s.Issues()[0].Sidecar)
		s.Close()
	}
	if sidecars[0] == sidecars[1] {
		t.Fatalf("both torn lines went to %s", sidecars[0])
	}
	for _, sc := range sidecars {
		if b, err := os.ReadFile(sc); err != nil || string(b) != `{"type":"mess` {
			t.Fatalf("sidecar %s: %q %v", sc, b, err)
		}
	}
}

// TestParallelLoad loads a file large enough to be decoded by workers,
// with damage in the middle and at the end, and checks that it loads
// exactly as a sequential read does.
func TestParallelLoad(t *testing.T) {
	if got := defaultReadOpts(parallelFrom).workers; (got > 0) != (runtime.GOMAXPROCS(0) > 1) {
		t.Fatalf("a %d-byte file is read by %d workers with GOMAXPROCS %d", parallelFrom, got, runtime.GOMAXPROCS(0))
	}
	if got := defaultReadOpts(parallelFrom - 1); got != (readOpts{}) {
		t.Fatalf("a small file is read with %+v", got)
	}
	path, size := writeBigSession(t, t.TempDir(), 1200)
	b, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[200] = []byte("{\"type\":\"message\",\"id\":\"broken\n")                    // corrupt
	lines[400] = append([]byte(nil), lines[399]...)                                   // duplicate id (its child loses its parent)
	lines[600] = []byte("\n")                                                         // blank (so does its child)
	lines[len(lines)-1] = []byte(`{"type":"message","id":"torn","parent":"x","messa`) // torn tail
	os.WriteFile(path, bytes.Join(lines, nil), 0o600)

	read := func(o readOpts) logSnapshot {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		l, err := readLogWith(f, path, size, o)
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, l)
		return snapshot(l)
	}
	seq := read(readOpts{})
	want := []string{"corrupt_line", "reparented", "duplicate_id", "reparented", "reparented", "torn_line"}
	if diff := cmp.Diff(want, issueKinds(seq.Issues)); diff != "" {
		t.Fatalf("issues (-want +got):\n%s", diff)
	}
	for _, o := range []readOpts{{workers: 2, block: 64 << 10}, {workers: 4, block: 4096}, {workers: 3, block: 100}} {
		if diff := cmp.Diff(seq, read(o)); diff != "" {
			t.Fatalf("reading with %+v differs from a sequential read (-sequential +parallel):\n%s", o, diff)
		}
	}
	s, err := Open(path, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := len(s.Entries()); got != len(seq.Entries) {
		t.Fatalf("Open loaded %d entries, want %d", got, len(seq.Entries))
	}
}
