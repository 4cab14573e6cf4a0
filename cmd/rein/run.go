package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tui"
	"github.com/spf13/cobra"
)

func addRunFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.StringVarP(&o.model, "model", "m", "", "model: provider/model, an alias (sonnet, opus, gpt, flash…) or faux with --script; rein models lists them")
	f.StringVar(&o.script, "script", "", "JSONL file of scripted replies for --model faux")
	f.StringVar(&o.baseURL, "base-url", "", "send requests to this server instead of the provider's (any OpenAI- or Anthropic-compatible endpoint)")
	f.StringVarP(&o.workdir, "workdir", "C", "", "workspace directory the tools work in (default: the nearest directory up from the current one holding .rein/ or .git, else the current one)")
	f.IntVar(&o.maxTurns, "max-turns", agent.DefaultMaxTurns, "stop after this many turns (0 = no cap)")
	f.StringVar(&o.tools, "tools", "coding", "tools to offer: tool or toolset names, comma-separated; -name removes one (toolsets: coding, readonly; none for no tools)")
	f.StringVar(&o.thinking, "thinking", "", "reasoning effort: off, minimal, low, medium, high, xhigh (default: the model's own)")
	f.StringVar(&o.permissionMode, "permission-mode", "", "what runs without asking: default, acceptEdits, plan, dontAsk, bypassPermissions (rein's names auto_read, auto_edit, plan, dont_ask, auto_all; and ask) (default: the settings' defaultMode, else default — without a terminal what would ask is denied; see docs/permissions.md)")
	f.StringSliceVar(&o.disableMCP, "disable-mcp", nil, "MCP servers not to start, by name, comma-separated (all: none of them)")
	f.BoolVar(&o.strict, "strict", false, "end the run only when the model calls work_complete (reminding it a bounded number of times), not at its first final answer")
	f.Float64Var(&o.budget.Cost, "max-cost", 0, "stop a run before it spends more than this many US dollars (0 = .rein/telemetry.json's default, else none); exit status 3")
	f.IntVar(&o.budget.InputTokens, "max-input-tokens", 0, "stop a run before its prompts, cached tokens included, pass this many tokens (0 = the config's default, else none)")
	f.IntVar(&o.budget.OutputTokens, "max-output-tokens", 0, "stop a run once its replies reach this many tokens (0 = the config's default, else none)")
	f.StringArrayVar(&o.verify, "verify", nil, "a command that must exit 0 before the run may report success; the harness runs it in the sandbox and sends failures back to the model (repeatable); exit status 4 when still unmet")
	f.StringVar(&o.contract, "contract", "", "the task's contract file (default: .rein/contract.json when it exists); see docs/long-horizon.md")
	addPeerFlags(cmd, o)
	addClaudeFlags(cmd, o)
}

