package catalog

import (
	"encoding/json"
	"fmt"
	"github.com/reinhq/rein/redact"
	"strings"
	"time"

	"github.com/reinhq/rein/llm"
)

// Config is the content of a rein config file. See the package
// documentation for the format and a complete example.
type Config struct {
	// Model is the default model reference: "provider/model", a provider
	// name or an alias.
	Model string `json:"model,omitempty"`
	// Fallbacks are model references tried in order when the model in use
	// cannot serve a request (rate limits, overload, bad keys, quota).
	Fallbacks []string `json:"fallbacks,omitempty"`
	// Aliases map short names to model references.
	Aliases map[string]string `json:"aliases,omitempty"`
	// Providers configures built-in providers and declares new ones, by
	// name.
	Providers map[string]ProviderConfig `json:"providers,omitempty"`
	// Models declares models or overrides fields of built-in ones; a
	// model is identified by provider and id, and only the fields set
	// replace the built-in values.
	Models   []llm.Model    `json:"models,omitempty"`
	Failover FailoverConfig `json:"failover,omitzero"`
	// Skills are extra skill folders (see package prompt), searched after
	// the usual ones; ~/ is the home directory, a relative path is taken
	// from the workspace. The files' lists are joined, user's first.
	Skills []string `json:"skills,omitempty"`
	// MCPServers is the mcpServers block, read by package mcp; the
	// catalog only accepts it.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`

	// Files lists the files this config was read from, in merge order.
	Files []string `json:"-"`
}

// KeyConfig says where an API key comes from. At most one field other
// than APIKeyTTL may be set.
type KeyConfig struct {
	// APIKey is the key itself. Prefer APIKeyEnv or APIKeyCommand: a key
	// written in a file is easily leaked.
	APIKey string `json:"api_key,omitempty"`
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// APIKeyCommand is a shell command whose standard output is the key,
	// for keys kept in a password manager or minted on demand.
	APIKeyCommand string `json:"api_key_command,omitempty"`
	// APIKeyTTL is how long the output of APIKeyCommand is reused before
	// the command runs again; zero means DefaultKeyTTL.
	APIKeyTTL Duration `json:"api_key_ttl,omitempty"`
}

func (k KeyConfig) set() bool { return k.APIKey != "" || k.APIKeyEnv != "" || k.APIKeyCommand != "" }

// source describes the key source without revealing a literal key.
func (k KeyConfig) source() string {
	switch {
	case k.APIKeyCommand != "":
		return fmt.Sprintf("command %q", k.APIKeyCommand)
	case k.APIKeyEnv != "":
		return "$" + k.APIKeyEnv
	case k.APIKey != "":
		return "literal key " + redact.Mask
	}
	return "none"
}

// String describes the key source; a literal key is never shown.
func (k KeyConfig) String() string { return k.source() }

// GoString is String, so that %#v does not print a literal key either.
func (k KeyConfig) GoString() string { return k.source() }

// ProviderConfig configures one provider.
type ProviderConfig struct {
	// API is the wire protocol: anthropic-messages, openai-chat,
	// openai-responses or gemini. Required for a new provider.
	API llm.API `json:"api,omitempty"`
	// BaseURL is the API root, such as "http://127.0.0.1:8080/v1".
	BaseURL string `json:"base_url,omitempty"`
	// Headers are sent with every request to the provider.
	Headers map[string]string `json:"headers,omitempty"`
	KeyConfig
	// NoKey marks a provider that needs no key, such as a local server.
	NoKey bool `json:"no_key,omitempty"`
	// Compat describes how an OpenAI-compatible server departs from
	// api.openai.com; when absent it is chosen from the base URL.
	Compat *Compat `json:"compat,omitempty"`
	// Profiles are several keys for the provider, rotated by the failover
	// when one is rate-limited or rejected. They replace the single key.
	Profiles []ProfileConfig `json:"profiles,omitempty"`
	// DefaultModel is the model used when only the provider is named.
	DefaultModel string `json:"default_model,omitempty"`
	// IdleTimeout is how long a stream may send nothing (the wait for the
	// reply's first bytes included) before it fails with a timeout, which
	// is retried; zero means the wire clients' default (60s; keep-alive pings do not count as data). Raise it for
	// slow local servers that read a long prompt before answering.
	IdleTimeout Duration `json:"idle_timeout,omitempty"`
	// ToolCalls is the tool_calls setting of the provider's models that
	// set none (see llm.Model.ToolCalls). When both are empty, models
	// reached over Chat Completions at a server other than api.openai.com
	// use "auto".
	ToolCalls string `json:"tool_calls,omitempty"`
}

