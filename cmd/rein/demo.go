package main

import (
	"context"
	"fmt"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/coding/demo"
	"github.com/spf13/cobra"
)

func newDemoCmd(e *env) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run an offline scripted session on real files (no model or API key needed)",
		Long: `Run a scripted session that shows what a harness does, with no model and no API
key: in a fresh workspace the scripted model lists the files, reads two of them
at once, views a third with cat, fixes a bug with edit, runs the tests with bash,
reads the unchanged test script again (a guard answers that it is still the
same, instead of sending it twice), gets a long output back (cut to its head and
tail, the full log saved under .rein/output/), searches the saved log, and
finishes. Every tool call is real: real files, real processes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), e, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "workspace directory to create the demo in (default: a new temporary directory)")
	return cmd
}

func runDemo(ctx context.Context, e *env, dir string) error {
	a, err := demo.Open(ctx, dir, coding.Options{Getenv: e.getenv, Warn: e.warn, Redactor: redactor(), Version: version, Frontend: "demo"})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer a.Close()
	p := &printer{out: e.stdout, info: e.stdout, color: e.color, preview: 4, showThinking: true}
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiBold, "rein demo — an offline scripted session (no model, no API key); every tool call is real"))
	fmt.Fprintf(e.stdout, "%s\n\n", p.style(ansiDim, "workspace: "+a.Workspace()))
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiCyan, "▸ "+demo.Prompt))
	var end agent.Event
	defer a.Subscribe(func(_ context.Context, ev coding.Event) error {
		p.event(ev.Event.Event)
		if ev.Type == agent.EventAgentEnd {
			end = ev.Event.Event
		}
		return nil
	})()
	_, runErr := a.Submit(ctx, demo.Prompt)
	fmt.Fprintf(e.stdout, "\n%s\n", p.style(ansiBold, "summary"))
	if err := demo.Summarize(a.Workspace(), end, p.byTool).WriteText(e.stdout); err != nil {
		return err
	}
	return demoStop(end, runErr)
}

// demoStop maps how the demo's run ended to an exit status.
func demoStop(end agent.Event, err error) error {
	if end.Stop == agent.StopCompleted {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("stopped (%s): %s", end.Stop, end.Detail)
	}
	return &exitError{code: 1, err: err}
}
