package lane

import (
	"strings"
	"sync"
)

// QueueMode says what a message sent to a busy session does.
type QueueMode string

// Queue modes.
const (
	// ModeSteer delivers the message into the running run at its next
	// safe point (after the current tool results, before the next model
	// request).
	ModeSteer QueueMode = "steer"
	// ModeFollowUp delivers it when the run would otherwise end; the run
	// goes on with it. The default: a queued message never changes what
	// the model is doing mid-task unless the sender asks for steering.
	ModeFollowUp QueueMode = "followup"
	// ModeCollect holds messages and coalesces them into one prompt,
	// run as the session's next run once the current one ends.
	ModeCollect QueueMode = "collect"
	// ModeInterrupt aborts the running run and runs the message next,
	// before anything collected.
	ModeInterrupt QueueMode = "interrupt"
)

// QueueModes lists the modes in the order help texts show them.
var QueueModes = []QueueMode{ModeSteer, ModeFollowUp, ModeCollect, ModeInterrupt}

// ParseQueueMode reads a mode by name ("follow-up" and "follow_up" are
// accepted for followup); "" is ModeFollowUp. An unknown name is a
// *ConfigError listing the modes.
func ParseQueueMode(s string) (QueueMode, error) {
	switch m := QueueMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeFollowUp, nil
	case "follow-up", "follow_up":
		return ModeFollowUp, nil
	case ModeSteer, ModeFollowUp, ModeCollect, ModeInterrupt:
		return m, nil
	}
	return "", &ConfigError{"queue mode", "unknown mode " + strings.TrimSpace(s) + "; use steer, followup, collect or interrupt"}
}

// Target is what an Inbox delivers to: the running session's steering
// and follow-up queues (harness.Harness and coding.Agent have these
// methods) and its abort.
type Target interface {
	Steer(text string) error
	FollowUp(text string) error
	Abort()
}

// Delivery says what Send did with a message.
type Delivery string

// Deliveries.
const (
	Steered     Delivery = "steered"
	FollowedUp  Delivery = "followed_up"
	Collected   Delivery = "collected"
	Interrupted Delivery = "interrupted"
)

// Inbox routes the messages that reach a busy session by its queue
// mode. Steering and follow-up go to the Target's own queues (nothing is
// duplicated here); collected and interrupting messages wait in the
// Inbox until the runner of the session asks for its Next prompt, which
// it runs as a new run through the session's FIFO. Safe for concurrent
// use.
type Inbox struct {
	target Target

	mu        sync.Mutex
	mode      QueueMode
	interrupt []string
	collected []string
}

// NewInbox returns an inbox over t in mode m ("" is ModeFollowUp).
func NewInbox(t Target, m QueueMode) (*Inbox, error) {
	q := &Inbox{target: t}
	if err := q.SetMode(m); err != nil {
		return nil, err
	}
	return q, nil
}

// SetMode changes the mode of the messages sent from now on.
func (q *Inbox) SetMode(m QueueMode) error {
	m, err := ParseQueueMode(string(m))
	if err != nil {
		return err
	}
	q.mu.Lock()
	q.mode = m
	q.mu.Unlock()
	return nil
}

// Mode is the current mode.
func (q *Inbox) Mode() QueueMode {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.mode
}

// Send routes text by the inbox's mode.
func (q *Inbox) Send(text string) (Delivery, error) {
	return q.SendAs(q.Mode(), text)
}

// SendAs routes text by mode m, whatever the inbox's mode: steer and
// follow-up hand it to the Target; collect keeps it for Next; interrupt
// keeps it for Next and aborts the running run. An empty text or an
// unknown mode is an error and nothing is queued.
func (q *Inbox) SendAs(m QueueMode, text string) (Delivery, error) {
	m, err := ParseQueueMode(string(m))
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", &ConfigError{"message", "the message is empty"}
	}
	switch m {
	case ModeSteer:
		return Steered, q.target.Steer(text)
	case ModeFollowUp:
		return FollowedUp, q.target.FollowUp(text)
	case ModeCollect:
		q.mu.Lock()
		q.collected = append(q.collected, text)
		q.mu.Unlock()
		return Collected, nil
	}
	q.mu.Lock()
	q.interrupt = append(q.interrupt, text)
	q.mu.Unlock()
	q.target.Abort()
	return Interrupted, nil
}

// Next takes the prompt the session should run next: the oldest
// interrupting message, else every collected message joined into one
// (separated by blank lines, in the order they came). ok is false when
// nothing waits.
func (q *Inbox) Next() (text string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.interrupt) > 0 {
		text = q.interrupt[0]
		q.interrupt = q.interrupt[1:]
		return text, true
	}
	if len(q.collected) == 0 {
		return "", false
	}
	text = strings.Join(q.collected, "\n\n")
	q.collected = nil
	return text, true
}

// Pending is the number of messages waiting for Next.
func (q *Inbox) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.interrupt) + len(q.collected)
}

// Clear drops every message waiting for Next and returns them.
func (q *Inbox) Clear() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := append(q.interrupt, q.collected...)
	q.interrupt, q.collected = nil, nil
	return out
}
