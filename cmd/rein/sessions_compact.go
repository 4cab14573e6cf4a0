package main

import (
	"context"
	"fmt"

	"github.com/reinhq/rein/harness"
	"github.com/spf13/cobra"
)

// reportCompaction prints the compaction events of h to stdout.
func reportCompaction(e *env, h *harness.Harness) func() {
	p := &printer{out: e.stdout, info: e.stdout, color: e.color}
	return h.Subscribe(func(_ context.Context, ev harness.Event) error {
		contextEvent(e.stdout, p, ev)
		return nil
	})
}

func newSessionsCompactCmd(e *env) *cobra.Command {
	o := &runOptions{}
	var focus string
	cmd := &cobra.Command{
		Use:   "compact SESSION",
		Short: "Compact a session now: summarise its older part, keep the recent turns verbatim",
		Long: `Compact a session by hand, as rein does on its own above the compaction
threshold: the older part of the conversation is summarised (by the models in
.rein/context.json's compaction_models, then the session's own model; a digest
built without a model when none answers) and the last ~20k tokens are kept
verbatim, never separating a tool call from its result. Nothing is deleted:
the log keeps every message; only what the model is sent changes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openSessionAgent(cmd, e, o, args[0])
			if err != nil {
				return err
			}
			defer a.Close()
			defer reportCompaction(e, a.Harness())()
			if err := a.Compact(cmd.Context(), focus); err != nil {
				return &exitError{code: 1, err: err}
			}
			return nil
		},
	}
	addRunFlags(cmd, o)
	cmd.Flags().StringVar(&focus, "focus", "", "what the summary should focus on")
	return cmd
}

func newSessionsHandoffCmd(e *env) *cobra.Command {
	o := &runOptions{}
	var focus string
	cmd := &cobra.Command{
		Use:   "handoff SESSION",
		Short: "Start a fresh session from a briefing of this one",
		Long: `Hand a session off to a fresh one: the conversation is summarised as a briefing
for whoever continues it (goal, decisions, progress, next step, files), and a
new session is created whose first message is that briefing, linked to the old
one as its parent. Continue it with rein sessions resume.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openSessionAgent(cmd, e, o, args[0])
			if err != nil {
				return err
			}
			defer a.Close()
			defer reportCompaction(e, a.Harness())()
			child, err := a.Handoff(cmd.Context(), focus)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(e.stdout, "handed off %s to %s (id %s); continue with: rein sessions resume %s\n",
				shortID(a.Session().ID()), child.Path, shortID(child.ID), shortID(child.ID))
			return nil
		},
	}
	addRunFlags(cmd, o)
	cmd.Flags().StringVar(&focus, "focus", "", "what the briefing should focus on")
	return cmd
}
