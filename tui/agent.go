package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/work"
)

// AgentOptions configure RunAgent.
type AgentOptions struct {
	// Input is where keys are read and Output where frames are drawn:
	// the terminal.
	Input  io.Reader
	Output io.Writer
	// Getenv reads NO_COLOR, REIN_HISTORY and the state directory's
	// variables; nil means os.Getenv.
	Getenv func(string) string
	// Redactor masks secrets in the prompt history kept on disk.
	Redactor *redact.Redactor
	// Attach, when set, is called once before the UI starts with a
	// writer whose lines become notices in the transcript and a function
	// that sets the status note (such as why a model call is retried);
	// the function it returns is called after the UI ended. A front-end
	// routes its own warnings through them, so that nothing written
	// beside the UI garbles the screen. Both may be called from any
	// goroutine until detach returns.
	Attach func(notices io.Writer, status func(string)) (detach func())
}

// RunAgent runs the terminal UI over a ready coding agent until the
// user quits or ctx ends, and returns nil then. The UI shows the
// session's conversation so far, runs the agent's slash commands beside
// its own, asks the agent's approval requests as dialogs, lists running
// sub-agents, and offers to raise a spending limit a prompt reached.
// When it ends, the running prompt is aborted and waited for, and the
// agent's resume hint is written to Output. The agent's start-up notice
// (see coding.Agent.StartupNotice) opens the transcript. RunAgent does
// not close a.
func RunAgent(ctx context.Context, a *coding.Agent, o AgentOptions) error {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	b := &agentBackend{a: a}
	opts := Options{Plain: getenv("NO_COLOR") != "", Commands: agentCommands(a)}
	hist := OpenHistory(getenv, a.Workspace(), o.Redactor)
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
	app := New(ctx, b, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(o.Output), tea.WithInput(o.Input)}
	if opts.Plain {
		popts = append(popts, tea.WithEnvironment(append(os.Environ(), "NO_COLOR=1")))
	}
	p := tea.NewProgram(app, popts...)
	b.send = p.Send
	if n := a.StartupNotice(); n != "" {
		go p.Send(NoticeMsg{Text: strings.TrimPrefix(n, "note: ")})
	}
	unsubscribe := a.Subscribe(func(_ context.Context, ev coding.Event) error {
		if ev.Approval != nil {
			p.Send(OpenDialogMsg{Dialog: approvalDialog(ev.Approval)})
			return nil
		}
		p.Send(EventMsg(Snapshot(ev.Event)))
		return nil
	})
	defer unsubscribe()
	defer a.WatchSubagents(subagentLines(p.Send))()
	if o.Attach != nil {
		defer o.Attach(noticeWriter{p.Send}, func(s string) { p.Send(StatusMsg(s)) })()
	}
	_, err := p.Run()
	a.Abort()
	b.wait()
	if hint := a.ResumeHint(); hint != "" {
		fmt.Fprintln(o.Output, hint)
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
		w.send(NoticeMsg{Text: strings.TrimPrefix(s, "rein: ")})
	}
	return len(p), nil
}

// agentBackend is the UI's view of a coding agent.
type agentBackend struct {
	a    *coding.Agent
	send func(tea.Msg)
	runs sync.WaitGroup
}

func (b *agentBackend) wait() { b.runs.Wait() }

func (b *agentBackend) Prompt(ctx context.Context, text string) error {
	b.runs.Add(1)
	defer b.runs.Done()
	res, err := b.a.Submit(ctx, text)
	if err == nil && res.Stop == harness.StopCompleted {
		if s := coding.FinalText(res); s != res.Text() {
			b.send(NoticeMsg{Text: "work complete: " + s})
		}
	}
	if hint := coding.Hint(err, b.a.Harness().Model().BaseURL); hint != "" {
		b.send(NoticeMsg{Text: "hint: " + hint})
	}
	var over *telemetry.BudgetError
	if errors.As(err, &over) {
		b.send(OpenDialogMsg{Dialog: budgetDialog(b.a, over, func(s string) { b.send(NoticeMsg{Text: s}) })})
	}
	return err
}

