package harness

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// CompactOptions describe a compaction by hand. The zero value plans the
// cut (the last ~20k tokens kept, never separating a tool call from its
// result) and has the summarisers write the summary.
type CompactOptions struct {
	// Summary replaces the conversation before FirstKept. Empty means a
	// before_compaction hook supplies it, or else the summarisers write
	// it (see Options.Summarizers).
	Summary string
	// FirstKept is the ID of the first entry kept verbatim. Empty plans
	// the cut, or keeps nothing when Summary is given. It must not be a
	// tool result whose call would be compacted.
	FirstKept string
	// TokensBefore is the size of the context before the compaction;
	// zero means the harness's estimate.
	TokensBefore int
	// FilesRead and FilesModified are carried in the entry as metadata,
	// with the files the compacted tool calls touched.
	FilesRead, FilesModified []string
	// Focus tells the summariser what to focus on ("/compact the failing
	// test").
	Focus string
}

// Compact writes a compaction entry; the next context (and so the next
// prompt) starts with its summary followed by the entries from the first
// kept on. It needs the harness idle (else a busy error), sets the phase
// to compaction, runs the before_compaction hook (which may cancel,
// giving a cancelled error, replace the focus or supply the summary),
// runs the summarisers when no summary was given (a digest built without
// a model when every one fails), writes the entry and a report, and
// tells listeners with compaction and after_compaction events. Blocks
// until done. A conversation too short to compact gives a config error.
func (h *Harness) Compact(ctx context.Context, o CompactOptions) (entry session.Entry, err error) {
	const op = "compact"
	ctx, _, err = h.begin(ctx, op, PhaseCompaction)
	if err != nil {
		return session.Entry{}, err
	}
	defer func() {
		if ferr := h.end(); ferr != nil && err == nil {
			err = wrap(op, CodeStore, ferr)
		}
	}()
	if err := h.flush(); err != nil {
		return session.Entry{}, wrap(op, CodeStore, err)
	}
	sc := h.st().Context()
	c := h.snapshotConfig()
	s := h.cx.settings
	b := s.BudgetFor(c.model, c.maxTokens)
	cpt := h.cx.cal.CharsPerToken(c.model.ID)
	p := &plan{view: sc.Messages, seen: h.seen(sc.Messages), tokens: o.TokensBefore, reason: "manual", focus: o.Focus, cpt: cpt,
		summary: o.Summary, read: o.FilesRead, modified: o.FilesModified, firstKept: o.FirstKept, goal: h.goal()}
	if p.tokens == 0 {
		p.tokens = compact.Count(sc.Messages, trustFrom(h, len(sc.Messages)), compact.FixedChars(c.system, nil), cpt).Tokens
	}
	switch {
	case o.FirstKept != "":
		k := slices.Index(sc.EntryIDs, o.FirstKept)
		if k < 0 {
			return session.Entry{}, errorf(CodeConfig, op, "entry %q is not in the current context; pass the ID of a message on the current branch after the last compaction, or leave FirstKept empty to plan the cut", o.FirstKept)
		}
		if safe := compact.Safe(sc.Messages); !safe[k] {
			j := k
			for j > 0 && !safe[j] {
				j--
			}
			return session.Entry{}, errorf(CodeConfig, op, "keeping from entry %q would separate a tool call from its result (it is inside a tool batch); keep from entry %q, the start of that batch, instead", o.FirstKept, sc.EntryIDs[j])
		}
		if k == 0 || k == 1 && compact.IsSummary(&sc.Messages[0]) {
			return session.Entry{}, errorf(CodeConfig, op, "keeping from entry %q leaves nothing before it to compact; keep from a later entry", o.FirstKept)
		}
		p.k = k
	case o.Summary != "":
		p.k = len(sc.Messages)
	default:
		tok := make([]int, len(sc.Messages))
		for i := range sc.Messages {
			tok[i] = compact.MessageTokens(&sc.Messages[i], cpt)
		}
		k, err := compact.Cut(sc.Messages, tok, b.Keep)
		if err != nil {
			return session.Entry{}, &Error{Code: CodeConfig, Op: op, Err: err}
		}
		p.k, p.firstKept = k, sc.EntryIDs[k]
	}
	summary, rep, err := h.summarize(ctx, p, h.chain(c.provider, c.model))
	if err != nil {
		return session.Entry{}, wrap(op, CodeHook, err)
	}
	after := append([]llm.Message{session.CompactionMessage(&session.Entry{Summary: summary})}, sc.Messages[p.k:]...)
	est := compact.Count(after, len(after), compact.FixedChars(c.system, nil), cpt)
	rep.TokensAfter = est.Tokens
	h.setStatus(compact.Status{Estimate: est, Budget: b})
	entry, err = h.writeCompaction(ctx, p, summary, &rep, func(e Event) error { return h.notify(ctx, e) })
	if err != nil {
		return entry, wrap(op, CodeHook, err)
	}
	return entry, nil
}

