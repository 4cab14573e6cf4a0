package lane

import (
	"errors"
	"time"

	"github.com/reinhq/rein/llm"
)

// backoff is the pause of one provider after rate limits.
type backoff struct {
	until  time.Time
	streak int   // consecutive rate limits
	timer  Timer // wakes the queue when the pause ends
}

// Backoff pauses every request to provider until now+d: requests to it
// wait in the queue (others go ahead) and the slot of the first one is
// granted when the pause ends. A pause never shortens one already set;
// d is capped at Options.BackoffMax. d ≤ 0 does nothing.
func (s *Scheduler) Backoff(provider string, d time.Duration) {
	if d <= 0 {
		return
	}
	if d > s.o.BackoffMax {
		d = s.o.BackoffMax
	}
	s.mu.Lock()
	until := s.pauseLocked(provider, d)
	// A paused head no longer holds back the requests behind it.
	evs := s.dispatchLocked(s.clock.Now())
	s.mu.Unlock()
	s.emit(append([]Event{{Type: EventBackoff, Provider: provider, Until: until}}, evs...)...)
}

func (s *Scheduler) pauseLocked(provider string, d time.Duration) time.Time {
	b := s.backoff[provider]
	if b == nil {
		b = &backoff{}
		s.backoff[provider] = b
	}
	until := s.clock.Now().Add(d)
	if !until.After(b.until) {
		return b.until
	}
	b.until = until
	if b.timer != nil {
		b.timer.Stop()
	}
	b.timer = s.clock.AfterFunc(d, func() {
		s.mu.Lock()
		evs := s.dispatchLocked(s.clock.Now())
		s.mu.Unlock()
		s.emit(evs...)
	})
	return until
}

// Observe feeds the outcome of a request to provider into its back-off:
// a rate limit (llm.CodeRateLimit) pauses the provider for the
// Retry-After the server sent, else for Options.Backoff doubled per
// consecutive rate limit (both capped at BackoffMax); any other outcome,
// success included, ends the streak. The provider middleware calls it
// after every stream.
func (s *Scheduler) Observe(provider string, err error) {
	var le *llm.Error
	if err == nil || !errors.As(err, &le) || le.Code != llm.CodeRateLimit {
		s.mu.Lock()
		if b := s.backoff[provider]; b != nil {
			b.streak = 0
		}
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	b := s.backoff[provider]
	if b == nil {
		b = &backoff{}
		s.backoff[provider] = b
	}
	b.streak++
	d := le.RetryAfter
	if d <= 0 {
		d = s.o.Backoff << min(b.streak-1, 20)
	}
	if d > s.o.BackoffMax || d <= 0 {
		d = s.o.BackoffMax
	}
	until := s.pauseLocked(provider, d)
	evs := s.dispatchLocked(s.clock.Now())
	s.mu.Unlock()
	s.emit(append([]Event{{Type: EventBackoff, Provider: provider, Until: until}}, evs...)...)
}

// BackoffUntil returns the end of provider's pause (zero when it has
// none, or it has passed).
func (s *Scheduler) BackoffUntil(provider string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.backoff[provider]; b != nil && s.clock.Now().Before(b.until) {
		return b.until
	}
	return time.Time{}
}
