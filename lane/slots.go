package lane

import (
	"container/heap"
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Request describes one model request asking for a slot.
type Request struct {
	// Provider names the provider the request goes to; requests to a
	// provider in back-off wait (others go ahead). "" is a provider of
	// its own.
	Provider string
	// Priority of the request; when zero, the context's (WithPriority,
	// or the run it belongs to).
	Priority Priority
	// Weight is the share of the cap the request takes: 0 means 1; more
	// than the cap, or negative, is a *ConfigError.
	Weight int
	// Session names the session, for events and errors; when "", the
	// context's run's session.
	Session string
}

// waiter is a request waiting for a slot.
type waiter struct {
	req      Request
	seq      uint64
	since    time.Time
	deadline time.Time // since + priority·Aging: the order of service
	ready    chan struct{}
	slot     *Slot // set when granted
	index    int   // in the heap; -1 when out
}

// waitHeap orders waiters by deadline, then arrival: earliest deadline
// first is exactly "priority with aging", since a waiter of level p that
// arrived at t goes before one of level q that arrived at u iff
// t + p·Aging < u + q·Aging.
type waitHeap []*waiter

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if !h[i].deadline.Equal(h[j].deadline) {
		return h[i].deadline.Before(h[j].deadline)
	}
	return h[i].seq < h[j].seq
}
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	n := len(old)
	w := old[n-1]
	old[n-1] = nil
	w.index = -1
	*h = old[:n-1]
	return w
}

// Slot is a granted share of the cap on concurrent model requests. The
// holder calls Touch on every stream delta and Release when the stream
// ends; a slot whose holder reports no progress for Options.RequestIdle
// is taken back and its context cancelled with an *IdleError, so a
// holder that never releases cannot keep the cap.
type Slot struct {
	s      *Scheduler
	req    Request
	waited time.Duration
	cancel context.CancelCauseFunc // guarded by s.mu
	// onTouch restarts the idle timer of the run the slot serves.
	onTouch func()
	last    atomic.Int64 // unix nanos of the last progress
	timer   Timer        // idle timer; guarded by s.mu
	done    bool         // released or expired; guarded by s.mu
	once    sync.Once
}

// Acquire waits for a request slot: until the provider's back-off ends,
// then until every request ahead of it in priority order has a slot and
// the cap has room for its weight. It returns a context derived from ctx
// that the request must use (it is cancelled with an *IdleError when the
// slot is taken back, and when the slot is released) and the slot.
//
// When ctx ends first, Acquire returns ctx's error and holds nothing: a
// slot granted at the same moment is given back.
func (s *Scheduler) Acquire(ctx context.Context, r Request) (context.Context, *Slot, error) {
	if r.Weight == 0 {
		r.Weight = 1
	}
	if r.Weight < 0 || r.Weight > s.o.MaxRequests {
		return nil, nil, &ConfigError{"Weight", "must be between 1 and the cap " + strconv.Itoa(s.o.MaxRequests) + ", got " + strconv.Itoa(r.Weight)}
	}
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	ri, _ := ctx.Value(ctxKey{}).(runInfo)
	if r.Priority == 0 {
		r.Priority = ri.priority
	}
	if r.Priority < Foreground {
		r.Priority = Foreground
	}
	if r.Session == "" {
		r.Session = ri.session
	}
	now := s.clock.Now()
	w := &waiter{req: r, since: now, deadline: now.Add(time.Duration(r.Priority) * s.o.Aging), ready: make(chan struct{})}
	s.mu.Lock()
	s.seq++
	w.seq = s.seq
	heap.Push(&s.queue, w)
	evs := s.dispatchLocked(now)
	queued := w.slot == nil
	s.mu.Unlock()
	s.emit(evs...)
	if queued {
		s.emit(Event{Type: EventQueued, Session: r.Session, Provider: r.Provider, Priority: r.Priority})
	}
	select {
	case <-w.ready:
	case <-ctx.Done():
		s.mu.Lock()
		if w.slot == nil {
			heap.Remove(&s.queue, w.index)
			// Leaving may let those behind go (a heavy waiter at the head).
			evs := s.dispatchLocked(s.clock.Now())
			s.mu.Unlock()
			s.emit(evs...)
			return nil, nil, context.Cause(ctx)
		}
		s.mu.Unlock()
		w.slot.Release()
		return nil, nil, context.Cause(ctx)
	}
	sl := w.slot
	sctx, cancel := context.WithCancelCause(ctx)
	if ri.run != nil {
		sl.onTouch = ri.run.Touch
	}
	// The slot may have expired between the grant and now.
	s.mu.Lock()
	sl.cancel = cancel
	expired := sl.done
	s.mu.Unlock()
	if expired {
		cancel(&IdleError{What: "request", Session: r.Session, Timeout: s.o.RequestIdle})
	}
	return sctx, sl, nil
}