// trustFrom is where usage can be trusted in the context at the leaf
// (n messages): after the compaction in effect.
func trustFrom(h *Harness, n int) int {
	if l := h.readLogged(); l.compaction != nil {
		return max(0, n-l.after)
	}
	return 0
}

// seen is the context at the leaf (msgs) as the model was last sent it:
// with the masking the log records since the compaction in effect.
func (h *Harness) seen(msgs []llm.Message) []llm.Message {
	l := h.readLogged()
	if !l.masked {
		return msgs
	}
	out, _ := l.mask.Apply(msgs)
	return out
}

func (h *Harness) snapshotConfig() config {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg
}

// HandoffOptions describe a handoff.
type HandoffOptions struct {
	// To is the fresh session that continues the work; its first message
	// becomes the handoff briefing. Create it linked to this one (for a
	// session file: Session.Fork("", …) makes an empty child).
	To Store
	// Focus tells the summariser what to focus on.
	Focus string
}

// HandoffPrefix starts the first message of a session made by Handoff.
const HandoffPrefix = "This session continues an earlier one that was handed off to keep the context small. The briefing below is for reference: it describes the work so far; it is not a new request from the user.\n\n<briefing>\n"

// Handoff writes a briefing of the whole conversation (the summary
// prompt in handoff mode, or a digest when no summariser answers) as the
// first message of o.To, and records the handoff in this session with a
// custom entry of kind "rein.context.handoff". It needs the harness idle
// (else a busy error). The briefing is returned.
func (h *Harness) Handoff(ctx context.Context, o HandoffOptions) (briefing string, err error) {
	const op = "handoff"
	if o.To == nil {
		return "", errorf(CodeConfig, op, "no store to hand off to: set HandoffOptions.To")
	}
	ctx, _, err = h.begin(ctx, op, PhaseCompaction)
	if err != nil {
		return "", err
	}
	defer func() {
		if ferr := h.end(); ferr != nil && err == nil {
			err = wrap(op, CodeStore, ferr)
		}
	}()
	if err := h.flush(); err != nil {
		return "", wrap(op, CodeStore, err)
	}
	sc := h.st().Context()
	if len(sc.Messages) == 0 {
		return "", errorf(CodeConfig, op, "the session has no messages to hand off")
	}
	c := h.snapshotConfig()
	cpt := h.cx.cal.CharsPerToken(c.model.ID)
	p := &plan{view: sc.Messages, seen: h.seen(sc.Messages), k: len(sc.Messages), reason: "handoff", handoff: true, focus: o.Focus, cpt: cpt, goal: h.goal()}
	p.tokens = compact.Count(sc.Messages, trustFrom(h, len(sc.Messages)), 0, cpt).Tokens
	summary, rep, err := h.summarize(ctx, p, h.chain(c.provider, c.model))
	if err != nil {
		return "", wrap(op, CodeHook, err)
	}
	msg := llm.UserText(HandoffPrefix + strings.TrimSpace(summary) + "\n</briefing>")
	msg.Timestamp = h.clock()
	if _, err := o.To.Append(session.Entry{Type: session.TypeMessage, Message: &msg}); err != nil {
		return "", &Error{Code: CodeStore, Op: op, Err: err}
	}
	data, _ := json.Marshal(struct {
		Report CompactionReport `json:"report"`
	}{rep})
	if _, err := h.append(session.Entry{Type: session.TypeCustom, Kind: "rein.context.handoff", Data: data}, false); err != nil {
		return summary, &Error{Code: CodeStore, Op: op, Err: err}
	}
	h.forgetReads()
	if err := h.notify(ctx, Event{Event: agent.Event{Type: EventAfterCompaction, Detail: rep.detail()}, Compaction: &rep}); err != nil {
		return summary, wrap(op, CodeHook, err)
	}
	return summary, nil
}
