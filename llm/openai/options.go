package openai

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/internal/wire"
)

// DefaultBaseURL is where requests go when neither Options.BaseURL nor the
// request's model names a base URL.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultIdleTimeout is how long a stream may go without data before it
// fails with code timeout, when Options.IdleTimeout is zero.
const DefaultIdleTimeout = wire.DefaultIdle

// Options configure a client. The zero value talks to api.openai.com with
// no credentials.
type Options struct {
	// BaseURL is the API root, "https://api.openai.com/v1" when empty. A
	// request whose Model.BaseURL is set goes there instead.
	BaseURL string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// APIKey returns the key for one request; it is called per request so
	// that keys can rotate. A request's Options.APIKey, when non-empty,
	// wins. An empty key sends no Authorization header (local servers).
	APIKey func(ctx context.Context) (string, error)
	// Headers are added to every request, then the model's Headers, then
	// the request's Options.Headers; later ones win.
	Headers map[string]string
	// IdleTimeout fails a stream that receives nothing, response headers
	// included, for this long with code timeout. Zero means
	// DefaultIdleTimeout; a negative value disables the guard.
	IdleTimeout time.Duration
	// Compat describes how the server differs from api.openai.com. The
	// zero value means "detect from the base URL" (see CompatFor); set any
	// field to use exactly the given Compat instead. To force
	// api.openai.com behaviour on another host (a proxy in front of
	// OpenAI, say), use Compat{MaxTokensField: "max_completion_tokens"}.
	Compat Compat
}

// Compat lists the ways an OpenAI-compatible server departs from
// api.openai.com. The zero value is api.openai.com behaviour.
type Compat struct {
	// NoDeveloperRole sends the system prompt as a "system" message. By
	// default a model with Reasoning gets it as a "developer" message, as
	// OpenAI asks for its reasoning models; other models always get
	// "system". Chat Completions only (Responses sends "instructions").
	NoDeveloperRole bool
	// NoStreamOptions leaves out stream_options.include_usage, for servers
	// that reject it. Such servers may then report no usage. Chat only.
	NoStreamOptions bool
	// MaxTokensField names the reply-length field on Chat Completions:
	// "max_completion_tokens" (the default when empty) or "max_tokens"
	// for servers that predate the rename.
	MaxTokensField string
	// ReasoningField names the delta field a Chat Completions server
	// streams reasoning text in; only that field is read. Empty means
	// auto-detect: delta.reasoning_content (DeepSeek, vLLM, llama.cpp) or
	// delta.reasoning (OpenRouter, Ollama, Groq). "-" ignores reasoning.
	ReasoningField string
	// ReplayReasoningField, when set, sends the thinking text of earlier
	// assistant messages of this API back in that field of the assistant
	// message: "reasoning_content" or "reasoning", for servers that want
	// reasoning returned during a tool loop. Empty never sends thinking
	// back.
	ReplayReasoningField string
	// NoReasoningEffort never sends a reasoning effort, even to models
	// with Reasoning.
	NoReasoningEffort bool
	// ReasoningObject sends the effort as {"reasoning":{"effort":…}}
	// (OpenRouter's form) instead of reasoning_effort. Chat only.
	ReasoningObject bool
	// NoPromptCacheKey never sends prompt_cache_key; only api.openai.com
	// is known to accept it.
	NoPromptCacheKey bool
	// MaxToolCallIDLength is the longest tool-call id the server accepts;
	// zero means 40, OpenAI's limit. Ids that are longer, or hold other
	// characters than letters, digits, '_' and '-', are replaced in the
	// request by a stable id derived from them, so that a conversation
	// begun with another provider can continue here.
	MaxToolCallIDLength int
}

// compatRule is one row of the CompatFor table.
type compatRule struct {
	host   string // suffix of the host name; "" matches any host
	compat Compat
}

