package failover

import (
	"context"
	"errors"
	"fmt"
	redactpkg "github.com/reinhq/rein/redact"
	"iter"

	"github.com/reinhq/rein/llm"
)

// Profile is one credential for a provider.
type Profile struct {
	// ID names the credential in events, errors and the state file. It
	// must be unique among the profiles sharing a state file and must not
	// contain the key; "provider:name" is a good shape.
	ID string
	// Key returns the API key. It is called once per attempt, so a key
	// that expires can refresh. The key is passed to the wrapped provider
	// as Request.Options.APIKey on a copy of the request.
	Key func(ctx context.Context) (string, error)
}

// String returns the profile's id; the key is never printed.
func (p Profile) String() string { return p.ID }

// Target is one link of a fallback chain: a model served by a provider
// with the credentials to try, in configuration order.
type Target struct {
	Provider llm.Provider
	// Model replaces the request's model. A Model with an empty ID means
	// the request's own model.
	Model llm.Model
	// Profiles are the credentials to rotate through. Without profiles the
	// request's APIKey (or the provider's own credential source) is used,
	// tracked as the profile "<provider>:default".
	Profiles []Profile
}

// Provider is an llm.Provider that retries, rotates credentials and falls
// back along a chain of targets. It is safe for concurrent use.
type Provider struct {
	targets []Target
	opts    Options
	state   *state
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider trying targets in order. It fails when targets is
// empty, a target has no provider, or a profile has no id or key, or an id
// appears twice in one target.
func New(targets []Target, opts Options) (*Provider, error) {
	if len(targets) == 0 {
		return nil, errors.New("failover: no targets")
	}
	for i, t := range targets {
		if t.Provider == nil {
			return nil, fmt.Errorf("failover: target %d (%s) has no provider", i, modelKey(t.Model))
		}
		seen := map[string]bool{}
		for j, p := range t.Profiles {
			switch {
			case p.ID == "":
				return nil, fmt.Errorf("failover: target %d (%s): profile %d has no id", i, modelKey(t.Model), j)
			case p.Key == nil:
				return nil, fmt.Errorf("failover: target %d (%s): profile %q has no key function", i, modelKey(t.Model), p.ID)
			case seen[p.ID]:
				return nil, fmt.Errorf("failover: target %d (%s): profile %q appears twice", i, modelKey(t.Model), p.ID)
			}
			seen[p.ID] = true
		}
	}
	o := opts.withDefaults()
	return &Provider{
		targets: append([]Target(nil), targets...),
		opts:    o,
		state:   newState(o.StatePath, o.MaxPins, o.OnEvent),
	}, nil
}

// Stream implements llm.Provider. See the package documentation for what
// is retried and what the consumer sees.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		r := &run{p: p, ctx: ctx, req: req, yield: yield}
		r.run()
	}
}

func modelKey(m llm.Model) string {
	if m.Provider == "" {
		return m.ID
	}
	return m.Provider + "/" + m.ID
}

// step is one planned (target, profile) pair.
type step struct {
	target  int
	model   llm.Model
	profile Profile
	// cooling marks a target skipped because every profile is resting;
	// reason and message say why.
	cooling bool
	reason  llm.ErrorCode
}

// plan orders the attempts of one request. Healthy profiles of every
// target come in chain order; a target whose profiles are all cooling
// down is skipped. When nothing at all is healthy, every pair is planned,
// the soonest-expiring cooldown first.
func (p *Provider) plan(req *llm.Request) []step {
	now := p.opts.Now()
	var healthy, cooling []step
	var coolingUntil []candidate
	for ti, t := range p.targets {
		m := t.Model
		if m.ID == "" {
			m = req.Model
		}
		profiles := t.Profiles
		if len(profiles) == 0 {
			name := m.Provider
			if name == "" {
				name = "provider"
			}
			profiles = []Profile{{ID: name + ":default"}}
		}
		ids := make([]string, len(profiles))
		for i, pr := range profiles {
			ids[i] = pr.ID
		}
		cands, n := p.state.candidates(ids, modelKey(m), pinKey(req.Options.SessionID, m), now)
		for i, c := range cands {
			s := step{target: ti, model: m, profile: profiles[c.index]}
			if i < n {
				healthy = append(healthy, s)
				continue
			}
			s.cooling, s.reason = true, c.health.reason
			cooling = append(cooling, s)
			coolingUntil = append(coolingUntil, c)
		}
		if n == 0 {
			healthy = append(healthy, step{target: ti, model: m, cooling: true, reason: cands[0].health.reason,
				profile: Profile{ID: cands[0].id}})
		}
	}
	for _, s := range healthy {
		if !s.cooling {
			return healthy
		}
	}
	// Nothing is healthy: try everything, soonest-expiring first.
	idx := make([]int, len(cooling))
	for i := range idx {
		idx[i] = i
	}
	sortByUntil(idx, coolingUntil)
	out := make([]step, len(idx))
	for i, j := range idx {
		out[i] = cooling[j]
		out[i].cooling = false
	}
	return out
}

func sortByUntil(idx []int, c []candidate) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && c[idx[j]].health.until.Before(c[idx[j-1]].health.until); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

func pinKey(session string, m llm.Model) string {
	if session == "" {
		return ""
	}
	return session + "\x00" + modelKey(m)
}

// redact removes every key in keys from s.
func redact(s string, keys []string) string { return redactpkg.Values(s, keys...) }

// sanitize returns err unchanged unless its text contains a key, in which
// case it returns a classified copy with the key removed and no cause.
func sanitize(err error, keys []string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if redact(text, keys) == text {
		return err
	}
	le := llm.AsError(err)
	return &llm.Error{Code: le.Code, Status: le.Status, Provider: le.Provider, RetryAfter: le.RetryAfter,
		Message: redact(le.Error(), keys)}
}

func sanitizeMessage(m *llm.Message, keys []string) *llm.Message {
	if m == nil {
		return nil
	}
	c := *m
	c.ErrorMessage = redact(c.ErrorMessage, keys)
	return &c
}
