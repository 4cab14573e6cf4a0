package main

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

// waiter shows on a terminal that rein is waiting for the model and for
// how long, with the reason of the last retry, on one line it redraws and
// clears before anything else is printed. Safe for concurrent use; close
// stops its goroutine.
type waiter struct {
	w     io.Writer
	color bool
	tick  time.Duration
	now   func() time.Time

	mu     sync.Mutex
	start  time.Time
	note   string
	shown  bool
	stop   chan struct{}
	done   chan struct{}
	frames int
}

func newWaiter(w io.Writer, color bool) *waiter {
	return &waiter{w: w, color: color, tick: 200 * time.Millisecond, now: time.Now}
}

// event starts the line when a turn starts and clears it when the reply
// begins.
func (w *waiter) event(ev agent.Event) {
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

func (w *waiter) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		return
	}
	w.start, w.note = w.now(), ""
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go w.loop(w.stop, w.done)
}

func (w *waiter) loop(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(w.tick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			w.mu.Lock()
			w.drawLocked()
			w.mu.Unlock()
		}
	}
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (w *waiter) drawLocked() {
	if w.stop == nil {
		return
	}
	w.frames++
	s := fmt.Sprintf("%s waiting for the model · %s", spinner[w.frames%len(spinner)], w.now().Sub(w.start).Round(time.Second))
	if w.note != "" {
		s += " · " + w.note
	}
	if w.color {
		s = ansiDim + s + ansiReset
	}
	fmt.Fprint(w.w, "\r\x1b[K"+s)
	w.shown = true
}

// end stops and clears the line.
func (w *waiter) end() {
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

func (w *waiter) clearLocked() {
	if w.shown {
		fmt.Fprint(w.w, "\r\x1b[K")
		w.shown = false
	}
}

// retry prints a failover decision on its own line and keeps its reason
// on the waiting line.
func (w *waiter) retry(ev failover.Event) {
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

// close stops the goroutine, if running.
func (w *waiter) close() { w.end() }