// generic is the behaviour assumed of an unknown OpenAI-compatible server:
// the widely supported older field names and roles, nothing that only
// api.openai.com accepts.
var generic = Compat{NoDeveloperRole: true, MaxTokensField: "max_tokens", NoPromptCacheKey: true}

// compatTable returns the rules of CompatFor, first match wins.
func compatTable() []compatRule {
	mistral := generic
	mistral.NoStreamOptions = true
	mistral.NoReasoningEffort = true
	deepseek := generic
	deepseek.NoReasoningEffort = true
	deepseek.ReasoningField = "reasoning_content"
	openrouter := generic
	openrouter.MaxTokensField = "" // max_completion_tokens is honoured
	openrouter.ReasoningObject = true
	groq := generic
	groq.ReasoningField = "reasoning"
	return []compatRule{
		{"api.openai.com", Compat{}},
		{"openai.azure.com", Compat{NoPromptCacheKey: true}},
		{"api.deepseek.com", deepseek},
		{"openrouter.ai", openrouter},
		{"api.groq.com", groq},
		{"api.mistral.ai", mistral},
		{"", generic},
	}
}

// CompatFor returns the Compat for a server by its base URL:
//
//	host                        behaviour
//	api.openai.com              zero Compat (OpenAI itself)
//	*.openai.azure.com          OpenAI, without prompt_cache_key
//	api.deepseek.com            generic; reasoning in delta.reasoning_content; no reasoning_effort
//	openrouter.ai               generic, but max_completion_tokens; effort sent as {"reasoning":{"effort":…}}
//	api.groq.com                generic; reasoning in delta.reasoning
//	api.mistral.ai              generic; no stream_options, no reasoning_effort
//	anything else               generic
//
// "Generic" covers local and hosted servers such as Ollama, vLLM,
// llama.cpp, LM Studio, Together, Fireworks, Cerebras and xAI: the system
// prompt with role "system", "max_tokens" instead of
// "max_completion_tokens", no prompt_cache_key, reasoning text
// auto-detected, everything else as OpenAI does it.
func CompatFor(baseURL string) Compat {
	host := baseURL
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		host = u.Hostname()
	}
	host = strings.ToLower(host)
	for _, r := range compatTable() {
		if r.host == "" || host == r.host || strings.HasSuffix(host, "."+r.host) {
			return r.compat
		}
	}
	return generic
}

// config is what a client derives once from its Options, with the
// resources its calls share.
type config struct {
	opts    Options
	readers sync.Pool // *sse.Reader, reused across streams
}

// reader returns an SSE reader of body, reusing a pooled one when it can;
// return it to c.readers when the stream is over.
func (c *config) reader(body io.Reader) *sse.Reader {
	if r, ok := c.readers.Get().(*sse.Reader); ok {
		r.Reset(body)
		return r
	}
	return sse.NewReader(body)
}

func (c *config) baseURL(modelBase string) string {
	base := modelBase
	if base == "" {
		base = c.opts.BaseURL
	}
	if base == "" {
		base = DefaultBaseURL
	}
	return strings.TrimRight(base, "/")
}

// compat returns the Compat in force for a request to base.
func (c *config) compat(base string) Compat {
	if c.opts.Compat != (Compat{}) {
		return c.opts.Compat
	}
	return CompatFor(base)
}

func (c *config) idle() time.Duration {
	switch d := c.opts.IdleTimeout; {
	case d == 0:
		return DefaultIdleTimeout
	case d < 0:
		return 0
	default:
		return d
	}
}

func (c *config) client() *http.Client {
	if c.opts.HTTPClient != nil {
		return c.opts.HTTPClient
	}
	return http.DefaultClient
}

// key resolves the credential for one request.
func (c *config) key(ctx context.Context, override string) (string, error) {
	if override != "" {
		return override, nil
	}
	if c.opts.APIKey == nil {
		return "", nil
	}
	return c.opts.APIKey(ctx)
}

// isOpenAI reports whether base is OpenAI's own API.
func isOpenAI(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}
