package catalog

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
)

// Defaults assumed for a model that is not in the catalog.
const (
	DefaultContextWindow = 128_000
	DefaultMaxOutput     = 8_192
)

// Options configure a Catalog.
type Options struct {
	// Config is the merged config file content; nil means none.
	Config *Config
	// Getenv reads environment variables (API keys, XDG paths); nil means
	// os.Getenv.
	Getenv func(string) string
	// Now is the clock used to expire cached command keys; nil means
	// time.Now.
	Now func() time.Time
}

// Catalog knows every model and provider: the built-in ones and those
// declared in the config. It is safe for concurrent use.
type Catalog struct {
	models    []llm.Model
	providers map[string]ProviderSpec
	aliases   map[string]string
	cfg       Config
	getenv    func(string) string
	now       func() time.Time

	mu       sync.Mutex
	commands map[string]*commandKey
}

// New builds a catalog from the built-in models and providers and the
// config: config providers add to or adjust the built-in ones, config
// models add to or override built-in models field by field, and config
// aliases add to the built-in aliases.
func New(opts Options) *Catalog {
	c := &Catalog{
		providers: BuiltinProviders(),
		aliases:   builtinAliases(),
		getenv:    opts.Getenv,
		now:       opts.Now,
		commands:  map[string]*commandKey{},
	}
	if c.getenv == nil {
		c.getenv = os.Getenv
	}
	if c.now == nil {
		c.now = time.Now
	}
	if opts.Config != nil {
		c.cfg = *opts.Config
	}
	for name, pc := range c.cfg.Providers {
		spec, ok := c.providers[name]
		if !ok {
			spec = ProviderSpec{Name: name, API: llm.APIOpenAIChat}
		}
		if pc.API != "" {
			spec.API = pc.API
		}
		if pc.BaseURL != "" {
			spec.BaseURL = pc.BaseURL
		}
		if len(pc.Headers) > 0 {
			spec.Headers = pc.Headers
		}
		if pc.NoKey {
			spec.NoKey = true
		}
		if pc.DefaultModel != "" {
			spec.DefaultModel = pc.DefaultModel
		}
		c.providers[name] = spec
	}
	c.models = mergeModels(Builtin(), c.cfg.Models)
	for i := range c.models {
		m := &c.models[i]
		if m.API == "" {
			m.API = c.providers[m.Provider].API
		}
	}
	for k, v := range c.cfg.Aliases {
		c.aliases[k] = v
	}
	return c
}

// Config returns the config the catalog was built with.
func (c *Catalog) Config() Config { return c.cfg }

// Provider returns the spec of a provider by name.
func (c *Catalog) Provider(name string) (ProviderSpec, bool) {
	p, ok := c.providers[name]
	return p, ok
}

// Providers returns the names of all providers, sorted.
func (c *Catalog) Providers() []string { return sortedKeys(c.providers) }

// Resolution is the outcome of resolving a model reference.
type Resolution struct {
	Model llm.Model
	// Known is true when the model is in the catalog (built in or
	// declared in the config).
	Known bool
	// Note explains defaults that were assumed for an unknown model and
	// how to declare the model properly. Empty for known models.
	Note string
}

// ErrUnknownProvider is returned (wrapped) for a reference naming no
// known provider.
var ErrUnknownProvider = errors.New("unknown provider")

// Resolve turns a model reference into a model. A reference is one of:
//
//   - an alias: "sonnet", "opus", "gpt", "flash", or one from the config;
//   - a provider name alone, for its default model: "anthropic";
//   - "provider/model": "openai/gpt-6.2-sol", "ollama/qwen3-coder:30b"
//     (the model id may itself contain '/', as OpenRouter's do);
//   - a bare model id found in the catalog: "claude-opus-5-5", or one
//     whose prefix names its provider (claude-, gpt-, o1…o4, gemini-).
//
// An empty reference means the config's default model, or Anthropic's
// default model when the config names none.
//
// A model missing from the catalog on a known provider resolves to
// conservative defaults (DefaultContextWindow, DefaultMaxOutput, no price,
// text input) with a Note saying how to declare it in the config file.
func (c *Catalog) Resolve(ref string) (Resolution, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		ref = c.cfg.Model
	}
	if ref == "" {
		ref = Anthropic
	}
	seen := map[string]bool{}
	for {
		target, ok := c.aliases[ref]
		if !ok || seen[ref] {
			break
		}
		seen[ref] = true
		ref = target
	}
	provider, id, hasSlash := strings.Cut(ref, "/")
	if !hasSlash {
		if spec, ok := c.providers[ref]; ok {
			if spec.DefaultModel == "" {
				return Resolution{}, fmt.Errorf("provider %q has no default model: name one, as in %s/<model>, or set providers.%s.default_model in the config file", ref, ref, ref)
			}
			provider, id = ref, spec.DefaultModel
		} else {
			return c.resolveBare(ref)
		}
	}
	if _, ok := c.providers[provider]; !ok {
		return Resolution{}, fmt.Errorf("%w %q in %q: known providers are %s; declare others under \"providers\" in the config file",
			ErrUnknownProvider, provider, ref, strings.Join(c.Providers(), ", "))
	}
	if id == "" {
		return Resolution{}, fmt.Errorf("model reference %q names no model after the '/'", ref)
	}
	if i := indexModel(c.models, provider, id); i >= 0 {
		return Resolution{Model: cloneModel(c.models[i]), Known: true}, nil
	}
	return c.unknown(provider, id), nil
}

