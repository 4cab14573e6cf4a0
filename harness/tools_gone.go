package harness

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// Resuming across changed tool sets. A session resumes with the tools
// its log records (the last tools_change on the path), not with what the
// workspace offers today: when Options.ActiveTools is nil and the log
// records active tools, New activates those of them that Options.Tools
// still holds, and so does SetTools with nil active names until
// SetActiveTools or SetTools name the active tools (a tool that appears
// late, such as an MCP server's, is taken up when SetTools hands it
// over). A recorded tool that no longer exists — a skill folder
// removed, an MCP server gone, a toolset renamed — is dropped: the
// harness writes a custom entry of kind KindToolsGone naming it, tells
// the user once (a context_notice at the next prompt; GoneTools for a
// front-end that reports at once), and tells the model in a system part
// of every request (see goneNote) that the tool is gone and its earlier
// calls and results stay for reference. The conversation is untouched:
// earlier calls and results stay readable.

// KindToolsGone records tools the log recorded as active that no longer
// exist: Data is {"tools": [names]}.
const KindToolsGone = "rein.tools.gone"

type toolsGone struct {
	Tools []string `json:"tools"`
}

// restoreLocked narrows c to the tools the log recorded (h.restore) that
// tools holds, and sets h.gone to the recorded ones it lacks, with those
// earlier resumes found gone and still missing. h.mu must be held, or h
// not yet shared.
func (h *Harness) restoreLocked(c *config, tools *tool.Registry) error {
	var keep, gone []string
	for _, n := range h.restore {
		if tools != nil && tools.Get(n) != nil {
			keep = append(keep, n)
		} else if h.wc == nil || n != h.wc.Name {
			gone = append(gone, n)
		}
	}
	if keep == nil {
		keep = []string{}
	}
	if err := h.setTools(c, tools, keep); err != nil {
		return err
	}
	for _, n := range h.goneLogged {
		if !slices.Contains(gone, n) && (tools == nil || tools.Get(n) == nil) {
			gone = append(gone, n)
		}
	}
	slices.Sort(gone)
	if !slices.Equal(gone, h.gone) {
		h.goneTold = false
	}
	h.gone = gone
	return nil
}

// loggedGone returns the tools the log's KindToolsGone entries name.
func (h *Harness) loggedGone() []string {
	var out []string
	h.pathBack(func(e *session.Entry) bool {
		if e.Type == session.TypeCustom && e.Kind == KindToolsGone {
			var g toolsGone
			if json.Unmarshal(e.Data, &g) == nil {
				for _, n := range g.Tools {
					if !slices.Contains(out, n) {
						out = append(out, n)
					}
				}
			}
		}
		return true
	})
	slices.Sort(out)
	return out
}

// GoneTools returns the tools the session's log records that no longer
// exist and were dropped when the harness was made (see KindToolsGone);
// nil when none.
func (h *Harness) GoneTools() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.gone)
}

// goneNote is the system part that tells the model which tools are gone.
func goneNote(gone []string) llm.SystemPart {
	return llm.SystemPart{Text: "Tools used earlier in this session no longer exist and are not offered: " + strings.Join(gone, ", ") +
		". Their earlier calls and results stay in the conversation for reference; do not call them again."}
}

// goneDetail is the notice the user gets.
func goneDetail(gone []string) string {
	return "tools this session used no longer exist and were dropped: " + strings.Join(gone, ", ") +
		" (a skill, MCP server or toolset that was removed or renamed); their earlier calls and results stay in the conversation, and the model is told they are gone"
}

// recordGoneLocked writes a KindToolsGone entry when a tool found gone
// is not one the log already names, before the first turn that
// runs without them. h.mu must be held.
func (h *Harness) recordGoneLocked() error {
	fresh := false
	for _, n := range h.gone {
		fresh = fresh || !slices.Contains(h.goneLogged, n)
	}
	if !fresh {
		return nil
	}
	data, err := json.Marshal(toolsGone{Tools: h.gone})
	if err != nil {
		return err
	}
	if _, err := h.append(session.Entry{Type: session.TypeCustom, Kind: KindToolsGone, Data: data}, false); err != nil {
		return err
	}
	for _, n := range h.gone {
		if !slices.Contains(h.goneLogged, n) {
			h.goneLogged = append(h.goneLogged, n)
		}
	}
	return nil
}