// dispatchLocked grants slots to waiters in order while the cap has
// room; waiters whose provider is in back-off are passed over. It
// returns the events to emit once the lock is released.
func (s *Scheduler) dispatchLocked(now time.Time) []Event {
	var evs []Event
	var skipped []*waiter
	for s.queue.Len() > 0 {
		w := s.queue[0]
		if b := s.backoff[w.req.Provider]; b != nil && now.Before(b.until) {
			skipped = append(skipped, heap.Pop(&s.queue).(*waiter))
			continue
		}
		if s.used+w.req.Weight > s.o.MaxRequests {
			break
		}
		heap.Pop(&s.queue)
		s.used += w.req.Weight
		sl := &Slot{s: s, req: w.req, waited: now.Sub(w.since)}
		sl.last.Store(now.UnixNano())
		if s.o.RequestIdle > 0 {
			sl.timer = s.clock.AfterFunc(s.o.RequestIdle, sl.checkIdle)
		}
		w.slot = sl
		close(w.ready)
		evs = append(evs, Event{Type: EventGranted, At: now, Session: w.req.Session, Provider: w.req.Provider, Priority: w.req.Priority, Waited: sl.waited, InUse: s.used})
	}
	for _, w := range skipped {
		heap.Push(&s.queue, w)
	}
	return evs
}

// Touch records progress (a stream delta): it restarts the idle
// timeout, and the run's the slot belongs to. Cheap; safe from any
// goroutine.
func (sl *Slot) Touch() {
	if sl == nil {
		return
	}
	sl.last.Store(sl.s.clock.Now().UnixNano())
	if sl.onTouch != nil {
		sl.onTouch()
	}
}

// Waited is how long the request waited for its slot.
func (sl *Slot) Waited() time.Duration { return sl.waited }

// Release gives the slot back and cancels its context. It is idempotent
// and safe after the slot expired.
func (sl *Slot) Release() {
	if sl == nil {
		return
	}
	sl.once.Do(func() {
		sl.s.giveBack(sl, EventReleased)
		sl.s.mu.Lock()
		cancel := sl.cancel
		sl.s.mu.Unlock()
		if cancel != nil {
			cancel(nil)
		}
	})
}

// giveBack returns the slot's weight to the cap, once.
func (s *Scheduler) giveBack(sl *Slot, how EventType) bool {
	s.mu.Lock()
	if sl.done {
		s.mu.Unlock()
		return false
	}
	sl.done = true
	if sl.timer != nil {
		sl.timer.Stop()
	}
	s.used -= sl.req.Weight
	evs := append([]Event{{Type: how, Session: sl.req.Session, Provider: sl.req.Provider, Priority: sl.req.Priority, InUse: s.used}}, s.dispatchLocked(s.clock.Now())...)
	s.mu.Unlock()
	s.emit(evs...)
	return true
}

// checkIdle runs when the idle timer fires: the slot is taken back when
// no progress came for RequestIdle, otherwise the timer is set again for
// the rest.
func (sl *Slot) checkIdle() {
	s := sl.s
	now := s.clock.Now()
	s.mu.Lock()
	if sl.done {
		s.mu.Unlock()
		return
	}
	if left := s.o.RequestIdle - now.Sub(time.Unix(0, sl.last.Load())); left > 0 {
		sl.timer = s.clock.AfterFunc(left, sl.checkIdle)
		s.mu.Unlock()
		return
	}
	sl.timer = nil
	s.mu.Unlock()
	if !s.giveBack(sl, EventExpired) {
		return
	}
	s.mu.Lock()
	cancel := sl.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel(&IdleError{What: "request", Session: sl.req.Session, Timeout: s.o.RequestIdle})
	}
}
