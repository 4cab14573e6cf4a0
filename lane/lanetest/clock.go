// Package lanetest holds a fake clock for tests of code that uses package
// lane: time moves only when the test says so.
package lanetest

import (
	"sort"
	"sync"
	"time"

	"github.com/reinhq/rein/lane"
)

// Clock is a fake lane.Clock. Time stands still until Advance or Set
// moves it; timers due by then fire in order of their due time, each on
// the caller's goroutine, with no lock held. Safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	cond   *sync.Cond
	now    time.Time
	seq    uint64
	timers []*timer
}

type timer struct {
	c       *Clock
	at      time.Time
	seq     uint64
	f       func()
	stopped bool
}

// New returns a fake clock showing start.
func New(start time.Time) *Clock {
	c := &Clock{now: start}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f for d from now. A d ≤ 0 is due at once: it fires
// at the next Advance (even by zero).
func (c *Clock) AfterFunc(d time.Duration, f func()) lane.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &timer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	c.cond.Broadcast()
	return t
}

// Stop cancels the timer; it reports whether it was still pending.
func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.stopped {
		return false
	}
	t.stopped = true
	t.c.remove(t)
	return true
}

func (c *Clock) remove(t *timer) {
	for i, x := range c.timers {
		if x == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			c.cond.Broadcast()
			return
		}
	}
}

// Advance moves the clock forward by d, firing every timer due by the
// new time in due order. Timers that fired timers schedule are fired too
// when they fall due within d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	c.Set(end)
}

// Set moves the clock to t (never backwards), firing due timers.
func (c *Clock) Set(end time.Time) {
	for {
		c.mu.Lock()
		sort.Slice(c.timers, func(i, j int) bool {
			if !c.timers[i].at.Equal(c.timers[j].at) {
				return c.timers[i].at.Before(c.timers[j].at)
			}
			return c.timers[i].seq < c.timers[j].seq
		})
		if len(c.timers) == 0 || c.timers[0].at.After(end) {
			if end.After(c.now) {
				c.now = end
			}
			c.mu.Unlock()
			return
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		t.stopped = true
		if t.at.After(c.now) {
			c.now = t.at
		}
		c.cond.Broadcast()
		c.mu.Unlock()
		t.f()
	}
}

// Pending is the number of timers not yet fired or stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// WaitPending blocks until at least n timers are pending: a test's way
// to know that a goroutine has reached the point where it waits on the
// clock, without sleeping.
func (c *Clock) WaitPending(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.timers) < n {
		c.cond.Wait()
	}
}