// String describes the provider; a literal key is never shown.
func (p ProviderConfig) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{api=%s base_url=%s key=%s", p.API, p.BaseURL, p.KeyConfig.source())
	if len(p.Profiles) > 0 {
		b.WriteString(" profiles=[")
		for i, pr := range p.Profiles {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(pr.String())
		}
		b.WriteString("]")
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String.
func (p ProviderConfig) GoString() string { return p.String() }

// ProfileConfig is one named credential of a provider.
type ProfileConfig struct {
	// Name identifies the profile in events and the cooldown state, as
	// "<provider>:<name>".
	Name string `json:"name"`
	KeyConfig
}

// String describes the profile; a literal key is never shown.
func (p ProfileConfig) String() string { return p.Name + "(" + p.KeyConfig.source() + ")" }

// GoString is String.
func (p ProfileConfig) GoString() string { return p.String() }

// Compat mirrors the switches of openai.Compat in snake_case, for
// OpenAI-compatible servers that depart from api.openai.com.
type Compat struct {
	NoDeveloperRole      bool   `json:"no_developer_role,omitempty"`
	NoStreamOptions      bool   `json:"no_stream_options,omitempty"`
	MaxTokensField       string `json:"max_tokens_field,omitempty"`
	ReasoningField       string `json:"reasoning_field,omitempty"`
	ReplayReasoningField string `json:"replay_reasoning_field,omitempty"`
	NoReasoningEffort    bool   `json:"no_reasoning_effort,omitempty"`
	ReasoningObject      bool   `json:"reasoning_object,omitempty"`
	NoPromptCacheKey     bool   `json:"no_prompt_cache_key,omitempty"`
	MaxToolCallIDLength  int    `json:"max_tool_call_id_length,omitempty"`
}

// FailoverConfig tunes retries and where cooldowns are remembered.
type FailoverConfig struct {
	// BaseDelay and MaxDelay bound the backoff between retries; zero
	// means the failover defaults (1s and 30s).
	BaseDelay Duration `json:"base_delay,omitempty"`
	MaxDelay  Duration `json:"max_delay,omitempty"`
	// MaxAttempts is how many requests one key sends to one model before
	// moving on; zero means 4.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// StateFile is where key cooldowns are kept across runs; empty means
	// the caller's default.
	StateFile string `json:"state_file,omitempty"`
}

// String describes the config without revealing any key.
func (c *Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model=%s fallbacks=%v", c.Model, c.Fallbacks)
	for _, name := range sortedKeys(c.Providers) {
		fmt.Fprintf(&b, " %s=%s", name, c.Providers[name])
	}
	fmt.Fprintf(&b, " models=%d", len(c.Models))
	return b.String()
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("90s", "10m") or a number of seconds.
type Duration time.Duration

// UnmarshalJSON accepts "10m" or 600.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return fmt.Errorf("invalid duration %q: want a form such as \"90s\" or \"10m\"", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil || secs < 0 {
		return fmt.Errorf("invalid duration %s: want a string such as \"10m\" or a number of seconds", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// merge lays o over c: every field o sets wins.
func (c *Config) merge(o *Config) {
	if o.Model != "" {
		c.Model = o.Model
	}
	if o.Fallbacks != nil {
		c.Fallbacks = o.Fallbacks
	}
	c.Skills = append(c.Skills, o.Skills...)
	for k, v := range o.Aliases {
		if c.Aliases == nil {
			c.Aliases = map[string]string{}
		}
		c.Aliases[k] = v
	}
	for name, p := range o.Providers {
		if c.Providers == nil {
			c.Providers = map[string]ProviderConfig{}
		}
		c.Providers[name] = mergeProvider(c.Providers[name], p)
	}
	c.Models = mergeModels(c.Models, o.Models)
	f := o.Failover
	if f.BaseDelay != 0 {
		c.Failover.BaseDelay = f.BaseDelay
	}
	if f.MaxDelay != 0 {
		c.Failover.MaxDelay = f.MaxDelay
	}
	if f.MaxAttempts != 0 {
		c.Failover.MaxAttempts = f.MaxAttempts
	}
	if f.StateFile != "" {
		c.Failover.StateFile = f.StateFile
	}
	c.Files = append(c.Files, o.Files...)
}

func mergeProvider(a, b ProviderConfig) ProviderConfig {
	if b.ToolCalls != "" {
		a.ToolCalls = b.ToolCalls
	}
	if b.API != "" {
		a.API = b.API
	}
	if b.BaseURL != "" {
		a.BaseURL = b.BaseURL
	}
	if len(b.Headers) > 0 {
		h := make(map[string]string, len(a.Headers)+len(b.Headers))
		for k, v := range a.Headers {
			h[k] = v
		}
		for k, v := range b.Headers {
			h[k] = v
		}
		a.Headers = h
	}
	if b.KeyConfig.set() {
		a.KeyConfig = b.KeyConfig
	} else if b.APIKeyTTL != 0 {
		a.APIKeyTTL = b.APIKeyTTL
	}
	if b.NoKey {
		a.NoKey = true
	}
	if b.Compat != nil {
		a.Compat = b.Compat
	}
	if b.Profiles != nil {
		a.Profiles = b.Profiles
	}
	if b.DefaultModel != "" {
		a.DefaultModel = b.DefaultModel
	}
	if b.IdleTimeout != 0 {
		a.IdleTimeout = b.IdleTimeout
	}
	return a
}

// mergeModels lays over on base: a model with the same provider and id
// is merged field by field, others are appended.
func mergeModels(base, over []llm.Model) []llm.Model {
	out := append([]llm.Model(nil), base...)
	for _, m := range over {
		i := indexModel(out, m.Provider, m.ID)
		if i < 0 {
			out = append(out, m)
			continue
		}
		out[i] = mergeModel(out[i], m)
	}
	return out
}

func indexModel(ms []llm.Model, provider, id string) int {
	for i, m := range ms {
		if m.Provider == provider && m.ID == id {
			return i
		}
	}
	return -1
}

// mergeModel returns a with every field b sets.
func mergeModel(a, b llm.Model) llm.Model {
	if b.Name != "" {
		a.Name = b.Name
	}
	if b.API != "" {
		a.API = b.API
	}
	if b.BaseURL != "" {
		a.BaseURL = b.BaseURL
	}
	if b.ContextWindow != 0 {
		a.ContextWindow = b.ContextWindow
	}
	if b.MaxOutput != 0 {
		a.MaxOutput = b.MaxOutput
	}
	if b.Price != (llm.Price{}) {
		a.Price = b.Price
	}
	if b.Reasoning {
		a.Reasoning = true
	}
	if b.Input != nil {
		a.Input = b.Input
	}
	if b.ToolCalls != "" {
		a.ToolCalls = b.ToolCalls
	}
	if len(b.Headers) > 0 {
		h := make(map[string]string, len(a.Headers)+len(b.Headers))
		for k, v := range a.Headers {
			h[k] = v
		}
		for k, v := range b.Headers {
			h[k] = v
		}
		a.Headers = h
	}
	return a
}
