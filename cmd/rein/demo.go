package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/coding/demo"
	"github.com/reinhq/rein/llm/faux"
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
	if dir == "" {
		d, err := os.MkdirTemp("", "rein-demo-")
		if err != nil {
			return err
		}
		dir = d
	}
	if err := demo.Write(dir); err != nil {
		return &exitError{code: 2, err: err}
	}
	provider := faux.New(demo.Script()...)
	provider.IDPrefix = "call_"
	a, err := coding.Open(ctx, coding.Options{
		Workdir: dir, Provider: provider, ModelInfo: faux.Model(), NoSession: true, MaxTurns: -1,
		Getenv: e.getenv, Warn: e.warn, Redactor: redactor(), Version: version, Frontend: "demo",
		DefaultMode: "auto_all", // a scripted session in its own temporary folder
	})
	if err != nil {
		return err
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
	printDemoSummary(e, p, a.Workspace(), end)
	return demoStop(end, runErr)
}

func printDemoSummary(e *env, p *printer, root string, end agent.Event) {
	fmt.Fprintf(e.stdout, "\n%s\n", p.style(ansiBold, "summary"))
	var tools []string
	for name, n := range p.byTool {
		tools = append(tools, fmt.Sprintf("%s %d", name, n))
	}
	sort.Strings(tools)
	fmt.Fprintf(e.stdout, "  stop:       %s\n", end.Stop)
	fmt.Fprintf(e.stdout, "  turns:      %d\n", end.Turn)
	fmt.Fprintf(e.stdout, "  tool calls: %d (%s)\n", p.calls, strings.Join(tools, ", "))
	fmt.Fprintf(e.stdout, "  tokens:     %d in, %d out (estimated by the scripted model)\n", end.Usage.PromptTokens(), end.Usage.Output)
	if saved, _ := filepath.Glob(filepath.Join(root, ".rein", "output", "*.*")); len(saved) > 0 {
		for _, s := range saved {
			if strings.HasPrefix(filepath.Base(s), ".") {
				continue
			}
			fi, err := os.Stat(s)
			if err != nil {
				continue
			}
			rel, _ := filepath.Rel(root, s)
			fmt.Fprintf(e.stdout, "  saved:      %s (%d bytes, the full output the model saw only the head and tail of)\n", rel, fi.Size())
		}
	}
	fmt.Fprintf(e.stdout, "  workspace:  %s (kept, so you can look at the files)\n", root)
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
