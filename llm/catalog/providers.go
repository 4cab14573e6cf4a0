package catalog

import (
	"sort"

	"github.com/reinhq/rein/llm"
)

// ProviderSpec describes how to reach a provider: its wire protocol,
// where it is served and where its key comes from.
type ProviderSpec struct {
	Name string
	// API is the wire protocol of the provider's models, unless a model
	// names its own.
	API llm.API
	// BaseURL is the API root; empty means the wire client's default.
	BaseURL string
	// Headers are sent with every request to the provider.
	Headers map[string]string
	// KeyEnv lists the environment variables holding the API key, in
	// order of preference.
	KeyEnv []string
	// NoKey marks a provider that needs no key (a local server).
	NoKey bool
	// DefaultModel is the model chosen when only the provider is named.
	DefaultModel string
}

// BuiltinProviders returns the providers rein knows without a config
// file: anthropic, openai and gemini with their model catalogs, and
// OpenAI-compatible hosts (openrouter, groq, deepseek, mistral, xai) and
// local servers (ollama, lmstudio) whose models are named freely. Each call
// returns fresh values.
func BuiltinProviders() map[string]ProviderSpec {
	chat := func(name, base string, env ...string) ProviderSpec {
		return ProviderSpec{Name: name, API: llm.APIOpenAIChat, BaseURL: base, KeyEnv: env, NoKey: len(env) == 0}
	}
	return map[string]ProviderSpec{
		Anthropic: {Name: Anthropic, API: llm.APIAnthropicMessages, KeyEnv: []string{"ANTHROPIC_API_KEY"},
			DefaultModel: "claude-sonnet-5-5"},
		OpenAI: {Name: OpenAI, API: llm.APIOpenAIResponses, KeyEnv: []string{"OPENAI_API_KEY"},
			DefaultModel: "gpt-6.2-sol"},
		Gemini: {Name: Gemini, API: llm.APIGemini, KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
			DefaultModel: "gemini-3.8-flash"},
		"openrouter": chat("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
		"groq":       chat("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
		"deepseek":   chat("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
		"mistral":    chat("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
		"xai":        chat("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
		"ollama":     chat("ollama", "http://127.0.0.1:11434/v1"),
		"lmstudio":   chat("lmstudio", "http://127.0.0.1:1234/v1"),
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
