package failover

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/reinhq/rein/llm"
)

// Backoff configures retries of transient failures.
type Backoff struct {
	// Base is the first retry's delay ceiling; each retry doubles it.
	// Zero means 1s.
	Base time.Duration
	// Cap bounds every delay, including one a server asks for with
	// Retry-After: a longer Retry-After moves on to the next profile or
	// model instead of sleeping. Zero means 30s.
	Cap time.Duration
	// MaxAttempts is how many requests one profile sends to one model
	// before the failover moves on. Zero means 4; 1 disables retries.
	MaxAttempts int
}

// Cooldown configures how long a failing profile rests.
type Cooldown struct {
	// Base is the length of the first cooldown.
	Base time.Duration
	// Max caps the length as it doubles with consecutive failures.
	Max time.Duration
}

func (c Cooldown) length(failures int) time.Duration {
	d := c.Base
	for i := 1; i < failures && d < c.Max; i++ {
		d *= 2
	}
	if c.Max > 0 && d > c.Max {
		d = c.Max
	}
	return d
}

// DefaultCooldowns returns the cooldown of each reason used when Options
// does not set one: rate_limit 1m (up to 30m), overloaded 30s (up to 5m),
// timeout 30s (up to 5m), auth 5m (up to 1h), billing 1h (up to 24h).
func DefaultCooldowns() map[llm.ErrorCode]Cooldown {
	return map[llm.ErrorCode]Cooldown{
		llm.CodeRateLimit:  {Base: time.Minute, Max: 30 * time.Minute},
		llm.CodeOverloaded: {Base: 30 * time.Second, Max: 5 * time.Minute},
		llm.CodeTimeout:    {Base: 30 * time.Second, Max: 5 * time.Minute},
		llm.CodeAuth:       {Base: 5 * time.Minute, Max: time.Hour},
		llm.CodeBilling:    {Base: time.Hour, Max: 24 * time.Hour},
	}
}

// Options configures a failover Provider. The zero value is usable.
type Options struct {
	Backoff Backoff
	// Cooldowns overrides the cooldown of individual reasons; reasons not
	// listed keep DefaultCooldowns.
	Cooldowns map[llm.ErrorCode]Cooldown
	// StatePath, when set, is a JSON file holding cooldowns across
	// restarts. See the package documentation.
	StatePath string
	// OnEvent receives every decision. It is called synchronously from the
	// stream and must not block; it may be called concurrently by
	// concurrent requests.
	OnEvent func(Event)
	// MaxPins bounds the number of sessions whose profile is remembered;
	// the least recently pinned is forgotten first. Zero means 4096.
	MaxPins int

	// Now, Sleep and Rand make time and jitter deterministic in tests.
	// Now defaults to time.Now; Sleep waits for d or until ctx is done,
	// returning ctx's error then; Rand returns a number in [0, 1).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
}

func (o *Options) withDefaults() Options {
	r := *o
	if r.Backoff.Base <= 0 {
		r.Backoff.Base = time.Second
	}
	if r.Backoff.Cap <= 0 {
		r.Backoff.Cap = 30 * time.Second
	}
	if r.Backoff.MaxAttempts <= 0 {
		r.Backoff.MaxAttempts = 4
	}
	cd := DefaultCooldowns()
	for k, v := range o.Cooldowns {
		cd[k] = v
	}
	r.Cooldowns = cd
	if r.MaxPins <= 0 {
		r.MaxPins = 4096
	}
	if r.OnEvent == nil {
		r.OnEvent = func(Event) {}
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Sleep == nil {
		r.Sleep = sleep
	}
	if r.Rand == nil {
		r.Rand = rand.Float64
	}
	return r
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// delay returns the full-jitter backoff before retry number n (n >= 1):
// a random duration in [0, min(Cap, Base·2^(n-1))).
func (b Backoff) delay(n int, rnd func() float64) time.Duration {
	ceil := b.Base
	for i := 1; i < n && ceil < b.Cap; i++ {
		ceil *= 2
	}
	if ceil > b.Cap {
		ceil = b.Cap
	}
	f := rnd()
	if f < 0 || f >= 1 {
		f = 0
	}
	return time.Duration(f * float64(ceil))
}
