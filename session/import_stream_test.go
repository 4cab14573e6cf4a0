package session

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

func importedEntries() []Entry {
	t0 := time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)
	u, a := llm.UserText("hi"), llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("hello")}}
	return []Entry{
		{Type: TypeMessage, ID: "a1", Timestamp: t0, Message: &u},
		{Type: TypeMessage, ID: "a2", Parent: "a1", Timestamp: t0.Add(time.Second), Message: &a},
		{Type: TypeSessionInfo, ID: "a3", Parent: "a2", Timestamp: t0.Add(time.Second), Name: "greeting"},
	}
}

func seqOf(es []Entry, err error) func(func(*Entry, error) bool) {
	return func(yield func(*Entry, error) bool) {
		for i := range es {
			if !yield(&es[i], nil) {
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}

// WriteImported writes what CreateImported writes, from a stream.
func TestWriteImportedStreams(t *testing.T) {
	dir := t.TempDir()
	src := Source{Format: "pi", Version: "3", ID: "x", Path: "/a/b.jsonl"}
	path, id, err := WriteImported(Options{Dir: dir, Cwd: "/w"}, src, seqOf(importedEntries(), nil))
	if err != nil {
		t.Fatal(err)
	}
	h, entries, issues, err := ReadFile(path)
	if err != nil || len(issues) > 0 {
		t.Fatal(err, issues)
	}
	if h.ID != id || h.Source == nil || *h.Source != src || h.Cwd != "/w" {
		t.Fatalf("header %+v", h)
	}
	if !reflect.DeepEqual(entries, importedEntries()) {
		t.Fatalf("entries %+v", entries)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Context().Messages; len(got) != 2 || got[1].Text() != "hello" {
		t.Fatalf("context %+v", got)
	}
}

// An error from the stream, or an entry CreateImported would refuse,
// leaves no file behind.
func TestWriteImportedFailsCleanly(t *testing.T) {
	boom := errors.New("the source went away")
	bad := importedEntries()
	bad[1].Parent = "nope"
	for name, seq := range map[string]func(func(*Entry, error) bool){
		"stream error": seqOf(importedEntries()[:2], boom),
		"bad parent":   seqOf(bad, nil),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, _, err := WriteImported(Options{Dir: dir}, Source{Format: "pi"}, seq)
			if err == nil {
				t.Fatal("no error")
			}
			if name == "stream error" && !errors.Is(err, boom) {
				t.Fatalf("error %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
