package catalog

import "github.com/reinhq/rein/llm"

// Built-in provider names.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"
	Gemini    = "gemini"
)

// Builtin returns the built-in model catalog: the current models of
// Anthropic, OpenAI and Google Gemini, newest first within each provider.
// Each call returns a fresh slice that the caller may modify.
//
// Prices are list prices in US dollars per million tokens for the standard
// tier and short prompts, as the providers published them in November
// 2026. Longer prompts cost more on some models (Gemini Pro above 200K
// tokens, GPT-5.4 and later above 272K, Claude Haiku 5.5 above 100K);
// Gemini 3.6 and 3.8 Flash are listed at their regular price, not the
// promotional half price that runs until the end of 2026. CacheWrite is
// the five-minute (Anthropic) or default-retention (OpenAI) cache-write
// price; Gemini bills cache storage by the hour instead, so it is zero.
// A config file can override any field of any model.
//
// API choice: Anthropic models use the Messages API and Gemini models the
// Gemini API. OpenAI reasoning models (GPT-5 and later, the o-series) use
// the Responses API, the only OpenAI API that carries reasoning state
// across turns and offers tools together with reasoning effort on the
// newest models; the non-reasoning GPT-4.1 and GPT-4o use Chat
// Completions, which every OpenAI-compatible server also speaks.
func Builtin() []llm.Model {
	var ms []llm.Model
	ms = append(ms, anthropicModels()...)
	ms = append(ms, openAIModels()...)
	ms = append(ms, geminiModels()...)
	return ms
}

var textImage = []llm.InputKind{llm.InputText, llm.InputImage}

func claude(id, name string, window, out int, in, outp, read, write float64, reasoning bool) llm.Model {
	return llm.Model{ID: id, Name: name, Provider: Anthropic, API: llm.APIAnthropicMessages,
		ContextWindow: window, MaxOutput: out, Reasoning: reasoning,
		Price: llm.Price{Input: in, Output: outp, CacheRead: read, CacheWrite: write},
		Input: append([]llm.InputKind(nil), textImage...)}
}

func anthropicModels() []llm.Model {
	const m, k = 1_000_000, 1_000
	return []llm.Model{
		claude("claude-fable-5-2", "Claude Fable 5.2", m, 128*k, 8, 40, 0.20, 10, true),
		claude("claude-opus-5-5", "Claude Opus 5.5", m, 128*k, 4, 20, 0.20, 5, true),
		claude("claude-sonnet-5-5", "Claude Sonnet 5.5", m, 128*k, 2, 10, 0.10, 2.50, true),
		claude("claude-haiku-5-5", "Claude Haiku 5.5", m, 128*k, 0.10, 0.50, 0.01, 0.125, true),
		claude("claude-fable-5-1", "Claude Fable 5.1", m, 128*k, 10, 50, 0.25, 12.50, true),
		claude("claude-fable-5", "Claude Fable 5", m, 128*k, 10, 50, 1, 12.50, true),
		claude("claude-opus-5", "Claude Opus 5", m, 128*k, 5, 25, 0.50, 6.25, true),
		claude("claude-sonnet-5", "Claude Sonnet 5", m, 128*k, 2, 10, 0.20, 2.50, true),
		claude("claude-opus-4-6", "Claude Opus 4.6", m, 128*k, 5, 25, 0.50, 6.25, true),
		claude("claude-sonnet-4-6", "Claude Sonnet 4.6", m, 64*k, 3, 15, 0.30, 3.75, true),
		claude("claude-opus-4-5", "Claude Opus 4.5", 200*k, 64*k, 5, 25, 0.50, 6.25, true),
		claude("claude-sonnet-4-5", "Claude Sonnet 4.5", 200*k, 64*k, 3, 15, 0.30, 3.75, true),
		claude("claude-haiku-4-5", "Claude Haiku 4.5", 200*k, 64*k, 1, 5, 0.10, 1.25, true),
	}
}

func gpt(id, name string, window, out int, in, outp, read, write float64, reasoning, images bool) llm.Model {
	api := llm.APIOpenAIChat
	if reasoning {
		api = llm.APIOpenAIResponses
	}
	input := []llm.InputKind{llm.InputText}
	if images {
		input = append(input, llm.InputImage)
	}
	return llm.Model{ID: id, Name: name, Provider: OpenAI, API: api,
		ContextWindow: window, MaxOutput: out, Reasoning: reasoning,
		Price: llm.Price{Input: in, Output: outp, CacheRead: read, CacheWrite: write}, Input: input}
}