func (b *agentBackend) Steer(text string) error    { return b.a.Steer(text) }
func (b *agentBackend) FollowUp(text string) error { return b.a.FollowUp(text) }
func (b *agentBackend) Abort()                     { b.a.Abort() }

// Send implements Sender: text typed while the agent works goes by the
// agent's queue mode (/queue).
func (b *agentBackend) Send(text string) (string, error) { return b.a.Send(text) }

func (b *agentBackend) Status() Status {
	h := b.a.Harness()
	m := h.Model()
	s := Status{Model: coding.ModelName(m), Thinking: string(h.Thinking()), ContextWindow: m.ContextWindow, Workspace: b.a.Workspace(),
		MaxCost: b.a.Budget().Cost}
	if sess := b.a.Session(); sess != nil {
		s.Session = sess.ID()
	}
	s.Mode = string(b.a.PermissionMode())
	return s
}

func (b *agentBackend) CycleMode() (string, error) {
	m, err := b.a.CycleMode()
	return string(m), err
}

func (b *agentBackend) NewSession(ctx context.Context) (Switched, error) {
	sw, err := b.a.NewSession(ctx)
	return Switched{ID: sw.ID, Old: sw.Old, Text: fmt.Sprintf("new conversation: session %s (rein -r %s resumes the previous one)", coding.ShortID(sw.ID), coding.ShortID(sw.Old))}, err
}

func (b *agentBackend) Resume(ctx context.Context, ref string) (Switched, error) {
	sw, err := b.a.Resume(ctx, ref)
	return Switched{ID: sw.ID, Old: sw.Old, Messages: sw.Messages, Text: coding.ResumedText(sw)}, err
}

func (b *agentBackend) Sessions() ([]SessionInfo, error) {
	infos, err := b.a.Sessions()
	out := make([]SessionInfo, len(infos))
	for i, in := range infos {
		out[i] = SessionInfo{ID: in.ID, Modified: in.Modified, Messages: in.Messages, First: in.FirstMessage}
	}
	return out, err
}

// OpenWorkItems implements WorkLister.
func (b *agentBackend) OpenWorkItems() []WorkItem {
	var out []WorkItem
	for _, it := range b.a.WorkItems().List().Open() {
		out = append(out, WorkItem{ID: it.ID, Title: it.Title, InProgress: it.Status == work.InProgress})
	}
	return out
}

func (b *agentBackend) Tree() ([]TreeEntry, string, error) {
	entries, leaf, err := b.a.Tree()
	out := make([]TreeEntry, len(entries))
	for i, en := range entries {
		out[i] = TreeEntry(en)
	}
	return out, leaf, err
}

func (b *agentBackend) Navigate(ctx context.Context, id string) ([]llm.Message, error) {
	return b.a.Navigate(ctx, id)
}

func (b *agentBackend) Fork(id string) (Forked, error) {
	f, err := b.a.Fork(id)
	return Forked(f), err
}

func (b *agentBackend) Label(id, label string) error { return b.a.Label(id, label) }

// agentCommands are the agent's slash commands as the UI runs them; the
// UI's own forms of tree, fork, followup, clear and resume (a browser, a
// fork that redraws the conversation, a follow-up that starts a run when
// idle, a session switch that redraws it, a session picker) stand in for
// the agent's.
func agentCommands(a *coding.Agent) []Command {
	var out []Command
	for _, c := range a.Commands() {
		if slices.Contains([]string{"tree", "fork", "followup", "clear", "resume"}, c.Name) {
			continue
		}
		out = append(out, Command{Name: c.Name, Args: c.Args, Help: c.Help, Idle: c.Idle, Send: c.Prompt, Run: c.Run})
	}
	return out
}
