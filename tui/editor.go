package tui

import (
	"fmt"
	"strings"
)

// paste inserts pasted text; a big paste is kept aside behind a
// placeholder, so the editor stays fast and nothing is lost.
func (a *App) paste(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	if len(s) < bigPaste {
		a.editor.InsertString(s)
		return
	}
	a.pastes = append(a.pastes, s)
	a.editor.InsertString(fmt.Sprintf("[paste #%d: %d bytes, %d lines]", len(a.pastes), len(s), strings.Count(s, "\n")+1))
}

// expand replaces paste placeholders with their text.
func (a *App) expand(s string) string {
	for i, p := range a.pastes {
		ph := fmt.Sprintf("[paste #%d: %d bytes, %d lines]", i+1, len(p), strings.Count(p, "\n")+1)
		s = strings.ReplaceAll(s, ph, p)
	}
	return s
}

// PromptStore keeps the prompts sent, so that up/down in a later UI
// finds them (the command line keeps them in a file per workspace). The
// UI calls Load once, from New, and Add for every prompt it sends, slash
// commands included, as typed in the editor (a big paste as its
// placeholder); both run on the UI's goroutine and must be quick.
type PromptStore interface {
	// Load returns the earlier prompts, oldest first. An error is shown
	// once, as a notice; the prompts returned with it are used all the
	// same, so a store that skips a damaged part can say so and go on.
	Load() ([]string, error)
	// Add records a prompt just sent. The first error is shown as a
	// notice and later ones are not; the UI goes on either way.
	Add(text string) error
}

// remember adds a prompt sent to the history, once when it repeats the
// previous one, and to the store.
func (a *App) remember(raw string) {
	if len(a.history) == 0 || a.history[len(a.history)-1] != raw {
		a.history = append(a.history, raw)
	}
	a.histPos, a.draft = len(a.history), ""
	if a.store == nil {
		return
	}
	if err := a.store.Add(raw); err != nil && a.storeOK {
		a.storeOK = false
		a.tr.Notice("prompt history: " + err.Error() + " (later failures are not shown)")
	}
}
