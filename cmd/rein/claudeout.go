package main

import (
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/coding/claudecode"
	"github.com/reinhq/rein/hook/command"
)

// claudeMeta gathers what Claude Code's output formats print about a
// run that its events do not say.
func claudeMeta(a *coding.Agent, start time.Time) claudecode.Meta {
	h := a.Harness()
	m := claudecode.Meta{Cwd: a.Workspace(), Model: h.Model().ID, Version: version, Start: start,
		PermissionMode: claudecode.ModeName(string(a.PermissionMode()))}
	if s := a.Session(); s != nil {
		m.SessionID, m.SessionFile = s.ID(), s.Path()
	}
	for _, name := range h.ActiveTools() {
		cc, _ := command.ClaudeTool(name, []byte("{}"), "")
		m.Tools = append(m.Tools, cc)
	}
	if f := a.Found(); f != nil {
		for _, t := range f.Templates {
			m.Commands = append(m.Commands, t.Name)
		}
		for _, s := range f.Skills {
			m.Commands = append(m.Commands, s.Name)
		}
	}
	return m
}