// resolveBare resolves a model id given without a provider.
func (c *Catalog) resolveBare(id string) (Resolution, error) {
	var found []llm.Model
	for _, m := range c.models {
		if m.ID == id {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 1:
		return Resolution{Model: cloneModel(found[0]), Known: true}, nil
	case 0:
	default:
		var names []string
		for _, m := range found {
			names = append(names, m.Provider+"/"+m.ID)
		}
		return Resolution{}, fmt.Errorf("model %q is served by several providers (%s): name one", id, strings.Join(names, ", "))
	}
	if p := providerByPrefix(id); p != "" {
		return c.unknown(p, id), nil
	}
	return Resolution{}, fmt.Errorf("unknown model %q: write it as provider/model (providers: %s), or use an alias (%s)",
		id, strings.Join(c.Providers(), ", "), strings.Join(sortedKeys(c.aliases), ", "))
}

func providerByPrefix(id string) string {
	switch {
	case strings.HasPrefix(id, "claude-"):
		return Anthropic
	case strings.HasPrefix(id, "gemini-"):
		return Gemini
	case strings.HasPrefix(id, "gpt-"), strings.HasPrefix(id, "chatgpt-"),
		len(id) >= 2 && id[0] == 'o' && id[1] >= '1' && id[1] <= '9':
		return OpenAI
	}
	return ""
}

// unknown builds conservative defaults for a model missing from the
// catalog.
func (c *Catalog) unknown(provider, id string) Resolution {
	spec := c.providers[provider]
	api := spec.API
	if provider == OpenAI && api == llm.APIOpenAIResponses && !looksReasoning(id) {
		api = llm.APIOpenAIChat
	}
	m := llm.Model{ID: id, Provider: provider, API: api, ContextWindow: DefaultContextWindow,
		MaxOutput: DefaultMaxOutput, Input: []llm.InputKind{llm.InputText}, Assumed: true}
	note := fmt.Sprintf("model %s/%s is not in the catalog; assuming a %d-token context window, %d output tokens, "+
		"text input and no price. To declare it, add to the config file: "+
		`{"models": [{"provider": %q, "id": %q, "context_window": <tokens>, "max_output": <tokens>}]}`,
		provider, id, DefaultContextWindow, DefaultMaxOutput, provider, id)
	return Resolution{Model: m, Note: note}
}

// looksReasoning guesses whether an unknown OpenAI model id is a
// reasoning model, which OpenAI serves best over the Responses API.
func looksReasoning(id string) bool {
	if strings.HasPrefix(id, "gpt-5") || strings.HasPrefix(id, "gpt-6") || strings.HasPrefix(id, "gpt-7") {
		return true
	}
	return len(id) >= 2 && id[0] == 'o' && id[1] >= '1' && id[1] <= '9'
}

func cloneModel(m llm.Model) llm.Model {
	m.Input = append([]llm.InputKind(nil), m.Input...)
	if m.Headers != nil {
		h := make(map[string]string, len(m.Headers))
		for k, v := range m.Headers {
			h[k] = v
		}
		m.Headers = h
	}
	return m
}

// Models returns every model, built in and declared, sorted by provider
// in catalog order (newest first for the built-in providers).
func (c *Catalog) Models() []llm.Model {
	out := make([]llm.Model, 0, len(c.models))
	for _, p := range c.Providers() {
		for _, m := range c.models {
			if m.Provider == p {
				out = append(out, cloneModel(m))
			}
		}
	}
	for _, m := range c.models {
		if _, ok := c.providers[m.Provider]; !ok {
			out = append(out, cloneModel(m))
		}
	}
	return out
}

// Aliases returns the alias table, built in and declared.
func (c *Catalog) Aliases() map[string]string {
	out := make(map[string]string, len(c.aliases))
	for k, v := range c.aliases {
		out[k] = v
	}
	return out
}
