package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/llm/faux"
)

// memPrompts is a PromptStore in memory, shared by UI instances as a
// file would be.
type memPrompts struct {
	saved   []string
	loadErr error
	addErr  error
	adds    int
}

func (m *memPrompts) Load() ([]string, error) { return append([]string(nil), m.saved...), m.loadErr }

func (m *memPrompts) Add(text string) error {
	m.adds++
	if m.addErr != nil {
		return m.addErr
	}
	m.saved = append(m.saved, text)
	return nil
}

func TestPromptHistoryAcrossInstances(t *testing.T) {
	store := &memPrompts{}
	d := newDriver(t, Options{PromptStore: store}, faux.Text("a"))
	d.typ("line one")
	d.key('j', tea.ModCtrl)
	d.typ("line two")
	d.enter()
	d.until("the run", d.idle)
	d.send("/help")
	d.send("/help")
	if len(store.saved) != 3 || store.saved[0] != "line one\nline two" || store.saved[2] != "/help" {
		t.Fatalf("stored %q", store.saved)
	}
	// A second UI over the same store: up walks the earlier prompts.
	d2 := newDriver(t, Options{PromptStore: store, History: []string{"from the session"}})
	d2.key(tea.KeyUp, 0)
	if v := d2.app.editor.Value(); v != "from the session" {
		t.Fatalf("up: %q", v)
	}
	d2.key(tea.KeyUp, 0)
	d2.key(tea.KeyUp, 0)
	if v := d2.app.editor.Value(); v != "/help" {
		t.Fatalf("up three times: %q", v)
	}
	d2.key(tea.KeyUp, 0)
	if v := d2.app.editor.Value(); v != "line one\nline two" {
		t.Fatalf("up four times: %q", v)
	}
}

func TestPromptHistoryFailuresDoNotStopTheUI(t *testing.T) {
	store := &memPrompts{saved: []string{"kept"}, loadErr: errors.New("3 damaged lines skipped"), addErr: errors.New("disk full")}
	d := newDriver(t, Options{PromptStore: store})
	if !d.shows("prompt history: 3 damaged lines skipped") {
		t.Fatalf("no notice of the load error:\n%s", d.screen())
	}
	d.send("/help")
	d.send("/thinking-view")
	d.send("/help")
	if store.adds != 3 {
		t.Fatalf("%d adds", store.adds)
	}
	n := 0
	for _, b := range d.app.tr.Blocks {
		n += strings.Count(b.Text, "disk full")
	}
	if n != 1 {
		t.Fatalf("the failure was shown %d times", n)
	}
	for range 4 {
		d.key(tea.KeyUp, 0)
	}
	if v := d.app.editor.Value(); v != "kept" {
		t.Fatalf("up: %q", v)
	}
}
