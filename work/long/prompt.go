package long

import (
	"fmt"
	"strings"
)

// initPrompt is the initializer session's prompt for goal.
func initPrompt(l Layout, goal string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are setting up a long task that later sessions will carry out one task at a time, each starting fresh from the files you write now.\n\nGoal:\n%s\n\n", strings.TrimSpace(goal))
	b.WriteString("Look at the workspace first. Then write exactly these three files and nothing else; do not start on the tasks themselves.\n\n")
	fmt.Fprintf(&b, "1. %s, the plan: %s\n", l.Progress, formatSpec(l.Preset))
	b.WriteString("   Split the goal into small tasks, each one session's work, in the order to do them. Every task needs acceptance criteria and at least one verify command: a shell command, run from the workspace root, that exits 0 only when the task is done (tests, a build, a grep). The harness runs these commands itself and marks a task done only when they pass, so make them strict and make them fail now.\n")
	fmt.Fprintf(&b, "2. %s, the notes: what the goal is, how the workspace is laid out, decisions taken and anything the next session must know.\n", l.Notes)
	fmt.Fprintf(&b, "3. %s, the set-up script: an idempotent bash script the harness runs at the start of every session to bring the workspace to a working state (install dependencies, build); it must exit 0.\n\n", l.Setup)
	b.WriteString("The harness checks the three files when you finish and commits them. If they are not valid you will be told what to fix.")
	return b.String()
}

// formatSpec describes the progress file of preset.
func formatSpec(p Preset) string {
	if p == PresetAnthropic {
		return `a JSON array of features, each {"id": "short-id", "category": "functional", "description": "what works when done", "steps": ["how to check it", …], "verify": ["shell command", …], "passes": false}.`
	}
	return `a JSON array of tasks, each {"id": "t1", "title": "what the task delivers", "acceptance_criteria": ["…", …], "verify": ["shell command", …], "status": "todo"}. A verify command may also be {"command": "…", "timeout": "2m"}.`
}

// fixPrompt asks the initializer to fix its files.
func fixPrompt(l Layout, probs Problems) string {
	return fmt.Sprintf("The plan is not valid yet; nothing was committed. Fix these problems in %s, %s and %s, then finish:\n%s", l.Progress, l.Notes, l.Setup, probs.Error())
}

// workPrompt is a worker session's prompt.
func workPrompt(l Layout, p *Plan, t *Task, notes string, setup *CommandEvidence, session int) string {
	c := p.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "This is session %d of a long task. Progress: %s (%d to do).\n\n", session, c, c.Open())
	fmt.Fprintf(&b, "Your task: %s — %s\n", t.ID, t.Title)
	if t.Description != "" {
		fmt.Fprintf(&b, "%s\n", t.Description)
	}
	b.WriteString("Acceptance criteria:\n")
	for _, a := range t.Acceptance {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	b.WriteString("Verify commands (the harness runs them from the workspace root when you finish; the task is done only if every one exits 0):\n")
	for _, v := range t.Verify {
		fmt.Fprintf(&b, "- %s\n", v.Command)
	}
	if t.Failures > 0 {
		fmt.Fprintf(&b, "Earlier sessions ended %d time(s) without this task passing; read the notes below for what went wrong.\n", t.Failures)
	}
	if t.Note != "" {
		fmt.Fprintf(&b, "Note on the task: %s\n", t.Note)
	}
	if setup != nil {
		if setup.Passed() {
			fmt.Fprintf(&b, "\nThe set-up script %s ran and exited 0.\n", l.Setup)
		} else {
			fmt.Fprintf(&b, "\nThe set-up script %s failed (%s). Its output ends with:\n%s\nRepair the workspace (or the script) first.\n", l.Setup, outcome(*setup), indent(setup.Output))
		}
	}
	if strings.TrimSpace(notes) != "" {
		fmt.Fprintf(&b, "\nThe end of %s:\n%s\n", l.Notes, indent(notes))
	}
	fmt.Fprintf(&b, "\nRules:\n"+
		"1. Work on this task only.\n"+
		"2. Check the verify commands pass before you finish.\n"+
		"3. Commit your work with git before you finish (git add, git commit, with a message saying what you did). Uncommitted work does not count.\n"+
		"4. %s is kept by the harness: change the plan only with work_item_update, work_item_add and work_item_list. Never mark the task done yourself.\n"+
		"5. You may add what the next session should know to %s.\n"+
		"6. End with a short summary of what you did and what is left.", l.Progress, l.Notes)
	return b.String()
}

func outcome(c CommandEvidence) string {
	switch {
	case c.TimedOut:
		return fmt.Sprintf("timed out after %dms", c.DurationMS)
	case c.ExitCode != 0:
		return fmt.Sprintf("exit %d", c.ExitCode)
	}
	return "exit 0"
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (no output)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
