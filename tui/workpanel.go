package tui

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"
)

// WorkItem is one open work item as the panel shows it.
type WorkItem struct {
	ID, Title string
	// InProgress marks the item being worked on.
	InProgress bool
}

// WorkLister is an optional ability of a Backend: the open work items
// of the session, in order. When the backend has it and the list is not
// empty, a panel above the status line shows them. It must be fast.
type WorkLister interface {
	OpenWorkItems() []WorkItem
}

// maxWorkLines bounds the panel: the items in progress first, then the
// others, and a line saying how many more.
const maxWorkLines = 4

// workPanel returns the panel's lines for width w (none when there is
// nothing open or the backend cannot list).
func (a *App) workPanel(w int) []string {
	wl, ok := a.b.(WorkLister)
	if !ok {
		return nil
	}
	items := wl.OpenWorkItems()
	if len(items) == 0 {
		return nil
	}
	ordered := make([]WorkItem, 0, len(items))
	for _, it := range items {
		if it.InProgress {
			ordered = append(ordered, it)
		}
	}
	for _, it := range items {
		if !it.InProgress {
			ordered = append(ordered, it)
		}
	}
	lines := []string{a.r.st.dim.Render(ansi.Truncate(fmt.Sprintf(" work items: %d open", len(items)), w, "…"))}
	for i, it := range ordered {
		if i == maxWorkLines {
			lines = append(lines, a.r.st.dim.Render(fmt.Sprintf("   … %d more (rein tasks)", len(ordered)-i)))
			break
		}
		mark, style := "○", a.r.st.dim
		if it.InProgress {
			mark, style = "▶", a.r.st.notice
		}
		lines = append(lines, style.Render(ansi.Truncate(fmt.Sprintf(" %s #%s %s", mark, it.ID, it.Title), w, "…")))
	}
	return lines
}
