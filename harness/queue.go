package harness

import (
	"strings"

	"github.com/reinhq/rein/llm"
)

// Queues. Steer, FollowUp and NextTurn accept text plus optional images,
// in any phase, from any goroutine (listeners and hooks included), and
// never block on a running turn.

// Steer queues a message for the running turn: it is delivered at the
// next safe point, after the current assistant message and its tool
// results and before the next request. Queued while idle, it is delivered
// at the first safe point of the next run.
func (h *Harness) Steer(text string, images ...llm.Content) error {
	return h.enqueue("steer", &h.steer, text, images)
}

// FollowUp queues a message delivered when the run would otherwise stop
// (the model gave its final answer); the run then goes on.
func (h *Harness) FollowUp(text string, images ...llm.Content) error {
	return h.enqueue("follow_up", &h.follow, text, images)
}

// NextTurn queues a message inserted before the user's message of the
// next Prompt. Abort keeps these messages.
func (h *Harness) NextTurn(text string, images ...llm.Content) error {
	return h.enqueue("next_turn", &h.next, text, images)
}

func (h *Harness) enqueue(op string, q *[]llm.Message, text string, images []llm.Content) error {
	m, err := userMessage(op, text, images)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// The queued entry makes the message survive a crash (recover.go).
	if err := h.journalQueuedLocked(op, &m); err != nil {
		return err
	}
	*q = append(*q, m)
	return nil
}

func userMessage(op, text string, images []llm.Content) (llm.Message, error) {
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return llm.Message{}, errorf(CodeConfig, op, "the message is empty: give text or an image")
	}
	m := llm.Message{Role: llm.RoleUser}
	if text != "" {
		m.Content = append(m.Content, llm.Text(text))
	}
	for _, img := range images {
		if img.Type != llm.ContentImage {
			return llm.Message{}, errorf(CodeConfig, op, "only image blocks can be attached, not %q", img.Type)
		}
		m.Content = append(m.Content, img)
	}
	return m, nil
}

// Queued returns how many steering, follow-up and next-turn messages are
// waiting.
func (h *Harness) Queued() (steer, followUp, nextTurn int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.steer), len(h.follow), len(h.next)
}

// SetSteeringMode sets how many steering messages one safe point
// delivers. It applies to the next drain, even within a running turn.
func (h *Harness) SetSteeringMode(m QueueMode) error {
	return h.setMode("set_steering_mode", &h.steerM, m)
}

// SetFollowUpMode sets how many follow-up messages one drain delivers.
func (h *Harness) SetFollowUpMode(m QueueMode) error {
	return h.setMode("set_follow_up_mode", &h.followM, m)
}

func (h *Harness) setMode(op string, dst *QueueMode, m QueueMode) error {
	if m == "" || !m.valid() {
		return errorf(CodeConfig, op, "unknown queue mode %q; use %q or %q", m, QueueOneAtATime, QueueAll)
	}
	h.mu.Lock()
	*dst = m
	h.mu.Unlock()
	return nil
}

// SteeringMode returns the steering queue mode.
func (h *Harness) SteeringMode() QueueMode {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.steerM
}

// FollowUpMode returns the follow-up queue mode.
func (h *Harness) FollowUpMode() QueueMode {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.followM
}

// drain takes messages from q by mode.
func (h *Harness) drain(q *[]llm.Message, mode *QueueMode) []llm.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(*q) == 0 {
		return nil
	}
	n := len(*q)
	if *mode == QueueOneAtATime {
		n = 1
	}
	out := (*q)[:n:n]
	*q = (*q)[n:]
	if len(*q) == 0 {
		*q = nil
	}
	return out
}

// Abort cancels the running operation, if any: the model stream and the
// running tools stop, and the run ends with StopAborted once every started
// tool call has a result. It clears the steering and follow-up queues,
// keeps the next-turn messages and never drops a pending session write
// (they are flushed when the run settles). Abort does not wait for the
// run to end (Prompt returns when it has); it is safe to call from
// listeners and hooks, and while idle, where it only clears the queues.
func (h *Harness) Abort() {
	h.mu.Lock()
	h.dequeueLocked(h.steer)
	h.dequeueLocked(h.follow)
	h.steer, h.follow = nil, nil
	cancel := h.cancel
	h.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
