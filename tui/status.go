package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// statusLine shows the model, the state, tokens, context fill, cost (and
// the cost limit, when there is one) and the session.
func (a *App) statusLine(w int) string {
	s := a.b.Status()
	parts := []string{s.Model}
	if s.Thinking != "" {
		parts = append(parts, "thinking "+s.Thinking)
	}
	if m := modeLabel(s.Mode); m != "" {
		parts = append(parts, m)
	}
	if !a.quitArmed.IsZero() {
		parts = append(parts, quitHint)
	}
	switch {
	case a.busy && a.tr.Waiting:
		parts = append(parts, fmt.Sprintf("waiting %s", a.now().Sub(a.started).Round(time.Second)))
	case a.busy:
		parts = append(parts, fmt.Sprintf("working %s", a.now().Sub(a.started).Round(time.Second)))
	}
	if a.note != "" {
		parts = append(parts, a.note)
	}
	u := a.tr.Usage
	parts = append(parts, fmt.Sprintf("↑%s ↓%s", tokens(u.PromptTokens()), tokens(u.Output)))
	if s.ContextWindow > 0 && a.tr.Context > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d%%", a.tr.Context*100/s.ContextWindow))
	}
	switch {
	case s.MaxCost > 0:
		parts = append(parts, fmt.Sprintf("$%.4f of $%.2f", u.Cost.Total, s.MaxCost))
	case u.Cost.Total > 0:
		parts = append(parts, fmt.Sprintf("$%.4f", u.Cost.Total))
	}
	if s.Session != "" {
		parts = append(parts, "session "+s.Session[:min(len(s.Session), 8)])
	}
	if a.scroll > 0 {
		parts = append(parts, fmt.Sprintf("↑ scrolled %d", a.scroll))
	}
	line := ansi.Truncate(" "+strings.Join(parts, " · "), w, "…")
	if pad := w - ansi.StringWidth(line); pad > 0 {
		line += strings.Repeat(" ", pad)
	}
	return a.r.st.status.Render(line)
}

func tokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
