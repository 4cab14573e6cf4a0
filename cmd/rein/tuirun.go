package main

import (
	"context"
	"io"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/tui"
)

// runTUI runs the terminal UI over a ready agent until the user quits.
// While it runs, rein's own messages to standard error (config
// warnings, notes) become notices in the UI instead of garbling it, and
// retries show in its status line.
func runTUI(ctx context.Context, e *env, a *coding.Agent) error {
	screen := e.screen
	if screen == nil {
		screen = e.stdout
	}
	return tui.RunAgent(ctx, a, tui.AgentOptions{Input: e.stdin, Output: screen, Getenv: e.getenv, Redactor: redactor(),
		Attach: func(notices io.Writer, status func(string)) func() {
			e.setRetry(func(ev failover.Event) {
				if s := coding.DescribeRetry(ev); s != "" {
					status(s)
				}
			})
			e.mu.Lock()
			stderr := e.stderr
			e.stderr = notices
			e.mu.Unlock()
			return func() {
				e.mu.Lock()
				e.stderr = stderr
				e.mu.Unlock()
				e.setRetry(nil)
			}
		}})
}
