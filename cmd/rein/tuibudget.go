package main

import (
	"fmt"
	"strings"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tui"
)

// budgetDialog asks what to do when a prompt reached its spending limit:
// double the limit (or what was spent, if more), remove it, or leave it.
// The work so far is kept either way; the new limit applies from the next
// prompt, which note tells the user. note is called on a goroutine of its
// own: the dialog answers on the UI's, which must not wait for itself.
func budgetDialog(a *coding.Agent, over *telemetry.BudgetError, note func(string)) *tui.Approval {
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
	return &tui.Approval{
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
