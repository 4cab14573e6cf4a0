package coding

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/subagent"
)

// agentCommands are the slash commands for sub-agents and for messages
// sent while the agent works, so that every front-end has them:
// /agents lists and cancels children; /queue sets how text typed while a
// prompt runs is delivered, and /steer, /collect and /interrupt pick the
// mode for one message.
func (a *Agent) agentCommands() []Command {
	cs := []Command{
		{Name: "agents", Args: "[cancel ID]", Help: "list the sub-agents (running ones first), or cancel one by its id (a unique prefix)", Run: a.agentsCommand},
		{Name: "queue", Args: "[MODE]", Help: "show or set how text typed while the agent works is sent: steer, followup, collect, interrupt", Run: a.queueCommand},
	}
	for _, m := range []lane.QueueMode{lane.ModeSteer, lane.ModeCollect, lane.ModeInterrupt} {
		cs = append(cs, Command{Name: string(m), Args: "TEXT", Help: queueHelp[m], Run: func(_ context.Context, args string) (string, error) {
			return a.sendAs(m, args)
		}})
	}
	return cs
}

var queueHelp = map[lane.QueueMode]string{
	lane.ModeSteer:     "send TEXT into the running prompt at its next step",
	lane.ModeCollect:   "hold TEXT; everything collected runs as one prompt after the running one",
	lane.ModeInterrupt: "stop the running prompt and run TEXT next",
}

// QueueMode is how Send delivers text while a prompt runs: steer unless
// SetQueueMode said otherwise.
func (a *Agent) QueueMode() lane.QueueMode {
	a.smu.Lock()
	defer a.smu.Unlock()
	if a.busyMode == "" {
		return lane.ModeSteer
	}
	return a.busyMode
}

// SetQueueMode sets how Send delivers text while a prompt runs; an
// unknown mode is a *lane.ConfigError and changes nothing.
func (a *Agent) SetQueueMode(m lane.QueueMode) error {
	m, err := lane.ParseQueueMode(string(m))
	if err != nil {
		return err
	}
	a.smu.Lock()
	a.busyMode = m
	a.smu.Unlock()
	return nil
}

// Send delivers text typed while a prompt runs by the agent's queue mode
// (see Queue) and returns a line saying what became of it.
func (a *Agent) Send(text string) (string, error) { return a.sendAs(a.QueueMode(), text) }

func (a *Agent) sendAs(m lane.QueueMode, text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("/%s needs the text to send", m)
	}
	if !a.Busy() && (m == lane.ModeSteer || m == lane.ModeFollowUp) {
		return "", fmt.Errorf("no prompt runs to %s: send the text as a prompt", m)
	}
	d, err := a.Queue(text, m)
	if err != nil {
		return "", err
	}
	short := oneLine(text, 120)
	switch d {
	case lane.Steered:
		return "steering: delivered at the agent's next step — " + short, nil
	case lane.FollowedUp:
		return "queued for when the agent would stop — " + short, nil
	case lane.Collected:
		return fmt.Sprintf("collected (%d waiting): runs as one prompt after the running one — %s", a.Queued(), short), nil
	}
	return "interrupting: the running prompt stops and this runs next — " + short, nil
}

func (a *Agent) queueCommand(_ context.Context, args string) (string, error) {
	if args = strings.TrimSpace(args); args != "" {
		if err := a.SetQueueMode(lane.QueueMode(args)); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("text typed while the agent works is sent as %s (/queue steer|followup|collect|interrupt changes it; /steer, /collect, /interrupt TEXT pick one message's)", a.QueueMode()), nil
}

// agentsCommand lists the agent's sub-agents, or cancels one.
func (a *Agent) agentsCommand(_ context.Context, args string) (string, error) {
	f := strings.Fields(args)
	switch {
	case len(f) == 0:
		return a.agentsList(), nil
	case f[0] == "cancel" && len(f) == 2:
		rec, ok := a.sub.Cancel(f[1])
		if !ok {
			if rec.ID != "" {
				return "", fmt.Errorf("sub-agent %s has already ended (%s)", ShortID(rec.ID), rec.State)
			}
			return "", fmt.Errorf("no running sub-agent has the id %q: /agents lists them", f[1])
		}
		return fmt.Sprintf("cancelled sub-agent %s (%s)", ShortID(rec.ID), rec.Agent), nil
	}
	return "", fmt.Errorf("usage: /agents, or /agents cancel ID")
}

// agentsList renders the sub-agents, live ones first, then the ended
// ones, newest last.
func (a *Agent) agentsList() string {
	recs := a.sub.Children()
	if len(recs) == 0 {
		return "no sub-agents"
	}
	var live, ended []subagent.Record
	for _, r := range recs {
		if r.State.Terminal() {
			ended = append(ended, r)
		} else {
			live = append(live, r)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sub-agents: %d running or queued, %d ended", len(live), len(ended))
	line := func(r subagent.Record) {
		mode := "foreground"
		if r.Background {
			mode = "background"
		}
		fmt.Fprintf(&b, "\n  %s  %-10s %-9s %s  %s", ShortID(r.ID), r.Agent, r.State, mode, oneLine(r.Description, 60))
		if r.State.Terminal() {
			fmt.Fprintf(&b, "  · %d in / %d out · $%.4f", r.Usage.Input, r.Usage.Output, r.Usage.Cost)
		}
	}
	for _, r := range live {
		line(r)
	}
	for _, r := range ended {
		line(r)
	}
	if len(live) > 0 {
		b.WriteString("\n/agents cancel ID stops one")
	}
	return b.String()
}
