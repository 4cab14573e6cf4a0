package coding

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/session"
)

// ErrNoModel is returned by Open when no model is named and none can be
// chosen: no config names one and no provider key is set.
var ErrNoModel = errors.New(`no model is configured.

To use a model, set its API key and name it with --model (rein models lists them):
  export ANTHROPIC_API_KEY=…   rein run --model sonnet "…"        (anthropic/claude-sonnet-5-5)
  export OPENAI_API_KEY=…      rein run --model openai/gpt-6.2-sol "…"
  export GEMINI_API_KEY=…      rein run --model gemini/gemini-3.8-flash "…"
A local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio):
  rein run --model openai/<model> --base-url http://127.0.0.1:11434/v1 "…"
Or set "model" in .rein/config.json (see docs/providers.md).

To try rein without a model:
  rein demo                                  an offline scripted session on real files
  rein run --model faux --script FILE "…"    replay scripted replies, one JSON object a line`)

// keyProviders are the providers whose key, when present in the
// environment, selects a default model when none is named.
var keyProviders = []struct{ provider, env string }{
	{catalog.Anthropic, "ANTHROPIC_API_KEY"},
	{catalog.OpenAI, "OPENAI_API_KEY"},
	{catalog.Gemini, "GEMINI_API_KEY"},
	{catalog.Gemini, "GOOGLE_API_KEY"},
}

// catalog returns the model catalog of the workspace's config.
func (s *setup) catalog() *catalog.Catalog {
	return catalog.New(catalog.Options{Config: s.cfg, Getenv: s.o.Getenv})
}

// resolveModel returns the model and provider named by ref ("" for the
// config's default, else the first provider whose key is set), built
// with the options' base URL and timeouts. Notes go to Warn.
func (s *setup) resolveModel(ref string) (llm.Model, llm.Provider, error) {
	if ref == "faux" || ref == "faux/faux" {
		return llm.Model{}, nil, errors.New("the faux model replays a script: start rein with --model faux --script FILE")
	}
	cat := s.catalog()
	if ref == "" {
		ref = s.cfg.Model
	}
	if ref == "" {
		for _, kp := range keyProviders {
			if s.o.Getenv(kp.env) != "" {
				ref = kp.provider
				break
			}
		}
	}
	if ref == "" {
		return llm.Model{}, nil, ErrNoModel
	}
	res, err := cat.Resolve(ref)
	if err != nil {
		return llm.Model{}, nil, err
	}
	def := catalog.DefaultStatePath(s.o.Getenv)
	built, err := cat.Build(res.Model, catalog.BuildOptions{
		BaseURL:          s.o.BaseURL,
		IdleTimeout:      s.o.IdleTimeout,
		StatePath:        baseURLStatePath(def, s.o.BaseURL),
		DefaultStatePath: def,
		Failover:         s.failoverOptions(),
	})
	if err != nil {
		return llm.Model{}, nil, err
	}
	if res.Note != "" {
		s.o.Warn("note: " + res.Note)
	}
	for _, n := range built.Notes {
		s.o.Warn("note: " + n)
	}
	return built.Model, s.observe(withRequestTimeout(built.Provider, s.o.RequestTimeout)), nil
}

// failoverOptions report retries to OnRetry. Cooldowns are kept apart for
// a base URL server: none is recorded, and the provider's own cooldown
// state is not read, so that a local server answering 401 once does not
// block the real provider (or itself) for minutes on the next run.
func (s *setup) failoverOptions() failover.Options {
	o := failover.Options{OnEvent: logFailover(s.o.Logs, s.o.OnRetry)}
	if s.o.BaseURL != "" {
		o.Cooldowns = map[llm.ErrorCode]failover.Cooldown{}
		for code := range failover.DefaultCooldowns() {
			o.Cooldowns[code] = failover.Cooldown{}
		}
	}
	return o
}

// baseURLStatePath is the cooldown file of a base URL server.
func baseURLStatePath(def, baseURL string) string {
	if def == "" || baseURL == "" {
		return ""
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	host := strings.NewReplacer(":", "_", "/", "_").Replace(u.Host)
	return filepath.Join(filepath.Dir(def), "cooldowns-"+host+".json")
}

// withRequestTimeout bounds every model call of p by d (retries
// included); d <= 0 returns p.
func withRequestTimeout(p llm.Provider, d time.Duration) llm.Provider {
	if d <= 0 || p == nil {
		return p
	}
	return timeoutProvider{p: p, d: d}
}

type timeoutProvider struct {
	p llm.Provider
	d time.Duration
}

func (t timeoutProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		ctx, cancel := context.WithTimeout(ctx, t.d)
		defer cancel()
		for ev, err := range t.p.Stream(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// BaseURLKind is the kind of the custom session entry that records the
// base URL a session was made with, so that resuming it reaches the same
// server.
const BaseURLKind = "rein.base_url"

// recordBaseURL writes the base URL into a new session (or one whose
// recorded URL differs).
func recordBaseURL(h *harness.Harness, sess *session.Session, baseURL string) error {
	if sess == nil || baseURL == "" {
		return nil
	}
	if RecordedBaseURL(sess.Entries()) == baseURL {
		return nil
	}
	data, err := json.Marshal(map[string]string{"base_url": baseURL})
	if err != nil {
		return err
	}
	return h.AppendEntry(session.Entry{Type: session.TypeCustom, Kind: BaseURLKind, Data: data})
}

// RecordedBaseURL is the last base URL recorded among entries.
func RecordedBaseURL(entries []session.Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.Type == session.TypeCustom && e.Kind == BaseURLKind {
			var v struct {
				BaseURL string `json:"base_url"`
			}
			if json.Unmarshal(e.Data, &v) == nil {
				return v.BaseURL
			}
		}
	}
	return ""
}

// Catalog returns the model catalog of the user's and workspace's config
// files; warnings about them go to o.Warn.
func Catalog(o Options, workspace string) (*catalog.Catalog, error) {
	o.defaults()
	// The workspace's provider routing counts only when trusted, as in
	// Open; nothing is asked here.
	trusted := false
	if workspace != "" {
		if st, err := WorkspaceTrust(o, workspace); err == nil {
			trusted = st.Trusted(".rein/config.json")
		}
	}
	cfg, warnings, _, err := catalog.LoadWorkspace(workspace, o.Getenv, trusted)
	if err != nil {
		return nil, configError(err, catalog.UserConfigPath(o.Getenv), catalog.ProjectConfigPath(workspace))
	}
	for _, w := range warnings {
		o.warnf("warning: %v", w)
	}
	return catalog.New(catalog.Options{Config: cfg, Getenv: o.Getenv}), nil
}
