package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// AgentLine is one sub-agent still queued or running.
type AgentLine struct {
	ID, Agent, State, Description string
}

// SubagentsMsg replaces the list of running sub-agents shown above the
// status line (empty: the line goes away).
type SubagentsMsg []AgentLine

// agentsLine renders the running sub-agents on one line: "agents: explore
// 7f3a9c0e running (find the pager) · general 1b2c3d4e queued".
func (a *App) agentsLine(w int) string {
	if len(a.agents) == 0 {
		return ""
	}
	parts := make([]string, 0, len(a.agents))
	for _, l := range a.agents {
		s := fmt.Sprintf("%s %s %s", l.Agent, l.ID[:min(len(l.ID), 8)], l.State)
		if l.Description != "" {
			s += " (" + l.Description + ")"
		}
		parts = append(parts, s)
	}
	line := ansi.Truncate(" agents: "+strings.Join(parts, " · "), w, "…")
	return a.r.st.status.Render(line)
}
