package main

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tui"
)

// runTUI runs the terminal UI over a ready agent until the user quits.
// While it runs, rein's own messages to standard error (config
// warnings, notes) become notices in the UI instead of garbling it.
func runTUI(ctx context.Context, e *env, a *coding.Agent) error {
	b := &tuiBackend{a: a}
	opts := tui.Options{Plain: e.getenv("NO_COLOR") != "", Commands: tuiCommands(a)}
	hist := tui.OpenHistory(e.getenv, a.Workspace(), redactor())
	if hist != nil {
		opts.PromptStore = hist
	}
	if s := a.Session(); s != nil {
		c := s.Context()
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
	unsubscribe := a.Subscribe(func(_ context.Context, ev coding.Event) error {
		if ev.Approval != nil {
			p.Send(tui.OpenDialogMsg{Dialog: approvalDialog(ev.Approval)})
			return nil
		}
		p.Send(tui.EventMsg(tui.Snapshot(ev.Event)))
		return nil
	})
	defer unsubscribe()
	e.setRetry(func(ev failover.Event) {
		if s := coding.DescribeRetry(ev); s != "" {
			p.Send(tui.StatusMsg(s))
		}
	})
	defer e.setRetry(nil)
	e.mu.Lock()
	stderr := e.stderr
	e.stderr = noticeWriter{p.Send}
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.stderr = stderr
		e.mu.Unlock()
	}()
	_, err := p.Run()
	a.Abort()
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

// tuiBackend is the UI's view of the agent.
type tuiBackend struct {
	a    *coding.Agent
	send func(tea.Msg)
	runs sync.WaitGroup
}

func (b *tuiBackend) wait() { b.runs.Wait() }

func (b *tuiBackend) Prompt(ctx context.Context, text string) error {
	b.runs.Add(1)
	defer b.runs.Done()
	res, err := b.a.Submit(ctx, text)
	if err == nil && res.Stop == harness.StopCompleted {
		if s := coding.FinalText(res); s != res.Text() {
			b.send(tui.NoticeMsg{Text: "work complete: " + s})
		}
	}
	if hint := coding.Hint(err, b.a.Harness().Model().BaseURL); hint != "" {
		b.send(tui.NoticeMsg{Text: "hint: " + hint})
	}
	var over *telemetry.BudgetError
	if errors.As(err, &over) {
		b.send(tui.OpenDialogMsg{Dialog: budgetDialog(b.a, over, func(s string) { b.send(tui.NoticeMsg{Text: s}) })})
	}
	return err
}

func (b *tuiBackend) Steer(text string) error    { return b.a.Steer(text) }
func (b *tuiBackend) FollowUp(text string) error { return b.a.FollowUp(text) }
func (b *tuiBackend) Abort()                     { b.a.Abort() }

func (b *tuiBackend) Status() tui.Status {
	h := b.a.Harness()
	m := h.Model()
	s := tui.Status{Model: coding.ModelName(m), Thinking: string(h.Thinking()), ContextWindow: m.ContextWindow, Workspace: b.a.Workspace(),
		MaxCost: b.a.Budget().Cost}
	if sess := b.a.Session(); sess != nil {
		s.Session = sess.ID()
	}
	return s
}

func (b *tuiBackend) Tree() ([]tui.TreeEntry, string, error) {
	entries, leaf, err := b.a.Tree()
	out := make([]tui.TreeEntry, len(entries))
	for i, en := range entries {
		out[i] = tui.TreeEntry(en)
	}
	return out, leaf, err
}

func (b *tuiBackend) Navigate(ctx context.Context, id string) ([]llm.Message, error) {
	return b.a.Navigate(ctx, id)
}

func (b *tuiBackend) Fork(id string) (tui.Forked, error) {
	f, err := b.a.Fork(id)
	return tui.Forked(f), err
}

func (b *tuiBackend) Label(id, label string) error { return b.a.Label(id, label) }

// tuiCommands are the agent's slash commands as the UI runs them; the
// UI's own forms of tree, fork and followup (a browser, a fork that
// redraws the conversation, a follow-up that starts a run when idle)
// stand in for the agent's.
func tuiCommands(a *coding.Agent) []tui.Command {
	var out []tui.Command
	for _, c := range a.Commands() {
		if slices.Contains([]string{"tree", "fork", "followup"}, c.Name) {
			continue
		}
		out = append(out, tui.Command{Name: c.Name, Args: c.Args, Help: c.Help, Idle: c.Idle, Send: c.Prompt, Run: c.Run})
	}
	return out
}

// approvalDialog asks the user about a permission request in the UI and
// answers it: allow once, allow always (the suggested rule is stored in
// the project's settings), or deny.
func approvalDialog(req *coding.Approval) *tui.Approval {
	choices := []string{"allow once", "allow always", "deny"}
	if req.Suggest != "" {
		choices[1] = "allow always: " + req.Suggest
	}
	return &tui.Approval{
		Title:     "Permission needed",
		Detail:    coding.DescribeRequest(req.Request),
		Choices:   choices,
		ReasonFor: 2,
		ReplyReason: func(i int, reason string) {
			go req.Answer(tuiAnswer(i, reason))
		},
	}
}

// tuiAnswer turns the dialog's choice (-1 when dismissed) and the reason
// typed after "deny" into an answer.
func tuiAnswer(choice int, reason string) permission.Answer {
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
