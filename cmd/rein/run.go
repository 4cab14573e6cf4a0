package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/spf13/cobra"
)

func addRunFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.StringVarP(&o.model, "model", "m", "", "model: provider/model, an alias (sonnet, opus, gpt, flash…) or faux with --script; rein models lists them")
	f.StringVar(&o.script, "script", "", "JSONL file of scripted replies for --model faux")
	f.StringVar(&o.baseURL, "base-url", "", "send requests to this server instead of the provider's (any OpenAI- or Anthropic-compatible endpoint)")
	f.StringVarP(&o.workdir, "workdir", "C", "", "workspace directory the tools work in (default: the current directory)")
	f.IntVar(&o.maxTurns, "max-turns", agent.DefaultMaxTurns, "stop after this many turns (0 = no cap)")
	f.StringVar(&o.tools, "tools", "coding", "tools to offer: tool or toolset names, comma-separated; -name removes one (toolsets: coding, readonly; none for no tools)")
	f.StringVar(&o.thinking, "thinking", "", "reasoning effort: off, minimal, low, medium, high, xhigh")
}

func newRunCmd(e *env) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run the agent once on a prompt and stream its reply",
		Long: `Run the agent once: the model works on the prompt with the tools until it gives
its final answer. The reply streams to standard output; tool activity goes to
standard error. Use "-" as the prompt (or pipe one in) to read it from stdin.

Output formats:
  text         the reply as it streams (default)
  json         one JSON object at the end: stop reason, final text, usage, messages
  stream-json  every event as one JSON object a line, for scripts`,
		Example: `  rein run --model sonnet "why does the build fail?"
  rein run --model faux --script replies.jsonl "try my hooks offline"
  rein run -m openai/llama3.1 --base-url http://127.0.0.1:11434/v1 -o stream-json "list the files"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt, err := readPrompt(e, args)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			return runOnce(cmd.Context(), e, o, prompt)
		},
	}
	addRunFlags(cmd, o)
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format: text, json or stream-json")
	return cmd
}

func readPrompt(e *env, args []string) (string, error) {
	if len(args) == 0 || (len(args) == 1 && args[0] == "-") {
		if f, ok := e.stdin.(*os.File); ok && len(args) == 0 && isTerminal(f) {
			return "", errors.New("no prompt: give it as an argument, or pipe it in")
		}
		b, err := io.ReadAll(io.LimitReader(e.stdin, 16<<20))
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", errors.New("no prompt: give it as an argument, or pipe it in with \"-\"")
		}
		return string(b), nil
	}
	return strings.Join(args, " "), nil
}

// runOnce runs the agent on one prompt and renders it per the output flag.
func runOnce(ctx context.Context, e *env, o *runOptions, prompt string) error {
	switch o.output {
	case "text", "json", "stream-json":
	default:
		return &exitError{code: 2, err: fmt.Errorf("unknown output format %q: use text, json or stream-json", o.output)}
	}
	if !llm.ThinkingLevel(o.thinking).Valid() {
		return &exitError{code: 2, err: fmt.Errorf("unknown thinking level %q: use off, minimal, low, medium, high or xhigh", o.thinking)}
	}
	ws, err := o.workspace()
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	reg, err := o.toolset(ws)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	model, provider, err := o.resolveModel(e, ws.Root)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	maxTurns := o.maxTurns
	if maxTurns == 0 {
		maxTurns = -1
	}
	cfg := agent.Config{
		Settings: agent.Settings{
			Provider: provider, Model: model, Tools: reg, Middleware: middleware(ws, model),
			System: systemPrompt(ws, reg, time.Now()), Thinking: llm.ThinkingLevel(o.thinking),
		},
		MaxTurns: maxTurns,
	}
	p := &printer{out: e.stdout, info: e.stderr, color: e.color, preview: 1}
	enc := json.NewEncoder(e.stdout)
	var end agent.Event
	var runErr error
	for ev, err := range agent.Run(ctx, cfg, []llm.Message{llm.UserText(prompt)}) {
		switch o.output {
		case "text":
			p.event(ev)
		case "stream-json":
			if err := enc.Encode(ev); err != nil {
				return err
			}
		}
		if ev.Type == agent.EventAgentEnd {
			end, runErr = ev, err
		}
	}
	if o.output == "json" {
		if err := enc.Encode(runResult(end)); err != nil {
			return err
		}
	}
	return stopError(end, runErr)
}

// result is the --output json document.
type result struct {
	Stop     agent.StopReason `json:"stop"`
	Detail   string           `json:"detail,omitempty"`
	Error    string           `json:"error,omitempty"`
	Text     string           `json:"text"`
	Turns    int              `json:"turns"`
	Usage    llm.Usage        `json:"usage"`
	Messages []llm.Message    `json:"messages"`
}

func runResult(end agent.Event) result {
	r := result{Stop: end.Stop, Detail: end.Detail, Turns: end.Turn, Usage: end.Usage, Messages: end.Messages}
	if end.Err != nil {
		r.Error = end.Err.Error()
	}
	for i := len(end.Messages) - 1; i >= 0; i-- {
		if m := end.Messages[i]; m.Role == llm.RoleAssistant && m.Text() != "" {
			r.Text = m.Text()
			break
		}
	}
	return r
}

// stopError maps how a run ended to the command's exit status: 0 for a
// final answer, 130 for an abort, 1 for anything else.
func stopError(end agent.Event, err error) error {
	switch end.Stop {
	case agent.StopCompleted:
		return nil
	case agent.StopAborted:
		return &exitError{code: 130, err: errors.New("aborted")}
	case agent.StopError:
		if err == nil {
			err = errors.New(end.Detail)
		}
		return &exitError{code: 1, err: err}
	case "":
		return &exitError{code: 1, err: errors.New("the run ended without a result")}
	}
	return &exitError{code: 1, err: fmt.Errorf("stopped (%s): %s", end.Stop, end.Detail)}
}
