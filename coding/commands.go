package coding

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
)

// Command is a slash command every front-end lists and runs the same
// way: "/name args".
type Command struct {
	Name string // without the slash
	Args string // usage of the arguments, for help
	Help string
	// Idle commands are refused while a prompt runs.
	Idle bool
	// Prompt commands are prompt templates: the whole line is a prompt,
	// sent with Submit (or Steer while a prompt runs), which expands it.
	// Their Run is nil.
	Prompt bool
	// Run runs the command and returns the text to show. It may take a
	// while (a model switch, a compaction): front-ends call it off their
	// UI goroutine.
	Run func(ctx context.Context, args string) (string, error)
}

// Commands lists the slash commands of the agent, the prompt templates
// last, in a fixed order. Front-ends add their own (help, exit, the
// screen's) beside them; a front-end that shows a richer form of one of
// these (a tree browser) may keep its own under the same name.
func (a *Agent) Commands() []Command {
	h := a.h
	cs := []Command{
		{Name: "model", Args: "[MODEL]", Help: "show or switch the model (rein models lists them)", Idle: true, Run: a.modelCommand},
		{Name: "thinking", Args: "[LEVEL]", Help: "show or set the reasoning effort: off, minimal, low, medium, high, xhigh", Run: func(_ context.Context, args string) (string, error) {
			if args == "" {
				l := h.Thinking()
				if l == "" {
					l = "the model's default"
				}
				return "thinking: " + string(l), nil
			}
			if err := h.SetThinking(llm.ThinkingLevel(args)); err != nil {
				return "", err
			}
			return "thinking: " + args, nil
		}},
		{Name: "tools", Args: "[NAMES]", Help: "list the tools, or set the active ones (comma-separated names or toolsets)", Idle: true, Run: func(_ context.Context, args string) (string, error) {
			if args != "" {
				if err := h.SetActiveTools(strings.Split(strings.ReplaceAll(args, " ", ""), ",")); err != nil {
					return "", err
				}
			}
			return fmt.Sprintf("active tools: %s\nall tools: %s", strings.Join(h.ActiveTools(), ", "), strings.Join(h.Tools().Names(), ", ")), nil
		}},
		{Name: "mode", Args: "[MODE]", Help: "show or set the permission mode: plan, ask, auto_read, auto_edit, auto_all", Run: a.modeCommand},
		{Name: "compact", Args: "[FOCUS]", Help: "summarise the older part of the conversation now, with an optional focus", Idle: true, Run: func(ctx context.Context, args string) (string, error) {
			if err := a.Compact(ctx, args); err != nil {
				return "", err
			}
			return "compacted: the next prompt starts from the summary and the recent turns", nil
		}},
		{Name: "followup", Args: "TEXT", Help: "queue TEXT for when the agent would otherwise stop", Run: func(_ context.Context, args string) (string, error) {
			if args == "" {
				return "", fmt.Errorf("/followup needs the text to queue")
			}
			if err := a.FollowUp(args); err != nil {
				return "", err
			}
			return "queued for when the agent would stop", nil
		}},
		{Name: "status", Help: "the model, mode, session, context use and cost so far", Run: func(context.Context, string) (string, error) {
			return a.status(), nil
		}},
		{Name: "session", Help: "show the session log's path", Run: func(context.Context, string) (string, error) {
			s, err := a.session()
			if err != nil {
				return "", err
			}
			return s.Path(), nil
		}},
		{Name: "sessions", Help: "list the sessions of this workspace", Run: a.sessionsCommand},
		{Name: "label", Args: "TEXT", Help: "label the current entry of the session tree (/tree shows labels)", Run: func(_ context.Context, args string) (string, error) {
			s, err := a.session()
			if err != nil {
				return "", err
			}
			if err := a.Label(s.Leaf(), args); err != nil {
				return "", err
			}
			return "labelled " + ShortID(s.Leaf()) + ": " + args, nil
		}},
		{Name: "tree", Args: "[ID]", Help: "list the session tree, or go to entry ID (a unique prefix)", Idle: true, Run: a.treeCommand},
		{Name: "fork", Args: "[ID]", Help: "copy the conversation (up to entry ID) into a new session and continue there", Idle: true, Run: func(_ context.Context, args string) (string, error) {
			id := ""
			if args != "" {
				var err error
				if id, err = a.entry(args); err != nil {
					return "", err
				}
			}
			f, err := a.Fork(id)
			if err != nil {
				return "", err
			}
			out := "forked " + f.Old + " into " + f.ID
			if f.Switched {
				out += "; continuing there (rein --resume " + f.Old + " continues the old one)"
			}
			if f.Note != "" {
				out += "\n" + f.Note
			}
			return out, nil
		}},
	}
	cs = append(cs, a.termCommands()...)
	cs = append(cs, a.agentCommands()...)
	for _, t := range a.found.Templates {
		if slices.ContainsFunc(cs, func(c Command) bool { return c.Name == t.Name }) {
			continue
		}
		cs = append(cs, Command{Name: t.Name, Args: t.ArgumentHint, Help: t.Description, Prompt: true})
	}
	return cs
}

// Command finds the command line's command: by its name, else by a
// unique prefix of it. ok is false when line is not a slash command at
// all; err says what is wrong with one that matches none or several.
func (a *Agent) Command(line string) (c Command, args string, ok bool, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "/")
	if !ok || rest == "" || strings.HasPrefix(rest, "/") {
		return Command{}, "", false, nil
	}
	name, args, _ := strings.Cut(rest, " ")
	c, err = Lookup(a.Commands(), name)
	return c, strings.TrimSpace(args), true, err
}

