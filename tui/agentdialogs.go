package tui

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
)

// approvalDialog asks the user about a permission request in the UI and
// answers it: allow once, allow always (the suggested rule is stored in
// the project's settings), or deny.
func approvalDialog(req *coding.Approval) *Approval {
	choices := []string{"allow once", "allow always", "deny"}
	if req.Suggest != "" {
		choices[1] = "allow always: " + req.Suggest
	}
	title := "Permission needed"
	if req.Agent != "" {
		title += " (sub-agent " + req.Agent + ")"
	}
	return &Approval{
		Title:     title,
		Detail:    coding.DescribeRequest(req.Request),
		Choices:   choices,
		ReasonFor: 2,
		ReplyReason: func(i int, reason string) {
			go req.Answer(approvalAnswer(i, reason))
		},
	}
}

// approvalAnswer turns the dialog's choice (-1 when dismissed) and the
// reason typed after "deny" into an answer.
func approvalAnswer(choice int, reason string) permission.Answer {
	switch choice {
	case 0:
		return permission.Answer{Kind: permission.AllowOnce}
	case 1:
		return permission.Answer{Kind: permission.AllowAlways}
	}
	if reason == "" {
		reason = "the user declined"
	}
	return permission.Answer{Kind: permission.DenyCall, Reason: reason}
}

// budgetDialog asks what to do when a prompt reached its spending limit:
// double the limit (or what was spent, if more), remove it, or leave it.
// The work so far is kept either way; the new limit applies from the next
// prompt, which note tells the user. note is called on a goroutine of its
// own: the dialog answers on the UI's, which must not wait for itself.
func budgetDialog(a *coding.Agent, over *telemetry.BudgetError, note func(string)) *Approval {
	l := a.Budget()
	raised, removed := l, l
	var what string
	switch over.Limit {
	case telemetry.LimitCost:
		raised.Cost, removed.Cost = max(l.Cost, over.Max, over.Spent)*2, 0
		what = fmt.Sprintf("$%.2f", raised.Cost)
	case telemetry.LimitInputTokens:
		raised.InputTokens, removed.InputTokens = max(l.InputTokens, int(over.Max), int(over.Spent))*2, 0
		what = fmt.Sprintf("%d input tokens", raised.InputTokens)
	default:
		raised.OutputTokens, removed.OutputTokens = max(l.OutputTokens, int(over.Max), int(over.Spent))*2, 0
		what = fmt.Sprintf("%d output tokens", raised.OutputTokens)
	}
	return &Approval{
		Title:   "Budget reached: " + strings.TrimPrefix(over.Error(), "budget exhausted: "),
		Detail:  "The work so far is kept in the session. A new limit applies from your next message (\"continue\" goes on).",
		Choices: []string{"raise the limit to " + what, "remove this limit", "keep the limit"},
		Reply: func(choice int) {
			var err error
			switch choice {
			case 0:
				err = a.SetBudget(raised)
			case 1:
				err = a.SetBudget(removed)
			default:
				return
			}
			msg := "budget changed: send a message to go on"
			if err != nil {
				msg = "budget: " + err.Error()
			}
			go note(msg)
		},
	}
}

// subagentLines keeps the list of running sub-agents and sends it to the
// screen at every change.
func subagentLines(send func(tea.Msg)) func(subagent.Record) {
	var mu sync.Mutex
	live := map[string]subagent.Record{}
	return func(r subagent.Record) {
		mu.Lock()
		defer mu.Unlock()
		if r.State.Terminal() {
			delete(live, r.ID)
		} else {
			live[r.ID] = r
		}
		recs := make([]subagent.Record, 0, len(live))
		for _, x := range live {
			recs = append(recs, x)
		}
		sort.Slice(recs, func(i, j int) bool { return recs[i].Started.Before(recs[j].Started) })
		lines := make(SubagentsMsg, 0, len(recs))
		for _, x := range recs {
			lines = append(lines, AgentLine{ID: x.ID, Agent: x.Agent, State: string(x.State), Description: x.Description})
		}
		send(lines)
	}
}
