// Package openai streams replies from OpenAI's two wire protocols and the
// many servers that copy them:
//
//   - Chat, from NewChat, speaks Chat Completions (POST {base}/chat/completions,
//     llm.APIOpenAIChat): OpenAI, and OpenAI-compatible servers such as
//     Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq and DeepSeek.
//   - Responses, from NewResponses, speaks the Responses API
//     (POST {base}/responses, llm.APIOpenAIResponses).
//
// Both implement llm.Provider over llm/internal/sse: one start event, block
// events, and exactly one final done or error event carrying the whole
// message. Failed HTTP replies become classified *llm.Error values (with
// Retry-After); failures inside a stream (an error chunk, response.failed,
// a cut, a malformed chunk, a stall) end the stream with an error message
// that keeps the content received so far. A reply that arrives as one JSON
// document instead of a stream (a server that ignored stream:true, or an
// error envelope sent with status 200) is decoded as well. API keys never
// appear in errors.
//
// # Options
//
//   - BaseURL: the API root, "https://api.openai.com/v1" by default; a
//     request's Model.BaseURL wins.
//   - HTTPClient: nil means http.DefaultClient.
//   - APIKey: called per request; a request's Options.APIKey wins; an empty
//     key sends no Authorization header.
//   - Headers: added to every request, then Model.Headers, then the
//     request's Options.Headers (later ones win).
//   - IdleTimeout: a stream that receives nothing for this long (response
//     headers included) fails with code timeout; 60s by default (keep-alives do not count as data), negative
//     to disable.
//   - Compat: how the server departs from api.openai.com; the zero value
//     picks CompatFor(base URL) per request.
//
// Request options are honoured as follows: Options.SessionID becomes
// prompt_cache_key (unless Compat.NoPromptCacheKey), Options.Metadata
// becomes metadata, Options.Extra is merged over the top-level payload
// (a JSON null deletes a field; use it for tool_choice, service_tier,
// built-in tools and the like), and Options.OnPayload sees the final bytes
// last.
//
// # Compat switches
//
//   - NoDeveloperRole: system prompt with role "system" even for reasoning
//     models (Chat; reasoning models otherwise get "developer").
//   - NoStreamOptions: no stream_options.include_usage (Chat).
//   - MaxTokensField: "max_completion_tokens" (default) or "max_tokens" (Chat).
//   - ReasoningField: the delta field reasoning text streams in; "" detects
//     reasoning_content or reasoning, "-" ignores reasoning (Chat).
//   - ReplayReasoningField: send earlier thinking back in the assistant
//     message's "reasoning_content" or "reasoning" field, for servers that
//     want it (Chat; off by default).
//   - NoReasoningEffort: never send an effort.
//   - ReasoningObject: effort as {"reasoning":{"effort":…}} (Chat; OpenRouter).
//   - NoPromptCacheKey: never send prompt_cache_key.
//   - MaxToolCallIDLength: longest tool-call id accepted (40 by default);
//     longer or unusual ids from other providers are replaced by stable
//     derived ids.
//
// See CompatFor for the table of known hosts.
//
// # Thinking
//
// For models with Reasoning set (and unless NoReasoningEffort), the
// request's thinking level becomes reasoning_effort (Chat) or
// reasoning.effort with summary "auto" (Responses):
//
//	off or empty   no effort sent (the server's default applies)
//	minimal        "minimal" for the first GPT-5 family, "low" elsewhere
//	low, medium, high   the same word
//	xhigh          "xhigh" for GPT-5.2 and later and codex-max models, "high" elsewhere
//
// Models without Reasoning get no effort at all. On Responses, reasoning
// models always ask for include ["reasoning.encrypted_content"] with
// store false.
//
// # What is kept
//
// Chat reasoning text (delta.reasoning_content or delta.reasoning) becomes
// thinking blocks; it is not sent back unless ReplayReasoningField says so.
// Usage: Input is prompt tokens minus cached ones, CacheRead the cached
// ones, Output the completion tokens (reasoning included).
//
// On Responses, a reasoning item becomes a thinking block whose Text is the
// summary (parts separated by a blank line), whose Signature is the
// encrypted content and whose Extra is {"id":"rs_…"}; it is marked
// Redacted when it has encrypted content but no summary. A function call's
// Content.ID is its call_id and its Extra {"id":"fc_…"}; a message's text
// block has Extra {"id":"msg_…"} plus its annotations (citations) when
// there are any. All of these are replayed on the next turn. Output items
// rein does not model (web_search_call and the like) are kept verbatim in
// Message.Extra as {"output_items":[{"output_index":n,"item":{…}}]} and
// are not replayed.
//
// Images in tool results, which both APIs accept only as text, are sent in
// a user message right after the tool results. Images for a model whose
// Input list lacks "image" are replaced by a short note.
package openai
