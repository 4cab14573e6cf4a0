package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The demo runs through the coding agent as any front-end would drive
// it, and its summary reports what the run really did.
func TestOpenAndSummarize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	home := t.TempDir() // no user config applies
	getenv := func(k string) string {
		switch k {
		case "PATH":
			return os.Getenv(k)
		case "HOME":
			return home
		}
		return ""
	}
	a, err := Open(context.Background(), dir, coding.Options{Getenv: getenv, Warn: func(string) {}, Model: "ignored/model", NoSession: false})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Session() != nil {
		t.Error("the demo writes no session log")
	}
	calls := map[string]int{}
	var end agent.Event
	defer a.Subscribe(func(_ context.Context, ev coding.Event) error {
		switch ev.Type {
		case agent.EventToolStart:
			calls[ev.Event.Event.Call.Name]++
		case agent.EventAgentEnd:
			end = ev.Event.Event
		}
		return nil
	})()
	if _, err := a.Submit(context.Background(), Prompt); err != nil {
		t.Fatal(err)
	}
	s := Summarize(a.Workspace(), end, calls)
	if s.End.Stop != agent.StopCompleted || len(s.Saved) == 0 || !strings.HasPrefix(s.Saved[0].Path, filepath.Join(".rein", "output")) || s.Saved[0].Size == 0 {
		t.Fatalf("summary %+v", s)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stop:       completed", "tool calls: 9 (", "bash ", "saved:      .rein/output/", "workspace:  " + a.Workspace()} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

// A folder that holds files is refused before anything runs.
func TestOpenRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("keep"), 0o644)
	if a, err := Open(context.Background(), dir, coding.Options{}); err == nil {
		a.Close()
		t.Fatal("opened the demo in a folder with files")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "mine.txt")); string(b) != "keep" {
		t.Fatal("the folder's file changed")
	}
}
