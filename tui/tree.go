package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// treeRow is an entry placed for display: depth grows at branch points
// only, so that a straight conversation stays flat.
type treeRow struct {
	TreeEntry
	depth int
}

// layoutTree orders entries depth first (children in file order) and
// indents each branch.
func layoutTree(entries []TreeEntry) []treeRow {
	children := map[string][]TreeEntry{}
	known := map[string]bool{}
	for _, e := range entries {
		known[e.ID] = true
	}
	var roots []TreeEntry
	for _, e := range entries {
		if e.Parent == "" || !known[e.Parent] {
			roots = append(roots, e)
			continue
		}
		children[e.Parent] = append(children[e.Parent], e)
	}
	var rows []treeRow
	type item struct {
		e     TreeEntry
		depth int
	}
	stack := make([]item, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], boolInt(len(roots) > 1)})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		rows = append(rows, treeRow{it.e, it.depth})
		kids := children[it.e.ID]
		d := it.depth
		if len(kids) > 1 {
			d++
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, item{kids[i], d})
		}
	}
	return rows
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// treeView is the session tree browser.
type treeView struct {
	rows     []treeRow
	sel      int
	current  string // the leaf: entries on its path are marked
	onPath   map[string]bool
	labeling bool // the editor holds a label for the selected entry
}

func newTreeView(entries []TreeEntry, current string) *treeView {
	t := &treeView{rows: layoutTree(entries), current: current, onPath: map[string]bool{}}
	parent := map[string]string{}
	for _, e := range entries {
		parent[e.ID] = e.Parent
	}
	for id := current; id != ""; id = parent[id] {
		if t.onPath[id] {
			break
		}
		t.onPath[id] = true
	}
	for i, r := range t.rows {
		if r.ID == current {
			t.sel = i
		}
	}
	return t
}

func (t *treeView) selected() (TreeEntry, bool) {
	if t.sel < 0 || t.sel >= len(t.rows) {
		return TreeEntry{}, false
	}
	return t.rows[t.sel].TreeEntry, true
}

// key handles browsing keys; the actions (enter, f, l) are the App's.
func (t *treeView) key(k tea.KeyPressMsg, height int) {
	switch k.String() {
	case "up", "k":
		t.sel = max(t.sel-1, 0)
	case "down", "j":
		t.sel = min(t.sel+1, len(t.rows)-1)
	case "pgup":
		t.sel = max(t.sel-height, 0)
	case "pgdown":
		t.sel = min(t.sel+height, len(t.rows)-1)
	case "home", "g":
		t.sel = 0
	case "end", "G":
		t.sel = len(t.rows) - 1
	}
}

// view renders height lines around the selection.
func (t *treeView) view(width, height int, st styles) []string {
	head := st.title.Render(ansi.Truncate(fmt.Sprintf("Session tree · %d entries · enter: go there · f: fork · l: label · esc: back", len(t.rows)), width, "…"))
	out := []string{head}
	height = max(height-1, 1)
	start := min(max(t.sel-height/2, 0), max(len(t.rows)-height, 0))
	for i := start; i < len(t.rows) && i < start+height; i++ {
		r := t.rows[i]
		mark := "  "
		switch {
		case r.ID == t.current:
			mark = "◆ "
		case t.onPath[r.ID]:
			mark = "• "
		}
		text := r.Role + ": " + oneLine(r.Text)
		if r.Label != "" {
			text = "[" + r.Label + "] " + text
		}
		line := ansi.Truncate(strings.Repeat("  ", min(r.depth, 12))+mark+text, width, "…")
		if i == t.sel {
			line = st.sel.Render(line)
		} else if !t.onPath[r.ID] {
			line = st.dim.Render(line)
		}
		out = append(out, line)
	}
	return out
}

func (a *App) openTree() tea.Cmd {
	b := a.b
	return func() tea.Msg {
		entries, leaf, err := b.Tree()
		return treeMsg{entries: entries, leaf: leaf, err: err}
	}
}

func (a *App) treeKey(k tea.KeyPressMsg) tea.Cmd {
	t := a.tree
	switch k.String() {
	case "esc", "q", "ctrl+c":
		a.tree = nil
		return nil
	case "enter":
		e, ok := t.selected()
		if !ok {
			return nil
		}
		a.tree = nil
		target, editor := e.ID, ""
		if e.Role == "user" {
			// Going to a user message means asking it again: go to its
			// parent and put its text in the editor to edit and send.
			target, editor = e.Parent, e.Text
		}
		ctx, b := a.ctx, a.b
		return func() tea.Msg {
			msgs, err := b.Navigate(ctx, target)
			return navigatedMsg{msgs: msgs, editor: editor, err: err}
		}
	case "f":
		e, ok := t.selected()
		if !ok {
			return nil
		}
		a.tree = nil
		return a.fork(e.ID, e.ID != t.current)
	case "l":
		t.labeling = true
		a.editor.Reset()
		a.editor.Placeholder = "label for the selected entry (enter sets it, empty clears it, esc cancels)"
		return nil
	}
	t.key(k, a.transcriptHeight())
	return nil
}

func (a *App) label(text string) tea.Cmd {
	a.editor.Placeholder = "Ask rein to do something · /help for commands"
	e, ok := a.tree.selected()
	if !ok {
		return nil
	}
	if err := a.b.Label(e.ID, text); err != nil {
		a.tr.Error("label: " + err.Error())
		return nil
	}
	a.tree.rows[a.tree.sel].Label = text
	return nil
}

type forkedMsg struct {
	f      Forked
	reload bool
	err    error
}

// fork forks at entry id ("" = the current leaf); reload shows the new
// session's conversation instead of the one on screen (a fork at an
// earlier entry).
func (a *App) fork(id string, reload bool) tea.Cmd {
	b := a.b
	return func() tea.Msg {
		f, err := b.Fork(id)
		return forkedMsg{f: f, reload: reload, err: err}
	}
}

// forked tells what a fork made and shows the new conversation when the
// UI moved to it.
func (a *App) forked(m forkedMsg) {
	switch {
	case m.err != nil:
		a.tr.Error("fork: " + m.err.Error())
		return
	case !m.f.Switched:
		text := fmt.Sprintf("forked to %s, but this UI stays on %s", m.f.ID, m.f.Old)
		if m.f.Note != "" {
			text += ": " + m.f.Note
		}
		a.tr.Notice(text)
		return
	}
	if m.reload {
		a.tr.Load(m.f.Messages)
	}
	text := fmt.Sprintf("forked to %s; the old session is %s", m.f.ID, m.f.Old)
	if m.f.Note != "" {
		text += "; " + m.f.Note
	}
	a.tr.Notice(text)
}
