package coding

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/prompt"
)

// termCommands are the commands Claude Code users reach for in a
// terminal: /clear, /resume, /cost, /init and /mcp.
func (a *Agent) termCommands() []Command {
	return []Command{
		{Name: "clear", Help: "start a new conversation in a new session (the old one stays resumable)", Idle: true, Run: func(ctx context.Context, _ string) (string, error) {
			sw, err := a.NewSession(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("new conversation: session %s (rein -r %s resumes the previous one)", ShortID(sw.ID), ShortID(sw.Old)), nil
		}},
		{Name: "resume", Args: "[ID]", Help: "continue another session of this workspace (an id or a unique prefix); without ID, list them", Idle: true, Run: func(ctx context.Context, args string) (string, error) {
			if args == "" {
				return a.sessionsCommand(ctx, "")
			}
			sw, err := a.Resume(ctx, args)
			if err != nil {
				return "", err
			}
			return ResumedText(sw), nil
		}},
		{Name: "cost", Help: "the tokens and cost of this session so far", Run: func(context.Context, string) (string, error) {
			return a.cost(), nil
		}},
		{Name: "init", Args: "[NOTES]", Help: "ask the model to write " + prompt.AgentsFile + " (or improve the context file there is) for this repository", Prompt: true},
		{Name: "mcp", Help: "list the MCP servers with their state and tools", Run: func(context.Context, string) (string, error) {
			return a.mcpList(), nil
		}},
	}
}

// ResumedText says what Resume did, for a front-end's notice.
func ResumedText(sw Switched) string {
	return fmt.Sprintf("resumed session %s: %d message(s); rein -r %s goes back to the one you left", ShortID(sw.ID), len(sw.Messages), ShortID(sw.Old))
}

// usage sums the usage of the assistant messages on the conversation's
// current path.
func (a *Agent) usage() (u llm.Usage, replies int) {
	for _, m := range a.h.Store().Context().Messages {
		if m.Role == llm.RoleAssistant {
			u.Input += m.Usage.Input
			u.Output += m.Usage.Output
			u.CacheRead += m.Usage.CacheRead
			u.CacheWrite += m.Usage.CacheWrite
			u.Cost.Total += m.Usage.Cost.Total
			replies++
		}
	}
	return u, replies
}

// cost is /cost's text: what the conversation used, with its
// sub-agents.
func (a *Agent) cost() string {
	u, replies := a.usage()
	var b strings.Builder
	fmt.Fprintf(&b, "cost $%.4f · %d model repl%s\ntokens %d in (%d read from cache, %d written to it), %d out",
		u.Cost.Total, replies, map[bool]string{true: "y", false: "ies"}[replies == 1], u.PromptTokens(), u.CacheRead, u.CacheWrite, u.Output)
	if recs := a.sub.Children(); len(recs) > 0 {
		sp := a.sub.Spent()
		fmt.Fprintf(&b, "\nsub-agents: %d · tokens %d in, %d out · cost $%.4f\ntotal cost $%.4f", len(recs), sp.Input, sp.Output, sp.Cost, u.Cost.Total+sp.Cost)
	}
	if l := a.Budget(); l.Cost > 0 {
		fmt.Fprintf(&b, "\nlimit per prompt $%.2f", l.Cost)
	}
	return b.String()
}

// mcpList is /mcp's text.
func (a *Agent) mcpList() string {
	var sts []mcp.Status
	if a.bridge != nil && a.bridge.m != nil {
		sts = a.bridge.m.Status()
	}
	if len(sts) == 0 {
		return "no MCP servers are configured (.mcp.json, .rein/mcp.json or the user's settings; rein mcp list shows where rein looks)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d MCP server(s):", len(sts))
	for _, st := range sts {
		fmt.Fprintf(&b, "\n  %s  %s  %s", st.Name, st.State, st.Transport)
		if st.Server != "" {
			b.WriteString("  " + st.Server)
		}
		if st.Error != "" {
			b.WriteString("\n    " + st.Error)
		}
		if len(st.Tools) > 0 {
			fmt.Fprintf(&b, "\n    %d tool(s): %s", len(st.Tools), strings.Join(st.Tools, ", "))
		} else if st.State == mcp.StateReady {
			b.WriteString("\n    no tools")
		}
		if st.Log != "" {
			b.WriteString("\n    log " + st.Log)
		}
	}
	return b.String()
}

// initPrompt is the prompt /init sends: it asks the model to study the
// repository and write the context file future runs will read, or to
// improve the one there is. notes are the user's own words after /init.
func initPrompt(root, notes string) string {
	file := prompt.AgentsFile
	exists := false
	for _, name := range []string{prompt.AgentsFile, "CLAUDE.md"} {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			file, exists = name, true
			break
		}
	}
	var b strings.Builder
	if exists {
		fmt.Fprintf(&b, "Review %s at the root of this repository against the code as it is now and improve it: correct what is out of date, add what is missing, remove what does not help.", file)
	} else {
		fmt.Fprintf(&b, "Study this repository and write %s at its root.", file)
	}
	b.WriteString(` The file is read at the start of every future session of a coding agent working here, so it should hold what such an agent cannot quickly work out by itself:
- the commands to build, lint and test, including how to run a single test;
- the architecture in broad strokes: the main parts, how they fit together and where to find them — the kind of knowledge that takes reading many files;
- the project's conventions and rules that are not obvious from one file.
Draw on the README and on instructions written for other tools where they exist (CLAUDE.md, AGENTS.md, .cursorrules, .cursor/rules/, .github/copilot-instructions.md); keep the parts that matter.
Keep it short and specific to this repository: no generic advice on good practice, no list of every file, nothing invented — only what you found in the repository.`)
	if notes = strings.TrimSpace(notes); notes != "" {
		b.WriteString("\nThe user adds: " + notes)
	}
	return b.String()
}
