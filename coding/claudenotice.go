package coding

import "github.com/reinhq/rein/coding/compat"

// noticeClaudeSetup finds what the Claude Code setup of the workspace and
// the user holds that rein does not honour and says it in one line: to
// Warn, or, for the terminal UI (Frontend "tui"), which would draw over
// it, only through StartupNotice. A sub-agent says nothing: its parent
// did.
func (s *setup) noticeClaudeSetup() {
	if s.o.child != nil {
		return
	}
	co := compat.Options{Workspace: s.ws.Root, Home: s.o.Getenv("HOME")}
	s.notice = compat.Notice(compat.Scan(co), co)
	if s.notice != "" && s.o.Frontend != "tui" {
		s.o.Warn(s.notice)
	}
}

// StartupNotice is the one line about the Claude Code setup rein does not
// honour ("" when it honours all of it). Open has already given it to
// Options.Warn, except for Frontend "tui", whose front-end shows it.
func (a *Agent) StartupNotice() string { return a.s.notice }
