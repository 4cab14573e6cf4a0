package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// workBackend is a testBackend that lists work items.
type workBackend struct {
	*testBackend
	items []WorkItem
}

func (b *workBackend) OpenWorkItems() []WorkItem { return b.items }

func TestWorkPanelShowsOpenItems(t *testing.T) {
	d := newDriver(t, Options{})
	if strings.Contains(d.screen(), "work items") {
		t.Fatal("a backend without work items shows a panel")
	}
	wb := &workBackend{testBackend: d.b}
	for i := 1; i <= 6; i++ {
		wb.items = append(wb.items, WorkItem{ID: fmt.Sprint(i), Title: fmt.Sprintf("step %d", i), InProgress: i == 3})
	}
	app := New(context.Background(), wb, Options{})
	app.width, app.height = 80, 24
	screen := ansi.Strip(app.render())
	lines := strings.Split(screen, "\n")
	var at int
	for i, l := range lines {
		if strings.Contains(l, "work items: 6 open") {
			at = i
		}
	}
	if at == 0 || !strings.Contains(lines[at+1], "▶ #3 step 3") || !strings.Contains(lines[at+2], "○ #1 step 1") || !strings.Contains(lines[at+5], "… 2 more") {
		t.Fatalf("panel:\n%s", screen)
	}
	wb.items = nil
	empty := ansi.Strip(app.render())
	if strings.Contains(empty, "work items") {
		t.Fatal("an empty list still shows a panel")
	}
	if strings.Count(empty, "\n") != strings.Count(screen, "\n") {
		t.Fatalf("the panel changed the screen's height: %d lines, %d without", strings.Count(screen, "\n"), strings.Count(empty, "\n"))
	}
}
