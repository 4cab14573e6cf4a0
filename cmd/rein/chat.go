package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/spf13/cobra"
)

func newChatCmd(e *env) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: "Talk with the agent: the terminal UI, or a line chat with --plain; type while it works to steer it",
		Long: `Start an interactive session: the terminal UI on a terminal (see docs/tui.md),
the line chat below with --plain, when piped, or when TERM is dumb or unset.

In the line chat, type a message and press Enter to give the agent
a task. While it works, whatever you type steers it: the message is delivered
at its next step. Ctrl-C stops the current turn; Ctrl-C when idle, Ctrl-D or
/exit quits.

Commands (/help lists them all; the terminal UI has the same ones):
  /model [MODEL]   show or switch the model       /tools [NAMES]  the active tools
  /mode [MODE]     the permission mode (plan, ask, auto_read, auto_edit, auto_all)
  /thinking, /compact [FOCUS], /followup TEXT, /status, /session, /sessions,
  /tree [ID], /fork [ID], /label TEXT
  /NAME ARGS       send the prompt template NAME (rein prompts lists them)
  /exit            quit

The session is written under .rein/sessions/; continue it later with
rein sessions resume.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := o.sessionRef()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := o.resolveTextFlags(); err != nil {
				return &exitError{code: 2, err: err}
			}
			if ref != "" {
				return resumeSession(cmd, e, o, ref, nil)
			}
			return startChat(cmd, e, o)
		},
	}
	addRunFlags(cmd, o)
	addSessionFlags(cmd, o)
	cmd.Flags().BoolVar(&o.plain, "plain", false, "the line chat, also used when standard input or output is not a terminal or TERM is dumb")
	cmd.Flags().BoolVar(&o.noSession, "no-session", false, "do not write a session log under .rein/sessions/")
	return cmd
}

// chat runs the interactive loop until stdin ends, /exit, or ctx ends.
func chat(ctx context.Context, e *env, a *coding.Agent) error {
	baseURL := a.Harness().Model().BaseURL
	p := &printer{out: e.stdout, info: e.stdout, color: e.color, preview: 1}
	defer func() {
		if hint := a.ResumeHint(); hint != "" {
			fmt.Fprintln(e.stdout, p.style(ansiDim, hint))
		}
	}()
	lines := make(chan string)
	stop := make(chan struct{})
	defer close(stop)
	approvals := make(chan *coding.Approval)
	unsubscribe := a.Subscribe(func(_ context.Context, ev coding.Event) error {
		if ev.Approval != nil {
			go func() {
				select {
				case approvals <- ev.Approval:
				case <-stop:
				}
			}()
			return nil
		}
		p.event(ev.Event.Event)
		contextEvent(e.stdout, p, ev.Event)
		return nil
	})
	defer unsubscribe()
	var asking []*coding.Approval // asking[0] is on screen
	go readLines(e.stdin, lines, stop)

	type outcome struct {
		res harness.Result
		err error
	}
	done := make(chan outcome, 1)
	busy := false
	submit := func(text string) {
		busy = true
		go func() {
			res, err := a.Submit(ctx, text)
			done <- outcome{res, err}
		}()
	}
	// The first Ctrl-C during a turn aborts it; a second one before the
	// turn has wound down quits, as Ctrl-C does when idle.
	var aborting atomic.Bool
	e.setInterrupt(func() bool {
		if a.Busy() && !aborting.Swap(true) {
			fmt.Fprintln(e.stderr, p.style(ansiDim, "stopping the turn… (Ctrl-C again to quit)"))
			a.Abort()
			return true
		}
		return false
	})
	defer e.setInterrupt(nil)

	model := a.Harness().Model()
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiBold, fmt.Sprintf("rein chat — %s/%s in %s", model.Provider, model.ID, a.Workspace())))
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiDim, "Type a task. While the agent works, type to steer it. Ctrl-C stops a turn; /exit quits; /help for more."))
	ready := func() { fmt.Fprint(e.stdout, p.style(ansiCyan, "› ")) }
	ready()
	wait := func() {
		if busy {
			a.Abort()
			<-done
			busy = false
		}
	}
	for {
		select {
		case <-ctx.Done():
			wait()
			fmt.Fprintln(e.stdout)
			return nil
		case req := <-approvals:
			asking = append(asking, req)
			if len(asking) == 1 {
				fmt.Fprint(e.stdout, "\n"+p.style(ansiBold, coding.AskLine(req.Request)))
			}
		case out := <-done:
			busy = false
			aborting.Store(false)
			asking = nil
			var blocked *coding.BlockedError
			switch {
			case errors.As(out.err, &blocked):
				fmt.Fprintln(e.stdout, p.style(ansiRed, "  "+out.err.Error()))
			case out.err != nil:
				// The failed reply was shown with its message; print the
				// error only when it says something else.
				if p.shownError == "" || !strings.Contains(out.err.Error(), p.shownError) {
					fmt.Fprintln(e.stdout, p.style(ansiRed, "error: "+out.err.Error()))
				}
				if hint := coding.Hint(out.err, baseURL); hint != "" {
					fmt.Fprintln(e.stdout, p.style(ansiDim, "hint: "+hint))
				}
				p.shownError = ""
			case out.res.Stop != agent.StopCompleted:
				fmt.Fprintln(e.stdout, p.style(ansiDim, fmt.Sprintf("(stopped: %s %s)", out.res.Stop, out.res.Detail)))
			}
			ready()
		case line, ok := <-lines:
			if !ok {
				if busy {
					out := <-done
					busy = false
					if out.err != nil && (p.shownError == "" || !strings.Contains(out.err.Error(), p.shownError)) {
						fmt.Fprintln(e.stdout, p.style(ansiRed, "error: "+out.err.Error()))
					}
				}
				fmt.Fprintln(e.stdout)
				return nil
			}
			line = strings.TrimSpace(line)
			if len(asking) > 0 && !strings.HasPrefix(line, "/") {
				asking = answerQuestion(e, p, asking, line)
				continue
			}
			switch {
			case line == "":
			case line == "/exit" || line == "/quit":
				wait()
				return nil
			case line == "/help":
				chatHelp(e, p, a)
			case strings.HasPrefix(line, "/"):
				c, args, _, err := a.Command(line)
				switch {
				case err != nil:
					fmt.Fprintln(e.stdout, p.style(ansiRed, "  "+err.Error()))
				case c.Prompt && busy:
					steer(e, p, a, line)
				case c.Prompt:
					submit(line)
				case c.Idle && busy:
					fmt.Fprintln(e.stdout, p.style(ansiRed, "  /"+c.Name+" waits for the agent to finish (Ctrl-C stops it)"))
				default:
					text, err := c.Run(ctx, args)
					if err != nil {
						fmt.Fprintln(e.stdout, p.style(ansiRed, "  "+err.Error()))
					} else if text != "" {
						fmt.Fprintln(e.stdout, p.style(ansiDim, "  "+strings.ReplaceAll(text, "\n", "\n  ")))
					}
				}
			case busy:
				steer(e, p, a, line)
			default:
				submit(line)
			}
			if !busy {
				ready()
			}
		}
	}
}

// steer sends a line typed while the agent works, by the agent's queue
// mode (/queue; steer unless changed).
func steer(e *env, p *printer, a *coding.Agent, line string) {
	if out, err := a.Send(line); err != nil {
		fmt.Fprintln(e.stdout, p.style(ansiRed, err.Error()))
	} else {
		fmt.Fprintln(e.stdout, p.style(ansiDim, "  ("+out+")"))
	}
}

// chatHelp lists the commands of the line chat: the agent's and its own.
func chatHelp(e *env, p *printer, a *coding.Agent) {
	var b strings.Builder
	b.WriteString("  /help  this list · /exit  quit\n")
	for _, c := range a.Commands() {
		use := "/" + c.Name
		if c.Args != "" {
			use += " " + c.Args
		}
		fmt.Fprintf(&b, "  %-22s %s\n", use, c.Help)
	}
	b.WriteString("  While the agent works, a plain line steers it. Ctrl-C stops the turn.")
	fmt.Fprintln(e.stdout, p.style(ansiDim, b.String()))
}

// readLines sends the lines of r until it ends or stop is closed.
func readLines(r io.Reader, lines chan<- string, stop <-chan struct{}) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		select {
		case lines <- sc.Text():
		case <-stop:
			return
		}
	}
}
