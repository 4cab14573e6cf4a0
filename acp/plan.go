package acp

import (
	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/work"
)

// plan returns the session's current work items as an ACP plan, and
// whether it differs from the plan last sent. Items the model cancelled
// are shown as completed, their title marked; the session has no plan
// until the model writes work items.
func (ss *acpSession) plan() (sdk.SessionUpdate, bool) {
	sess := ss.agent.Session()
	if sess == nil {
		return sdk.SessionUpdate{}, false
	}
	list, err := work.FromEntries(sess.Entries())
	if err != nil || list == nil {
		return sdk.SessionUpdate{}, false
	}
	entries := make([]sdk.PlanEntry, 0, len(list))
	for _, it := range list {
		e := sdk.PlanEntry{Content: it.Title, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending}
		switch it.Status {
		case work.InProgress:
			e.Status = sdk.PlanEntryStatusInProgress
			if it.ActiveForm != "" {
				e.Content = it.ActiveForm
			}
		case work.Completed:
			e.Status = sdk.PlanEntryStatusCompleted
		case work.Cancelled:
			e.Status, e.Content = sdk.PlanEntryStatusCompleted, it.Title+" (cancelled)"
		}
		entries = append(entries, e)
	}
	key := list.Render()
	ss.mu.Lock()
	changed := key != ss.lastPlan
	ss.lastPlan = key
	ss.mu.Unlock()
	return sdk.UpdatePlan(entries...), changed
}

// sendPlan sends the plan when it changed since it was last sent.
func (ss *acpSession) sendPlan() {
	if u, changed := ss.plan(); changed {
		ss.update(u)
	}
}

// isWorkTool reports whether a tool writes work items.
func isWorkTool(name string) bool {
	switch name {
	case work.AddTool, work.UpdateTool, work.TodoWriteTool:
		return true
	}
	return false
}
