package session

import (
	"fmt"
	"strings"
)

// Title is how a listing names the session, on one line: its name, else
// the start of its first message; then "[from FORMAT]" for an imported
// session and "[N issues]" when the listing found damaged lines.
func (in *Info) Title() string {
	title := in.FirstMessage
	if in.Name != "" {
		title = in.Name
	}
	if in.Source != nil {
		title += " [from " + in.Source.Format + "]"
	}
	if in.Issues == 1 {
		title += " [1 issue]"
	} else if in.Issues > 1 {
		title += fmt.Sprintf(" [%d issues]", in.Issues)
	}
	return title
}

// Title is Info.Title, prefixed with "[agent TYPE] " for a sub-agent's
// session listed under its parent.
func (n *Nested) Title() string {
	if n.Depth > 0 && n.Agent != nil {
		return "[agent " + n.Agent.Type + "] " + n.Info.Title()
	}
	return n.Info.Title()
}

// Indent is what a listing writes before the session's id to draw the
// tree: nothing at depth 0, else two spaces for each level below the
// first and "└ ".
func (n *Nested) Indent() string {
	if n.Depth == 0 {
		return ""
	}
	return strings.Repeat("  ", n.Depth-1) + "└ "
}

// LoadNotes says, one line each (no newlines), what opening the log at
// Path set aside or repaired: each load issue as "FILE:LINE: KIND:
// DETAIL", then each tool call the process died during, recorded as
// failed. A front-end shows them when it resumes a session.
func (s *Session) LoadNotes() []string {
	var out []string
	for _, is := range s.Issues() {
		out = append(out, fmt.Sprintf("%s:%d: %s: %s", s.Path(), is.Line, is.Kind, is.Detail))
	}
	for _, r := range s.Repairs() {
		out = append(out, fmt.Sprintf("repaired: the %s call %s was interrupted; recorded it as failed", r.ToolName, r.CallID))
	}
	return out
}
