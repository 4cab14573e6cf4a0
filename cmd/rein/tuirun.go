package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tui"
)

// runTUI runs the terminal UI over a ready agent until the user quits.
// While it runs, rein's own messages to standard error (config
// warnings, notes) become notices in the UI instead of garbling it.
func runTUI(ctx context.Context, e *env, o *runOptions, a *agentSetup) error {
	b := &tuiBackend{e: e, o: o, a: a}
	opts := tui.Options{Plain: e.getenv("NO_COLOR") != "", Commands: b.commands()}
	hist := openHistory(e.getenv, a.ws.Root, redactor())
	if hist != nil {
		opts.PromptStore = hist
	}
	if a.session != nil {
		c := a.session.Context()
		opts.Conversation = c.Messages
		for _, m := range c.Messages {
			// The session's prompts are up/down's when no history file
			// keeps them.
			if m.Role == llm.RoleUser && hist == nil {
				opts.History = append(opts.History, m.Text())
			}
		}
	}
	app := tui.New(ctx, b, opts)
	screen := e.screen
	if screen == nil {
		screen = e.stdout
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(screen), tea.WithInput(e.stdin)}
	if opts.Plain {
		popts = append(popts, tea.WithEnvironment(append(os.Environ(), "NO_COLOR=1")))
	}
	p := tea.NewProgram(app, popts...)
	b.send = p.Send
	unsubscribe := a.harness.Subscribe(func(_ context.Context, ev harness.Event) error {
		if ev.Type == harness.EventPermissionRequest && ev.Permission != nil {
			p.Send(tui.OpenDialogMsg{Dialog: approvalDialog(a.harness, *ev.Permission)})
			return nil
		}
		p.Send(tui.EventMsg(tui.Snapshot(ev)))
		return nil
	})
	defer unsubscribe()
	e.setRetry(func(ev failover.Event) {
		if s := describeRetry(ev); s != "" {
			p.Send(tui.StatusMsg(s))
		}
	})
	defer e.setRetry(nil)
	stderr := e.stderr
	e.stderr = noticeWriter{p.Send}
	defer func() { e.stderr = stderr }()
	_, err := p.Run()
	a.harness.Abort()
	b.wait()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// noticeWriter turns writes into notices of the UI.
type noticeWriter struct{ send func(tea.Msg) }

func (w noticeWriter) Write(p []byte) (int, error) {
	if s := strings.TrimSpace(string(p)); s != "" {
		w.send(tui.NoticeMsg{Text: strings.TrimPrefix(s, "rein: ")})
	}
	return len(p), nil
}

// tuiBackend is the UI's view of the harness and its session. A fork
// replaces a.session, under mu, since the UI reads it meanwhile.
type tuiBackend struct {
	e    *env
	o    *runOptions
	a    *agentSetup
	send func(tea.Msg)
	runs sync.WaitGroup
	mu   sync.Mutex
}

func (b *tuiBackend) wait() { b.runs.Wait() }

func (b *tuiBackend) Prompt(ctx context.Context, text string) error {
	b.runs.Add(1)
	defer b.runs.Done()
	res, err := b.a.harness.Prompt(ctx, text)
	if err == nil && res.Stop == harness.StopCompleted {
		if s := finalText(res); s != res.Text() {
			b.send(tui.NoticeMsg{Text: "work complete: " + s})
		}
	}
	if hint := errorHint(err, b.a.harness.Model().BaseURL); hint != "" {
		b.send(tui.NoticeMsg{Text: "hint: " + hint})
	}
	return err
}

func (b *tuiBackend) Steer(text string) error    { return b.a.harness.Steer(text) }
func (b *tuiBackend) FollowUp(text string) error { return b.a.harness.FollowUp(text) }
func (b *tuiBackend) Abort()                     { b.a.harness.Abort() }

func (b *tuiBackend) Status() tui.Status {
	h := b.a.harness
	m := h.Model()
	s := tui.Status{Model: m.Provider + "/" + m.ID, Thinking: string(h.Thinking()), ContextWindow: m.ContextWindow, Workspace: b.a.ws.Root}
	b.mu.Lock()
	if b.a.session != nil {
		s.Session = b.a.session.ID()
	}
	b.mu.Unlock()
	return s
}

func (b *tuiBackend) sess() (*session.Session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.a.session == nil {
		return nil, errors.New("this chat keeps no session log (--no-session)")
	}
	return b.a.session, nil
}

func (b *tuiBackend) Tree() ([]tui.TreeEntry, string, error) {
	s, err := b.sess()
	if err != nil {
		return nil, "", err
	}
	labels := s.Labels()
	var out []tui.TreeEntry
	for _, en := range s.Entries() {
		if !en.IsTree() {
			continue
		}
		te := tui.TreeEntry{ID: en.ID, Parent: en.Parent, Role: string(en.Type), Label: labels[en.ID]}
		switch {
		case en.Message != nil:
			te.Role = string(en.Message.Role)
			te.Text = en.Message.Text()
			if te.Text == "" {
				var names []string
				for _, c := range en.Message.Content {
					if c.Type == llm.ContentToolCall {
						names = append(names, c.Name)
					}
				}
				te.Text = strings.Join(names, ", ")
			}
		case en.Summary != "":
			te.Text = en.Summary
		case en.Model != "":
			te.Text = en.Provider + "/" + en.Model
		}
		out = append(out, te)
	}
	return out, s.Leaf(), nil
}

func (b *tuiBackend) Navigate(ctx context.Context, id string) ([]llm.Message, error) {
	if _, err := b.sess(); err != nil {
		return nil, err
	}
	if err := b.a.harness.Navigate(ctx, id, harness.NavigateOptions{}); err != nil {
		return nil, err
	}
	return b.a.harness.Store().Context().Messages, nil
}

// Fork forks the session at id (the leaf when "") and moves the harness
// to the fork; the old session is closed, unchanged, for rein --resume.
func (b *tuiBackend) Fork(id string) (tui.Forked, error) {
	s, err := b.sess()
	if err != nil {
		return tui.Forked{}, err
	}
	if err := s.Flush(); err != nil {
		return tui.Forked{}, err
	}
	if id == "" {
		id = s.Leaf()
	}
	forked, err := s.Fork(id, session.Options{Redact: redactor().Bytes})
	if err != nil {
		return tui.Forked{}, err
	}
	f := tui.Forked{ID: shortID(forked.ID()), Old: shortID(s.ID())}
	if err := b.a.harness.SwitchStore(forked); err != nil {
		f.Note = fmt.Sprintf("%v; continue the fork with rein --resume %s", err, f.ID)
		return f, forked.Close()
	}
	so := b.a.harness.StreamOptions()
	so.SessionID = forked.ID()
	b.a.harness.SetStreamOptions(so)
	if p := b.a.perm; p != nil && p.cmds != nil {
		p.cmds.SetSession(forked.ID(), forked.Path())
	}
	b.mu.Lock()
	b.a.session = forked
	b.mu.Unlock()
	f.Switched, f.Messages = true, forked.Context().Messages
	if err := s.Close(); err != nil {
		f.Note = "closing the old session: " + err.Error()
	}
	return f, nil
}

func (b *tuiBackend) Label(id, label string) error { return b.a.harness.Label(id, label) }

// commands are the slash commands that act on the agent.
func (b *tuiBackend) commands() []tui.Command {
	h := b.a.harness
	return []tui.Command{
		{Name: "model", Args: "[MODEL]", Help: "show or switch the model (rein models lists them)", Idle: true, Run: func(_ context.Context, args string) (string, error) {
			if args == "" {
				m := h.Model()
				return fmt.Sprintf("model %s/%s · context %d tokens · /model NAME switches", m.Provider, m.ID, m.ContextWindow), nil
			}
			o := *b.o
			o.model, o.script = args, ""
			if args == "faux" {
				return "", errors.New("the faux model needs a script; start rein with --model faux --script FILE")
			}
			m, p, err := o.resolveModel(b.e, b.a.ws.Root)
			if err != nil {
				return "", err
			}
			if err := h.SetProvider(p); err != nil {
				return "", err
			}
			if err := h.SetModel(m); err != nil {
				return "", err
			}
			return "model: " + m.Provider + "/" + m.ID, nil
		}},
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
		{Name: "compact", Args: "[FOCUS]", Help: "summarise the older part of the conversation now, with an optional focus", Idle: true, Run: func(ctx context.Context, args string) (string, error) {
			if _, err := h.Compact(ctx, harness.CompactOptions{Focus: args}); err != nil {
				return "", err
			}
			return "compacted: the next prompt starts from the summary and the recent turns", nil
		}},
		{Name: "sessions", Help: "list the sessions of this workspace", Run: func(context.Context, string) (string, error) {
			infos, err := session.List(session.DefaultDir(b.a.ws.Root))
			if err != nil {
				return "", err
			}
			var sb strings.Builder
			fmt.Fprintf(&sb, "%d session%s in %s (rein --resume ID continues one):", len(infos), plural(len(infos)), relPath(b.a.ws.Root, session.DefaultDir(b.a.ws.Root)))
			for i, in := range infos {
				if i == 20 {
					fmt.Fprintf(&sb, "\n  … %d more", len(infos)-i)
					break
				}
				fmt.Fprintf(&sb, "\n  %s  %s  %d msg  %s", shortID(in.ID), in.Modified.Local().Format("01-02 15:04"), in.Messages, truncateLine(in.FirstMessage, 60))
			}
			return sb.String(), nil
		}},
		{Name: "session", Help: "show the session log's path", Run: func(context.Context, string) (string, error) {
			s, err := b.sess()
			if err != nil {
				return "", err
			}
			return relPath(b.a.ws.Root, s.Path()), nil
		}},
		{Name: "label", Args: "TEXT", Help: "label the current entry of the session tree (/tree shows labels)", Run: func(_ context.Context, args string) (string, error) {
			s, err := b.sess()
			if err != nil {
				return "", err
			}
			if err := h.Label(s.Leaf(), args); err != nil {
				return "", err
			}
			return "labelled " + shortID(s.Leaf()) + ": " + args, nil
		}},
	}
}

// approvalDialog asks the user about a permission request in the UI and
// answers it through the harness: allow once, allow always (the
// suggested rule is stored in the project's settings), or deny.
func approvalDialog(h *harness.Harness, req permission.Request) *tui.Approval {
	choices := []string{"allow once", "allow always", "deny"}
	if req.Suggest != "" {
		choices[1] = "allow always: " + req.Suggest
	}
	return &tui.Approval{
		Title:   "Permission needed",
		Detail:  describeRequest(req),
		Choices: choices,
		Reply: func(i int) {
			ans := permission.Answer{Kind: permission.DenyCall, Reason: "the user declined"}
			switch i {
			case 0:
				ans = permission.Answer{Kind: permission.AllowOnce}
			case 1:
				ans = permission.Answer{Kind: permission.AllowAlways}
			}
			go h.AnswerPermission(req.ID, ans)
		},
	}
}