// Lookup finds a command by name or unique prefix among cs.
func Lookup(cs []Command, name string) (Command, error) {
	var found []Command
	for _, c := range cs {
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

// Busy reports whether a prompt (or a compaction, a navigation) runs.
func (a *Agent) Busy() bool { return a.h.Phase() != harness.PhaseIdle }

func (a *Agent) modelCommand(_ context.Context, args string) (string, error) {
	h := a.h
	if args == "" {
		m := h.Model()
		return fmt.Sprintf("model %s/%s · context %d tokens · /model NAME switches", m.Provider, m.ID, m.ContextWindow), nil
	}
	m, p, err := a.s.resolveModel(args)
	if err != nil {
		return "", err
	}
	if err := h.SetProvider(p); err != nil {
		return "", err
	}
	if err := h.SetModel(m); err != nil {
		return "", err
	}
	return "model: " + ModelName(m), nil
}

func (a *Agent) modeCommand(_ context.Context, args string) (string, error) {
	g := a.h.Permission()
	if g == nil {
		return "no permission gate", nil
	}
	if args == "" {
		return "permission mode: " + string(g.Mode()), nil
	}
	m, err := permission.ParseMode(args)
	if err == nil {
		err = g.SetMode(m)
	}
	if err != nil {
		return "", err
	}
	return "permission mode: " + string(m) + " (from the next tool call)", nil
}

func (a *Agent) sessionsCommand(context.Context, string) (string, error) {
	dir := session.DefaultDir(a.Workspace())
	infos, err := session.List(dir)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d session(s) in %s (rein --resume ID continues one):", len(infos), dir)
	for i, in := range infos {
		if i == 20 {
			fmt.Fprintf(&sb, "\n  … %d more", len(infos)-i)
			break
		}
		first := strings.ReplaceAll(in.FirstMessage, "\n", " ")
		if len(first) > 60 {
			first = first[:59] + "…"
		}
		fmt.Fprintf(&sb, "\n  %s  %s  %d msg  %s", ShortID(in.ID), in.Modified.Local().Format("01-02 15:04"), in.Messages, first)
	}
	return sb.String(), nil
}

// status sums up the agent on a few lines.
func (a *Agent) status() string {
	h := a.h
	var b strings.Builder
	fmt.Fprintf(&b, "model %s", ModelName(h.Model()))
	if t := h.Thinking(); t != "" {
		fmt.Fprintf(&b, " · thinking %s", t)
	}
	if m := a.PermissionMode(); m != "" {
		fmt.Fprintf(&b, " · mode %s (%s; shift+tab or /mode changes it)", m, m.ClaudeName())
	}
	fmt.Fprintf(&b, "\nworkspace %s", a.Workspace())
	if s := a.Session(); s != nil {
		fmt.Fprintf(&b, "\nsession %s (%s)", s.ID(), s.Path())
	}
	if cs := h.ContextStatus(); cs.Window > 0 {
		fmt.Fprintf(&b, "\n%s", cs.String())
	}
	u, _ := a.usage()
	fmt.Fprintf(&b, "\ntokens %d in (%d cached), %d out · cost $%.4f", u.PromptTokens(), u.CacheRead, u.Output, u.Cost.Total)
	if recs := a.sub.Children(); len(recs) > 0 {
		sp := a.sub.Spent()
		fmt.Fprintf(&b, "\nsub-agents %d (%d running) · tokens %d in, %d out · cost $%.4f · total cost $%.4f", len(recs), len(a.sub.Active()), sp.Input, sp.Output, sp.Cost, u.Cost.Total+sp.Cost)
	}
	return b.String()
}

// entry resolves an entry id, or a unique prefix of one, in the tree.
func (a *Agent) entry(ref string) (string, error) {
	entries, _, err := a.Tree()
	if err != nil {
		return "", err
	}
	var matches []string
	for _, e := range entries {
		if e.ID == ref {
			return ref, nil
		}
		if strings.HasPrefix(e.ID, ref) {
			matches = append(matches, e.ID)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no entry %q; /tree lists them", ref)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("%q matches %d entries; give more of the id", ref, len(matches))
}

// treeCommand lists the last entries of the tree, or moves to one.
func (a *Agent) treeCommand(ctx context.Context, args string) (string, error) {
	if args != "" {
		id, err := a.entry(args)
		if err != nil {
			return "", err
		}
		msgs, err := a.Navigate(ctx, id)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("at %s: %d message(s) on this path; the next prompt continues from here", ShortID(id), len(msgs)), nil
	}
	entries, leaf, err := a.Tree()
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "the session is empty", nil
	}
	const shown = 30
	var b strings.Builder
	if len(entries) > shown {
		fmt.Fprintf(&b, "… %d earlier entries\n", len(entries)-shown)
		entries = entries[len(entries)-shown:]
	}
	for i, e := range entries {
		mark := " "
		if e.ID == leaf {
			mark = "*"
		}
		text := strings.ReplaceAll(e.Text, "\n", " ")
		if len(text) > 70 {
			text = text[:69] + "…"
		}
		if e.Label != "" {
			text = "[" + e.Label + "] " + text
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s %s  %-11s %s", mark, ShortID(e.ID), e.Role, text)
	}
	b.WriteString("\n(* is where you are; /tree ID goes to an entry, /fork ID forks there)")
	return b.String(), nil
}