func newRunCmd(e *env) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run the agent once on a prompt and stream its reply",
		Long: `Run the agent once: the model works on the prompt with the tools until it gives
its final answer. The reply streams to standard output; tool activity goes to
standard error. Use "-" as the prompt (or pipe one in) to read it from stdin.
Text piped in beside a PROMPT argument is appended to it as a fenced block
(cut at 256 KiB, with a note). rein -p PROMPT is the same command.

Standard output gets the final answer only: when the run fails or stops
early, the partial reply goes to standard error (and to "partial_text" in
JSON). With --strict, the final answer is the work_complete summary.

Output formats:
  text         the reply as it streams (default)
  json         one JSON object at the end: stop reason, final text, usage, messages
  stream-json  every event as one JSON object a line, for scripts`,
		Example: `  rein run --model sonnet "why does the build fail?"
  rein run --model faux --script replies.jsonl "try my hooks offline"
  rein run -m openai/llama3.1 --base-url http://127.0.0.1:11434/v1 -o stream-json "list the files"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := o.sessionRef()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := o.resolveTextFlags(); err != nil {
				return &exitError{code: 2, err: err}
			}
			prompt, err := readPrompt(e, args)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if ref != "" {
				return resumeSession(cmd, e, o, ref, &prompt)
			}
			return runOnce(cmd.Context(), e, o, prompt)
		},
	}
	addRunFlags(cmd, o)
	addSessionFlags(cmd, o)
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format: text, json or stream-json")
	cmd.Flags().StringVar(&o.output, "output-format", "text", "same as --output")
	cmd.Flags().BoolVar(&o.noSession, "no-session", false, "do not write a session log under .rein/sessions/")
	return cmd
}

// runOnce runs the agent on one prompt and renders it per the output flag.
func runOnce(ctx context.Context, e *env, o *runOptions, prompt string) error {
	if err := o.check(); err != nil {
		return &exitError{code: 2, err: err}
	}
	o.answerable = (o.output == "" || o.output == "text") && isTerminalIn(e)
	a, err := newAgent(ctx, e, o, "", o.noSession)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer a.Close()
	return promptOnce(ctx, e, o, a, prompt)
}

// check validates the flags that need no workspace.
func (o *runOptions) check() error {
	if err := coding.CheckOutputFormat(o.output); err != nil {
		return err
	}
	if err := o.claude.apply(o); err != nil {
		return err
	}
	if !llm.ThinkingLevel(o.thinking).Valid() {
		return fmt.Errorf("unknown thinking level %q: use off, minimal, low, medium, high or xhigh", o.thinking)
	}
	return nil
}

// promptOnce runs one prompt on a ready agent and renders it: the text
// format here, the others through coding.Output. Standard output gets
// the final answer only when there is one.
func promptOnce(ctx context.Context, e *env, o *runOptions, a *coding.Agent, prompt string) error {
	p := &printer{out: e.stdout, info: e.stderr, color: e.color, preview: 1}
	if e.piped {
		p.out = e.stderr
	}
	text := o.output == "" || o.output == "text"
	var w *tui.Waiter
	if text && e.errTerm {
		w = tui.NewWaiter(e.stderr, e.color)
		defer w.Close()
		e.setRetry(w.Retry)
		defer e.setRetry(nil)
	}
	var out *coding.Output
	if !text {
		var err error
		if out, err = coding.NewOutput(o.output, e.stdout, a); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	unsubscribe := a.Subscribe(func(_ context.Context, ev coding.Event) error {
		switch {
		case ev.Approval != nil:
		case out != nil:
			out.Event(ev) // its error is Finish's
		default:
			if w != nil {
				w.Event(ev.Event.Event)
			}
			p.event(ev.Event.Event)
			contextEvent(p.info, p, ev.Event)
		}
		return nil
	})
	defer unsubscribe()
	e.setInterrupt(func() bool {
		a.Abort()
		return true
	})
	defer e.setInterrupt(nil)
	defer askOnTerminal(e, p, a)()
	res, err := a.Submit(ctx, prompt)
	var blocked *coding.BlockedError
	if errors.As(err, &blocked) {
		// As with Claude Code, a prompt the user's own hook stopped is not
		// a failure of the run: the reason goes to standard error and the
		// exit status is 0.
		fmt.Fprintln(e.stderr, "rein:", err)
		return nil
	}
	if w != nil {
		w.Close()
	}
	if out != nil {
		if werr := out.Finish(res, err); werr != nil {
			return werr
		}
	}
	final, done := coding.FinalText(res), stopError(res, err) == nil
	if text {
		if sess := a.Session(); sess != nil {
			fmt.Fprintf(e.stderr, "%s\n", p.style(ansiDim, "session: "+relPath(a.Workspace(), sess.Path())))
		}
		switch {
		case done && final != "" && (e.piped || final != res.Text()):
			// Piped: the stream went to stderr, so the answer is printed
			// here. On a terminal only a work_complete summary, which the
			// stream did not show.
			fmt.Fprintln(e.stdout, final)
		case !done && e.piped && final != "":
			fmt.Fprintln(e.stderr, p.style(ansiDim, "rein: the run did not finish; its partial reply is above, on standard error only"))
		}
	}
	if hint := coding.Hint(err, o.baseURL); hint != "" {
		fmt.Fprintln(e.stderr, "rein: hint:", hint)
	}
	if err != nil && p.shownError != "" && strings.Contains(err.Error(), p.shownError) {
		// The failed reply was printed with its message; say no more.
		var ee *exitError
		errors.As(stopError(res, err), &ee)
		return &exitError{code: ee.code}
	}
	return stopError(res, err)
}

// exitBudget is the exit status of a run a budget stopped.
const exitBudget = 3

// exitContract is the exit status of a run that ended with its contract
// unmet (--verify, --contract).
const exitContract = 4

// stopError maps how a run ended to the command's exit status: 0 for a
// final answer, 3 for a run a budget stopped, 4 for a contract left
// unmet, 130 for an abort, 1 for anything else.
func stopError(res harness.Result, err error) error {
	switch {
	case llm.CodeOf(err) == llm.CodeBudget:
		return &exitError{code: exitBudget, err: err}
	case err != nil:
		return &exitError{code: 1, err: err}
	case res.Stop == agent.StopCompleted:
		return nil
	case res.Stop == harness.StopContractUnmet:
		return &exitError{code: exitContract, err: fmt.Errorf("stopped (%s): %s", res.Stop, res.Detail)}
	case res.Stop == agent.StopAborted:
		return &exitError{code: 130, err: errors.New("aborted")}
	case res.Stop == "":
		return &exitError{code: 1, err: errors.New("the run ended without a result")}
	}
	return &exitError{code: 1, err: fmt.Errorf("stopped (%s): %s", res.Stop, res.Detail)}
}

// relPath shows path relative to root when it is inside it.
func relPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
