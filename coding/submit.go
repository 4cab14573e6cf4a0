package coding

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/hook/command"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/telemetry"
)

// BlockedError is returned by Submit when a UserPromptSubmit hook blocked
// the prompt: it never reached the model and nothing was logged.
type BlockedError struct {
	// Reason is what the hook said, when it said anything.
	Reason string
}

func (e *BlockedError) Error() string {
	if e.Reason == "" {
		return "a UserPromptSubmit hook blocked the prompt"
	}
	return "a UserPromptSubmit hook blocked the prompt: " + e.Reason
}

// Submit is the one path of a prompt, for every front-end: "/name args"
// naming a prompt template becomes the template's text; the
// UserPromptSubmit hooks run on the result (a block returns a
// *BlockedError and the prompt goes nowhere; their context goes to the
// model with it); then the agent runs until the model stops. A Submit
// while another runs fails with the harness's busy error. Close aborts
// it; ctx ending aborts it too.
func (a *Agent) Submit(ctx context.Context, text string, images ...llm.Content) (harness.Result, error) {
	return a.submit(ctx, false, text, images, telemetry.Info{})
}

// submit runs a prompt: waiting for the session's turn when wait, else
// failing with busy; info is what the run record says of the run.
func (a *Agent) submit(ctx context.Context, wait bool, text string, images []llm.Content, info telemetry.Info) (harness.Result, error) {
	if !a.enter() {
		return harness.Result{}, ErrClosed
	}
	defer a.runs.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(a.life, cancel)()
	ctx, leave, err := a.enterLane(ctx, wait)
	if err != nil {
		return harness.Result{}, err
	}
	defer leave()
	inv, invoked := a.invoke(text)
	if invoked {
		if inv.Text == "" {
			return harness.Result{}, fmt.Errorf("/%s cannot be used: %s", inv.Name, strings.Join(inv.Notes, "; "))
		}
		text = inv.Text
		defer a.apply(inv)()
	}
	if a.perm.cmds.Has(command.UserPromptSubmit) {
		v := a.perm.cmds.UserPromptSubmit(ctx, text)
		if v.Decision == "block" || v.Stopped {
			reason := v.Reason
			if reason == "" {
				reason = v.Stop
			}
			return harness.Result{}, &BlockedError{Reason: strings.TrimSpace(reason)}
		}
		if v.Context != "" {
			_ = a.h.NextTurn(v.Context)
		}
	}
	ctx, run := a.s.tel.Begin(ctx, a.h, info)
	res, err := a.h.Prompt(ctx, text, images...)
	run.End(res, err)
	a.mu.Lock()
	a.lastRun = run
	a.mu.Unlock()
	return res, err
}

// Expand returns the text of the prompt template text invokes ("/name
// args"), or text itself when it names none. Notes about the arguments
// go to Warn.
func (a *Agent) Expand(text string) string {
	if inv, ok := a.invoke(text); ok && inv.Text != "" {
		return inv.Text
	}
	return text
}

// Steer queues text (a template is expanded) for the running prompt: it
// is delivered at the agent's next step.
func (a *Agent) Steer(text string) error { return a.h.Steer(a.Expand(text)) }

// FollowUp queues text (a template is expanded) for when the agent would
// otherwise stop.
func (a *Agent) FollowUp(text string) error { return a.h.FollowUp(a.Expand(text)) }

// Abort stops the running prompt, if any; its tools are killed and it
// returns with stop reason aborted.
func (a *Agent) Abort() { a.h.Abort() }

// Compact summarises the older part of the conversation now, with an
// optional focus for the summary.
func (a *Agent) Compact(ctx context.Context, focus string) error {
	if !a.enter() {
		return ErrClosed
	}
	defer a.runs.Done()
	_, err := a.h.Compact(ctx, harness.CompactOptions{Focus: focus})
	return err
}
