package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/session"
	"github.com/spf13/cobra"
)

// rootHelp is appended to rein's --help: the forms users know from other
// agent command lines, and completion.
const rootHelp = `
With no command:
  rein                      the terminal UI (a line chat when not on a terminal: --plain)
  rein -p PROMPT            run once and print the answer (same as rein run)
  rein -c                   continue the last session of this workspace
  rein -c -p PROMPT         run one more prompt in it
  rein --resume ID          continue a session by id (rein sessions list)

Shell completion (bash, zsh, fish, powershell):
  source <(rein ` + completionCommand + ` bash)        rein completion --help for the others`

// completionCommand is the name of cobra's shell completion command,
// listed in rein's help.
const completionCommand = "completion"

// addRootFlags makes the root command run the agent: -p/--print, -c,
// --resume, --version and the run flags, as other agent command lines
// accept them.
func addRootFlags(root *cobra.Command, e *env) {
	o := &runOptions{}
	root.Version = versionString()
	root.SetVersionTemplate("rein {{.Version}}\n")
	root.Long += "\n" + rootHelp
	root.Args = cobra.ArbitraryArgs
	root.SuggestionsMinimumDistance = 2
	addRunFlags(root, o)
	addSessionFlags(root, o)
	root.Flags().BoolVarP(&o.print, "print", "p", false, "run the prompt once and print the answer, as rein run does")
	root.Flags().StringVarP(&o.output, "output", "o", "text", "output format with -p: text, json or stream-json")
	root.Flags().StringVar(&o.output, "output-format", "text", "same as --output")
	root.Flags().BoolVar(&o.noSession, "no-session", false, "do not write a session log under .rein/sessions/")
	root.Flags().BoolVar(&o.plain, "plain", false, "use the line chat instead of the terminal UI")
	var mode string
	root.Flags().StringVar(&mode, "mode", "", "rpc: speak pi's JSONL RPC protocol on standard input and output (docs/rpc.md)")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		ref, err := o.sessionRef()
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		if mode != "" {
			return runRPCMode(cmd.Context(), e, o, mode, ref, args)
		}
		if err := o.resolveTextFlags(); err != nil {
			return &exitError{code: 2, err: err}
		}
		switch {
		case o.print:
			prompt, err := readPrompt(e, args)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if ref != "" {
				return resumeSession(cmd, e, o, ref, &prompt)
			}
			return runOnce(cmd.Context(), e, o, prompt)
		case len(args) > 0:
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("unknown command %q: did you mean rein %s? rein --help lists the commands", args[0], s[0])}
			}
			return &exitError{code: 2, err: fmt.Errorf("unknown command %q: to run a prompt, use rein -p %q; rein --help lists the commands", args[0], strings.Join(args, " "))}
		case ref != "":
			return resumeSession(cmd, e, o, ref, nil)
		case e.tty:
			return startChat(cmd, e, o)
		}
		return cmd.Help()
	}
}

// startChat starts a new chat: the terminal UI on a terminal, the line
// chat otherwise or with --plain.
func startChat(cmd *cobra.Command, e *env, o *runOptions) error {
	if err := o.check(); err != nil {
		return &exitError{code: 2, err: err}
	}
	o.answerable = true
	o.frontend = chatFrontend(e, o)
	a, err := newAgent(cmd.Context(), e, o, "", o.noSession)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer a.Close()
	return converse(cmd.Context(), e, o, a)
}

// converse runs the interactive session on a ready agent.
func converse(ctx context.Context, e *env, o *runOptions, a *coding.Agent) error {
	if chatFrontend(e, o) == "tui" {
		return runTUI(ctx, e, a)
	}
	return chat(ctx, e, a)
}

// chatFrontend is what converse runs: the terminal UI (tui) or the line
// chat (chat).
func chatFrontend(e *env, o *runOptions) string {
	if e.tty && !o.plain && e.getenv("TERM") != "dumb" && e.getenv("TERM") != "" {
		return "tui"
	}
	return "chat"
}

// openSessionAgent opens the session ref and its agent with the
// session's model, thinking level, tools, base URL and workspace unless
// flags say otherwise, and reports what loading set aside or repaired.
// Errors are exitErrors.
func openSessionAgent(cmd *cobra.Command, e *env, o *runOptions, ref string) (*coding.Agent, error) {
	var path string
	var err error
	if ref == pickRef {
		path, err = pickSession(e, o.workdir)
	} else {
		path, err = coding.FindSession(o.workdir, ref)
	}
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	// Another harness's session is imported first; the file is only read.
	if imported, err := importForeignFor(e, o, path); err != nil {
		return nil, &exitError{code: 1, err: err}
	} else if imported != "" {
		path = imported
	}
	flags := cmd.Flags()
	o.keepThinking = !flags.Changed("thinking")
	o.keepTools = !flags.Changed("tools")
	a, err := newAgent(cmd.Context(), e, o, path, false)
	if hint := coding.LockedHint(err, ref); hint != "" {
		return nil, &exitError{code: 1, err: fmt.Errorf("%w\n%s", err, hint)}
	} else if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	sess := a.Session()
	for _, note := range sess.LoadNotes() {
		fmt.Fprintln(e.stderr, "rein:", note)
	}
	if o.baseURL == "" {
		o.baseURL = coding.RecordedBaseURL(sess.Entries())
	}
	return a, nil
}

// resumeSession continues the session ref: one more prompt when prompt
// is set, else a chat that first shows the conversation so far. The
// session's model, thinking level, tools and base URL are used unless
// flags say otherwise.
func resumeSession(cmd *cobra.Command, e *env, o *runOptions, ref string, prompt *string) error {
	if err := o.check(); err != nil {
		return &exitError{code: 2, err: err}
	}
	o.answerable = prompt == nil || (o.output == "" || o.output == "text") && isTerminalIn(e)
	if prompt == nil {
		o.frontend = chatFrontend(e, o)
	}
	a, err := openSessionAgent(cmd, e, o, ref)
	if err != nil {
		return err
	}
	defer a.Close()
	if prompt != nil {
		return promptOnce(cmd.Context(), e, o, a, *prompt)
	}
	if !e.tty || o.plain {
		showTranscript(e, a.Session())
	}
	return converse(cmd.Context(), e, o, a)
}

// showTranscript prints the conversation of a session being resumed.
func showTranscript(e *env, sess *session.Session) {
	c := sess.Context()
	if len(c.Messages) == 0 {
		return
	}
	p := &printer{out: e.stdout, info: e.stdout, color: e.color}
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiDim, fmt.Sprintf("── resuming %s: %d message%s ──", shortID(sess.ID()), len(c.Messages), plural(len(c.Messages)))))
	for i := range c.Messages {
		showMessage(e, p, &c.Messages[i], c.EntryIDs[i])
	}
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiDim, "──"))
}

// failoverEvent reports a failover decision: to the listener a command
// installed (the waiting line, the terminal UI), else as a line on
// standard error.
func (e *env) failoverEvent(ev failover.Event) {
	e.mu.Lock()
	f := e.onRetry
	e.mu.Unlock()
	if f != nil {
		f(ev)
		return
	}
	if s := coding.DescribeRetry(ev); s != "" {
		fmt.Fprintln(e.stderr, "rein:", s)
	}
}

// setRetry installs the failover listener; nil restores the default.
func (e *env) setRetry(f func(failover.Event)) {
	e.mu.Lock()
	e.onRetry = f
	e.mu.Unlock()
}

var errEmptyPrompt = coding.ErrEmptyPrompt
