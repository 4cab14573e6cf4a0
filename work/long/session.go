package long

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/work"
)

// worker is one worker session on one task.
type worker struct {
	r     *runner
	n     int
	task  Task
	start string // HEAD when the session started
	rep   SessionReport
	// last is the evidence of the latest verification and the tree it
	// ran on.
	last []CommandEvidence
	tree string
}

// verify runs the task's verify commands, all of them, in order, and
// returns their evidence and the tree hash of the first.
func (s *worker) verify(ctx context.Context) ([]CommandEvidence, string, error) {
	var evs []CommandEvidence
	tree := ""
	for _, v := range s.task.Verify {
		timeout := v.Timeout
		if timeout == 0 {
			timeout = s.r.layout.VerifyTimeout
		}
		t0 := time.Now()
		ev, tr, err := s.r.run(ctx, v.Command, timeout)
		s.rep.Commands += time.Since(t0)
		if err != nil {
			return nil, "", fmt.Errorf("running verify command %q: %w", v.Command, err)
		}
		if tree == "" {
			tree = tr
		}
		evs = append(evs, ev)
	}
	s.last, s.tree = evs, tree
	return evs, tree, nil
}

// install gives the agent the work-item tools over the plan and the guard
// of the progress file.
func (s *worker) install(a *coding.Agent, p *Plan, g *guard) (*work.Ledger, error) {
	h := a.Harness()
	pl := &planLedger{store: s.r.store, current: s.task.ID}
	led := work.NewLedger(itemsOf(p), work.LedgerOptions{
		Persist: func(e session.Entry) error {
			list, err := work.Decode(e.Items)
			if err != nil {
				return err
			}
			if err := pl.apply(list); err != nil {
				return err
			}
			return h.AppendEntry(e)
		},
		Gate: s.gate,
	})
	tools := led.Tools("")
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	var keep []*tool.Tool
	if reg := h.Tools(); reg != nil {
		for _, t := range reg.Tools() {
			if !slices.Contains(names, t.Name) {
				keep = append(keep, t)
			}
		}
	}
	reg, err := tool.NewRegistry(append(keep, tools...)...)
	if err != nil {
		return nil, err
	}
	active := slices.DeleteFunc(h.ActiveTools(), func(n string) bool { return slices.Contains(names, n) })
	if err := h.SetTools(reg, append(active, names...)); err != nil {
		return nil, err
	}
	h.Hooks().OnToolCall(g.check)
	return led, nil
}

// logEvidence appends the verification evidence to the session log, one
// custom entry of kind work.EvidenceKind per command.
func (s *worker) logEvidence(h *harness.Harness, evs []CommandEvidence, tree string) error {
	var errs []error
	for _, ev := range evs {
		data, err := json.Marshal(work.Evidence{Command: ev.Command, ExitCode: ev.ExitCode, TimedOut: ev.TimedOut,
			Output: ev.Output, Tree: tree, DurationMS: ev.DurationMS, Started: s.r.o.now()})
		if err != nil {
			return err
		}
		errs = append(errs, h.AppendEntry(session.Entry{Type: session.TypeCustom, Kind: work.EvidenceKind, Data: data}))
	}
	return errors.Join(errs...)
}

// notesEntry is the entry the harness appends to the notes file after a
// session.
func (s *worker) notesEntry(final string) string {
	r := s.rep
	var b strings.Builder
	fmt.Fprintf(&b, "## Session %s: task %s — %s\n\n", s.r.o.now().UTC().Format("2006-01-02 15:04:05Z"), r.Task, r.Outcome)
	fmt.Fprintf(&b, "Task: %s\n", r.Title)
	if r.Detail != "" {
		fmt.Fprintf(&b, "Result: %s\n", r.Detail)
	}
	for _, c := range r.Commits {
		fmt.Fprintf(&b, "Commit: %s\n", c)
	}
	for _, v := range r.Verify {
		fmt.Fprintf(&b, "Verify: `%s` — %s (%d ms)\n", v.Command, outcome(v), v.DurationMS)
		if !v.Passed() && strings.TrimSpace(v.Output) != "" {
			fmt.Fprintf(&b, "%s\n", indent(lastLines(v.Output, 15)))
		}
	}
	if r.Restored {
		fmt.Fprintf(&b, "The progress file was changed outside the work-item tools and was restored.\n")
	}
	if f := strings.TrimSpace(final); f != "" {
		fmt.Fprintf(&b, "\nThe session's summary:\n\n%s\n", lastLines(f, 40))
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
