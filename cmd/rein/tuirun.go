package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tui"
	"github.com/reinhq/rein/work"
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
	if n := a.StartupNotice(); n != "" {
		go p.Send(tui.NoticeMsg{Text: strings.TrimPrefix(n, "note: ")})
	}
	unsubscribe := a.Subscribe(func(_ context.Context, ev coding.Event) error {
		if ev.Approval != nil {
			p.Send(tui.OpenDialogMsg{Dialog: approvalDialog(ev.Approval)})
			return nil
		}
		p.Send(tui.EventMsg(tui.Snapshot(ev.Event)))
		return nil
	})
	defer unsubscribe()
	defer a.WatchSubagents(subagentLines(p.Send))()
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
	if hint := a.ResumeHint(); hint != "" {
		fmt.Fprintln(screen, hint)
	}
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

// Send implements tui.Sender: text typed while the agent works goes by
// the agent's queue mode (/queue).
func (b *tuiBackend) Send(text string) (string, error) { return b.a.Send(text) }

func (b *tuiBackend) Status() tui.Status {
	h := b.a.Harness()
	m := h.Model()
	s := tui.Status{Model: coding.ModelName(m), Thinking: string(h.Thinking()), ContextWindow: m.ContextWindow, Workspace: b.a.Workspace(),
		MaxCost: b.a.Budget().Cost}
	if sess := b.a.Session(); sess != nil {
		s.Session = sess.ID()
	}
	s.Mode = string(b.a.PermissionMode())
	return s
}

func (b *tuiBackend) CycleMode() (string, error) {
	m, err := b.a.CycleMode()
	return string(m), err
}

func (b *tuiBackend) NewSession(ctx context.Context) (tui.Switched, error) {
	sw, err := b.a.NewSession(ctx)
	return tui.Switched{ID: sw.ID, Old: sw.Old, Text: fmt.Sprintf("new conversation: session %s (rein -r %s resumes the previous one)", coding.ShortID(sw.ID), coding.ShortID(sw.Old))}, err
}

func (b *tuiBackend) Resume(ctx context.Context, ref string) (tui.Switched, error) {
	sw, err := b.a.Resume(ctx, ref)
	return tui.Switched{ID: sw.ID, Old: sw.Old, Messages: sw.Messages, Text: coding.ResumedText(sw)}, err
}

func (b *tuiBackend) Sessions() ([]tui.SessionInfo, error) {
	infos, err := b.a.Sessions()
	out := make([]tui.SessionInfo, len(infos))
	for i, in := range infos {
		out[i] = tui.SessionInfo{ID: in.ID, Modified: in.Modified, Messages: in.Messages, First: in.FirstMessage}
	}
	return out, err
}

// OpenWorkItems implements tui.WorkLister.
func (b *tuiBackend) OpenWorkItems() []tui.WorkItem {
	var out []tui.WorkItem
	for _, it := range b.a.WorkItems().List().Open() {
		out = append(out, tui.WorkItem{ID: it.ID, Title: it.Title, InProgress: it.Status == work.InProgress})
	}
	return out
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
// UI's own forms of tree, fork, followup, clear and resume (a browser, a
// fork that redraws the conversation, a follow-up that starts a run when
// idle, a session switch that redraws it, a session picker) stand in for
// the agent's.
func tuiCommands(a *coding.Agent) []tui.Command {
	var out []tui.Command
	for _, c := range a.Commands() {
		if slices.Contains([]string{"tree", "fork", "followup", "clear", "resume"}, c.Name) {
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
	title := "Permission needed"
	if req.Agent != "" {
		title += " (sub-agent " + req.Agent + ")"
	}
	return &tui.Approval{
		Title:     title,
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
		lines := make(tui.SubagentsMsg, 0, len(recs))
		for _, x := range recs {
			lines = append(lines, tui.AgentLine{ID: x.ID, Agent: x.Agent, State: string(x.State), Description: x.Description})
		}
		send(lines)
	}
}
