package tui

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
)

// Waiter shows on a line-mode terminal (a front-end that prints lines
// rather than owning the screen) that rein is waiting for the model and
// for how long, with the reason of the last retry, on one line it
// redraws every 200ms and clears before anything else is printed: feed
// it the agent's events (Event) and the failover's (Retry). Safe for
// concurrent use; Close stops its goroutine and clears the line.
type Waiter struct {
	w     io.Writer
	color bool
	tick  time.Duration
	now   func() time.Time
	// ticks, when set, replaces the redraw ticker (tests drive it).
	ticks chan time.Time

	mu     sync.Mutex
	start  time.Time
	note   string
	shown  bool
	stop   chan struct{}
	done   chan struct{}
	frames int
}

// NewWaiter draws on w, dimmed when color is true.
func NewWaiter(w io.Writer, color bool) *Waiter {
	return &Waiter{w: w, color: color, tick: 200 * time.Millisecond, now: time.Now}
}

// Event starts the line when a turn starts and clears it when the reply
// begins, a tool starts or the run ends.
func (w *Waiter) Event(ev agent.Event) {
	switch ev.Type {
	case agent.EventTurnStart:
		w.begin()
	case agent.EventMessageUpdate, agent.EventMessageEnd, agent.EventToolStart, agent.EventAgentEnd:
		if ev.Type == agent.EventMessageEnd && ev.Message != nil && ev.Message.Role != llm.RoleAssistant {
			return
		}
		w.end()
	}
}

func (w *Waiter) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		return
	}
	w.start, w.note = w.now(), ""
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go w.loop(w.stop, w.done)
}

func (w *Waiter) loop(stop, done chan struct{}) {
	defer close(done)
	var ticks <-chan time.Time = w.ticks
	if ticks == nil {
		t := time.NewTicker(w.tick)
		defer t.Stop()
		ticks = t.C
	}
	for {
		select {
		case <-stop:
			return
		case <-ticks:
			w.mu.Lock()
			w.drawLocked()
			w.mu.Unlock()
		}
	}
}

var waitFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (w *Waiter) drawLocked() {
	if w.stop == nil {
		return
	}
	w.frames++
	s := fmt.Sprintf("%s waiting for the model · %s", waitFrames[w.frames%len(waitFrames)], w.now().Sub(w.start).Round(time.Second))
	if w.note != "" {
		s += " · " + w.note
	}
	if w.color {
		s = "\x1b[2m" + s + "\x1b[0m"
	}
	fmt.Fprint(w.w, "\r\x1b[K"+s)
	w.shown = true
}

// end stops and clears the line.
func (w *Waiter) end() {
	w.mu.Lock()
	stop, done := w.stop, w.done
	w.stop = nil
	w.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
	w.mu.Lock()
	w.clearLocked()
	w.mu.Unlock()
}

func (w *Waiter) clearLocked() {
	if w.shown {
		fmt.Fprint(w.w, "\r\x1b[K")
		w.shown = false
	}
}

// Retry prints a failover decision (as coding.DescribeRetry words it)
// on its own line, prefixed "rein: ", and keeps a retry's reason on the
// waiting line.
func (w *Waiter) Retry(ev failover.Event) {
	s := coding.DescribeRetry(ev)
	if s == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.clearLocked()
	fmt.Fprintln(w.w, "rein: "+s)
	if ev.Kind == failover.EventRetry {
		w.note = fmt.Sprintf("retry %d: %s", ev.Attempt, ev.Reason)
	}
	w.drawLocked()
}

// Close stops the goroutine, if running, and clears the line.
func (w *Waiter) Close() { w.end() }
