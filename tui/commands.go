package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Command is a slash command. Commands run either on the agent, off the
// UI goroutine (Run: its text is shown as a notice, its error as an
// error), or on the UI itself (UI). Prompt templates, MCP prompts and
// other features add commands by appending to Options.Commands.
type Command struct {
	Name string // without the slash
	Args string // usage of the arguments, for /help
	Help string
	// Idle commands are refused while the agent works.
	Idle bool
	// Send commands are prompts (prompt templates): the whole line goes
	// to the backend as a prompt, or steers the agent while it works;
	// the backend expands it.
	Send bool
	Run  func(ctx context.Context, args string) (string, error)
	UI   func(a *App, args string) tea.Cmd
}

// builtinCommands are the commands of the UI itself.
func builtinCommands() []Command {
	return []Command{
		{Name: "help", Help: "list the commands and keys", UI: func(a *App, _ string) tea.Cmd {
			a.tr.Notice(a.helpText())
			return nil
		}},
		{Name: "followup", Args: "TEXT", Help: "queue TEXT for when the agent would otherwise stop", UI: func(a *App, args string) tea.Cmd {
			if strings.TrimSpace(args) == "" {
				a.tr.Error("/followup needs the text to queue")
				return nil
			}
			if !a.busy {
				// Nothing runs to pick it up: start a run with it.
				return a.startPrompt(args)
			}
			if err := a.b.FollowUp(args); err != nil {
				a.tr.Error(err.Error())
			} else {
				a.tr.Notice("queued for when the agent would stop: " + oneLine(args))
			}
			return nil
		}},
		{Name: "tree", Help: "browse the session tree: go to an entry, fork, label", Idle: true, UI: func(a *App, _ string) tea.Cmd {
			return a.openTree()
		}},
		{Name: "fork", Help: "copy the conversation so far into a new session and continue there", Idle: true, UI: func(a *App, _ string) tea.Cmd {
			return a.fork("", false)
		}},
		{Name: "thinking-view", Help: "show or fold thinking (also ctrl+t)", UI: func(a *App, _ string) tea.Cmd {
			a.flags.thinking = !a.flags.thinking
			return nil
		}},
		{Name: "exit", Help: "quit (also ctrl+d, or ctrl+c twice on an empty editor)", UI: func(a *App, _ string) tea.Cmd {
			return a.quit()
		}},
		{Name: "quit", Help: "quit", UI: func(a *App, _ string) tea.Cmd { return a.quit() }},
	}
}

// lookup finds a command by name or unique prefix.
func (a *App) lookup(name string) (Command, error) {
	var found []Command
	for _, c := range a.commands {
		if c.Name == name {
			return c, nil
		}
		if strings.HasPrefix(c.Name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Command{}, fmt.Errorf("unknown command /%s; /help lists them", name)
	}
	names := make([]string, len(found))
	for i, c := range found {
		names[i] = "/" + c.Name
	}
	return Command{}, fmt.Errorf("/%s could be %s", name, strings.Join(names, ", "))
}

// runCommand runs a slash command line.
func (a *App) runCommand(line string) tea.Cmd {
	name, args, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	c, err := a.lookup(name)
	if err != nil {
		a.tr.Error(err.Error())
		return nil
	}
	if c.Idle && a.busy {
		a.tr.Error("/" + c.Name + " waits for the agent to finish (esc stops it)")
		return nil
	}
	args = strings.TrimSpace(args)
	if c.Send {
		return a.send(strings.TrimSpace(line))
	}
	if c.UI != nil {
		return c.UI(a, args)
	}
	if c.Run == nil {
		return nil
	}
	ctx := a.ctx
	return func() tea.Msg {
		text, err := c.Run(ctx, args)
		return commandDoneMsg{name: c.Name, text: text, err: err}
	}
}

type commandDoneMsg struct {
	name, text string
	err        error
}

func (a *App) helpText() string {
	cs := append([]Command(nil), a.commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	var b strings.Builder
	b.WriteString("Commands:")
	for _, c := range cs {
		fmt.Fprintf(&b, "\n  /%s", c.Name)
		if c.Args != "" {
			b.WriteString(" " + c.Args)
		}
		b.WriteString(" — " + c.Help)
	}
	b.WriteString("\nKeys: enter sends · ctrl+j or alt+enter adds a line · up/down history · " +
		"esc or ctrl+c stops a turn · shift+tab cycles the permission mode · ctrl+t thinking · ctrl+o tool details · pgup/pgdown scroll · ctrl+d quits\n" +
		"While the agent works, what you send steers it (delivered at its next step).")
	return b.String()
}