func openAIModels() []llm.Model {
	const k = 1_000
	const big = 1_050_000
	return []llm.Model{
		gpt("gpt-6.2-sol", "GPT-6.2 Sol", big, 128*k, 2, 10, 0.10, 2.50, true, true),
		gpt("gpt-6-astra", "GPT-6 Astra", big, 128*k, 10, 50, 1, 12.50, true, true),
		gpt("gpt-6-luna", "GPT-6 Luna", big, 128*k, 0.10, 0.50, 0.01, 0.125, true, true),
		gpt("gpt-6.1-sol", "GPT-6.1 Sol", big, 128*k, 2, 10, 0.10, 2.50, true, true),
		gpt("gpt-6-sol", "GPT-6 Sol", big, 128*k, 2, 10, 0.20, 2.50, true, true),
		gpt("gpt-5.5", "GPT-5.5", big, 128*k, 5, 30, 0.50, 0, true, true),
		gpt("gpt-5.4", "GPT-5.4", big, 128*k, 2.50, 15, 0.25, 0, true, true),
		gpt("gpt-5.2", "GPT-5.2", 400*k, 128*k, 1.75, 14, 0.175, 0, true, true),
		gpt("gpt-5.1", "GPT-5.1", 400*k, 128*k, 1.25, 10, 0.125, 0, true, true),
		gpt("gpt-5", "GPT-5", 400*k, 128*k, 1.25, 10, 0.125, 0, true, true),
		gpt("gpt-5-mini", "GPT-5 mini", 400*k, 128*k, 0.25, 2, 0.025, 0, true, true),
		gpt("gpt-5-nano", "GPT-5 nano", 400*k, 128*k, 0.05, 0.40, 0.005, 0, true, true),
		gpt("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, 2, 8, 0.50, 0, false, true),
		gpt("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, 0.40, 1.60, 0.10, 0, false, true),
		gpt("gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, 0.10, 0.40, 0.025, 0, false, true),
		gpt("gpt-4o", "GPT-4o", 128*k, 16_384, 2.50, 10, 1.25, 0, false, true),
		gpt("gpt-4o-mini", "GPT-4o mini", 128*k, 16_384, 0.15, 0.60, 0.075, 0, false, true),
		gpt("o3", "o3", 200*k, 100*k, 2, 8, 0.50, 0, true, true),
		gpt("o4-mini", "o4-mini", 200*k, 100*k, 1.10, 4.40, 0.275, 0, true, true),
		gpt("o3-mini", "o3-mini", 200*k, 100*k, 1.10, 4.40, 0.55, 0, true, false),
		gpt("o1", "o1", 200*k, 100*k, 15, 60, 7.50, 0, true, true),
	}
}

func gem(id, name string, in, outp, read float64) llm.Model {
	return llm.Model{ID: id, Name: name, Provider: Gemini, API: llm.APIGemini,
		ContextWindow: 1_048_576, MaxOutput: 65_536, Reasoning: true,
		Price: llm.Price{Input: in, Output: outp, CacheRead: read},
		Input: append([]llm.InputKind(nil), textImage...)}
}

func geminiModels() []llm.Model {
	return []llm.Model{
		gem("gemini-3.8-flash", "Gemini 3.8 Flash", 1.50, 7.50, 0.15),
		gem("gemini-3.1-pro-preview", "Gemini 3.1 Pro (preview)", 2, 12, 0.20),
		gem("gemini-3.6-flash", "Gemini 3.6 Flash", 1.50, 7.50, 0.15),
		gem("gemini-3.5-flash-lite", "Gemini 3.5 Flash-Lite", 0.30, 2.50, 0.03),
		gem("gemini-3-flash-preview", "Gemini 3 Flash (preview)", 0.50, 3, 0.05),
		gem("gemini-2.5-pro", "Gemini 2.5 Pro", 1.25, 10, 0.125),
		gem("gemini-2.5-flash", "Gemini 2.5 Flash", 0.30, 2.50, 0.03),
		gem("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 0.10, 0.40, 0.01),
	}
}

// builtinAliases maps short names to model references.
func builtinAliases() map[string]string {
	return map[string]string{
		"fable":      "anthropic/claude-fable-5-2",
		"opus":       "anthropic/claude-opus-5-5",
		"sonnet":     "anthropic/claude-sonnet-5-5",
		"haiku":      "anthropic/claude-haiku-5-5",
		"claude":     "anthropic/claude-sonnet-5-5",
		"gpt":        "openai/gpt-6.2-sol",
		"sol":        "openai/gpt-6.2-sol",
		"astra":      "openai/gpt-6-astra",
		"luna":       "openai/gpt-6-luna",
		"gemini-pro": "gemini/gemini-3.1-pro-preview",
		"flash":      "gemini/gemini-3.8-flash",
		"flash-lite": "gemini/gemini-3.5-flash-lite",
	}
}
