package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// WorkCompleteTool is the name of the tool strict mode adds.
const WorkCompleteTool = "work_complete"

type workCompleteArgs struct {
	Summary string `json:"summary" jsonschema:"what was done and how it was verified"`
}

// workCompleteTool changes nothing but the run's state, so it is
// read-only: every permission mode but an ask-everything one lets it run.
func workCompleteTool() *tool.Tool {
	t := tool.MustNew(WorkCompleteTool,
		"Call this once the whole task is done and verified, with a short summary. The run ends after this call; do not call it while work remains.",
		func(_ context.Context, _ *tool.Call, in workCompleteArgs) (tool.Result, error) {
			if strings.TrimSpace(in.Summary) == "" {
				return tool.Result{}, fmt.Errorf("work_complete needs a summary of what was done")
			}
			return tool.Text("Work marked complete."), nil
		})
	t.ReadOnly = true
	return t
}

// steering is the loop's steering poll (after every turn): messages the
// agent_stop hook asked for, then the steering queue.
func (r *run) steering(context.Context) []llm.Message {
	msgs := r.inject
	r.inject = nil
	if s := r.h.drain(&r.h.steer, &r.h.steerM); len(s) > 0 {
		r.stall.reset()
		msgs = append(msgs, s...)
	}
	return msgs
}

// followUp is polled when the loop would end after a final answer: the
// follow-up queue first, then the stop policy (strict-mode reminders)
// and the agent_stop hook.
func (r *run) followUp(ctx context.Context) []llm.Message {
	h := r.h
	if m := h.drain(&h.follow, &h.followM); len(m) > 0 {
		r.stall.reset()
		return m
	}
	if r.failure() != nil || r.last == nil || r.last.StopReason == llm.StopLength {
		return nil
	}
	reason := StopCompleted
	if h.wc != nil {
		if r.reminders < h.stop.maxReminders() {
			r.reminders++
			return []llm.Message{llm.UserText(h.stop.reminder())}
		}
		reason = StopWorkIncomplete
	} else {
		// The contract is checked before the stop hooks run.
		msgs, end := r.verify(ctx)
		if msgs != nil || end {
			return msgs
		}
	}
	if msgs := r.askStop(ctx, reason); msgs != nil {
		r.verified = false
		return msgs
	}
	if reason == StopWorkIncomplete {
		r.stop = StopWorkIncomplete
		r.detail = fmt.Sprintf("the model ended its turn without calling %s %d times (%d reminders)", WorkCompleteTool, r.reminders+1, r.reminders)
	}
	return nil
}

// askStop runs the agent_stop hook; a block returns the message to send.
func (r *run) askStop(ctx context.Context, reason StopReason) []llm.Message {
	res, err := r.h.hooks.RunAgentStop(ctx, &hook.AgentStopEvent{Reason: string(reason), Message: r.last, Turn: r.turn})
	if err != nil {
		r.fail(err)
		return nil
	}
	if !res.Block {
		return nil
	}
	text := res.Message
	if strings.TrimSpace(text) == "" {
		text = DefaultStopBlock
	}
	m := llm.UserText(text)
	m.Timestamp = r.h.clock()
	return []llm.Message{m}
}

// decide is the stop decision at the end of a turn: work_complete (strict
// mode) and stall detection. It reports whether the run goes on.
func (r *run) decide(ctx context.Context, ev *agent.Event) bool {
	if r.failure() != nil || ev.Message == nil || ev.Message.Failed() {
		return true // the loop ends the run itself
	}
	r.verified = false
	if r.completed {
		r.completed = false
		if msgs, end := r.verify(ctx); msgs != nil || end {
			r.inject = append(r.inject, msgs...)
			return !end
		}
		if msgs := r.askStop(ctx, StopCompleted); msgs != nil {
			r.verified = false
			r.inject = append(r.inject, msgs...)
			return true
		}
		if r.failure() != nil {
			return true
		}
		r.stop, r.detail = StopCompleted, "the model called "+WorkCompleteTool
		return false
	}
	if n := r.h.stop.stallTurns(); n > 0 && r.stall.observe(ev.Message, ev.ToolResults) >= n {
		r.stop = StopStalled
		r.detail = fmt.Sprintf("no progress for %d turn%s: each repeated an earlier turn's reply, tool calls and results", n, map[bool]string{true: "s"}[n != 1])
		return false
	}
	return true
}

// stall detects runs that make no progress. A turn's fingerprint is its
// assistant message's visible text and tool calls (names and arguments,
// JSON-normalised; call IDs and thinking left out) together with its tool
// results (tool, error flag and content). A turn makes progress when its
// fingerprint differs from that of every earlier turn of the run; the
// run stalls after StallTurns consecutive turns without progress. New
// input from outside (steering or follow-up messages) resets the count.
type stall struct {
	seed maphash.Seed
	seen map[uint64]struct{}
	idle int
}

func (s *stall) reset() { s.idle = 0 }

// observe records a turn and returns the number of consecutive turns
// without progress.
func (s *stall) observe(m *llm.Message, results []llm.Message) int {
	if s.seen == nil {
		s.seen, s.seed = map[uint64]struct{}{}, maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(s.seed)
	writeContent(&h, m.Content)
	for i := range results {
		h.WriteString("\x00result\x00")
		h.WriteString(results[i].ToolName)
		if results[i].IsError {
			h.WriteByte(1)
		}
		writeContent(&h, results[i].Content)
	}
	fp := h.Sum64()
	if _, ok := s.seen[fp]; ok {
		s.idle++
	} else {
		s.seen[fp] = struct{}{}
		s.idle = 0
	}
	return s.idle
}

func writeContent(h *maphash.Hash, content []llm.Content) {
	for _, c := range content {
		switch c.Type {
		case llm.ContentText:
			h.WriteString("\x00text\x00")
			h.WriteString(strings.TrimSpace(c.Text))
		case llm.ContentImage:
			h.WriteString("\x00image\x00")
			h.WriteString(c.Data)
		case llm.ContentToolCall:
			h.WriteString("\x00call\x00")
			h.WriteString(c.Name)
			h.WriteByte(0)
			h.Write(normalJSON(c.Arguments))
		}
	}
}

// normalJSON re-encodes a JSON value with sorted keys and no spaces, so
// that the same arguments written differently compare equal.
func normalJSON(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}
