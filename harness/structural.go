package harness

import (
	"context"
	"errors"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/session"
)

// NavigateOptions describe a move of the leaf.
type NavigateOptions struct {
	// Summary, when set (here or by a before_tree_navigation hook), is
	// stored as a branch summary of the branch being left, under the new
	// leaf, so that the conversation continuing from there knows of it.
	Summary string
}

// Navigate moves the leaf of the conversation tree to the entry id (""
// starts a new root); the next prompt continues from there. It needs the
// harness idle (else a busy error), sets the phase to branch_summary,
// runs the before_tree_navigation hook (which may cancel or supply the
// summary), writes a durable leaf entry and the branch summary, if any,
// and tells listeners with a navigate event. Blocks until done.
func (h *Harness) Navigate(ctx context.Context, id string, o NavigateOptions) (err error) {
	const op = "navigate"
	ctx, _, err = h.begin(ctx, op, PhaseBranchSummary)
	if err != nil {
		return err
	}
	defer func() {
		if ferr := h.end(); ferr != nil && err == nil {
			err = wrap(op, CodeStore, ferr)
		}
	}()
	if err := h.flush(); err != nil {
		return wrap(op, CodeStore, err)
	}
	sc := h.st().Context()
	from := h.st().Leaf()
	res, err := h.hooks.RunBeforeTreeNavigation(ctx, &hook.NavigationEvent{From: from, To: id, Messages: sc.Messages, Summary: o.Summary})
	if err != nil {
		return wrap(op, CodeHook, err)
	}
	if res.Cancel {
		return errorf(CodeCancelled, op, "a before_tree_navigation hook cancelled the navigation: %s", orNone(res.Reason))
	}
	entry, err := h.append(session.Entry{Type: session.TypeLeaf, Target: id}, false)
	if err != nil {
		return wrap(op, classifyStore(err), err)
	}
	if res.Summary != "" {
		if entry, err = h.append(session.Entry{Type: session.TypeBranchSummary, From: from, Summary: res.Summary}, false); err != nil {
			return wrap(op, CodeStore, err)
		}
	}
	sc = h.st().Context()
	h.mu.Lock()
	h.recorded = recordedFrom(sc)
	h.mu.Unlock()
	if err := h.notify(ctx, Event{Event: agent.Event{Type: EventNavigate}, Entry: &entry}); err != nil {
		return wrap(op, CodeHook, err)
	}
	return nil
}

// classifyStore tells a bad argument (an unknown entry) from a failed
// write.
func classifyStore(err error) Code {
	if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrInvalidEntry) {
		return CodeConfig
	}
	return CodeStore
}

func orNone(s string) string {
	if s == "" {
		return "(no reason given)"
	}
	return s
}
