// Package gemini is rein's client for Google's Gemini API: it streams
// replies from models/{model}:streamGenerateContent?alt=sse and speaks
// rein's neutral llm vocabulary on both sides.
//
// # Options
//
//   - BaseURL: defaults to DefaultBaseURL; Model.BaseURL wins when set.
//   - HTTPClient: nil means http.DefaultClient.
//   - APIKey: resolved for every request; a request's Options.APIKey
//     wins. Sent as the x-goog-api-key header (never in the URL) and
//     removed from every error.
//   - Headers: sent with every request; Model.Headers and the request's
//     Options.Headers are added over them, in that order.
//   - IdleTimeout: a stream that sends nothing for this long fails with a
//     timeout error; zero means 60 seconds (keep-alives do not count as data), negative disables it.
//
// # Thinking
//
// Thinking is configured only for models with Model.Reasoning set. Levels
// turn on includeThoughts (thought summaries stream as thinking blocks);
// the empty level sends no thinkingConfig, leaving the model's default.
//
//	level     Gemini 2.5 (thinkingBudget)    Gemini 3 Pro   Gemini 3 Flash
//	off       0, or the minimum on Pro       "low"          "minimal"
//	minimal   128                            "low"          "minimal"
//	low       2048                           "low"          "low"
//	medium    8192                           "high"         "medium"
//	high      24576                          "high"         "high"
//	xhigh     32768                          "high"         "high"
//
// Budgets are clamped to what the model accepts: 128–32768 for Pro,
// 1–24576 for Flash, 512–24576 for Flash-Lite. Models are told apart by
// name: "gemini-3…" and later take a thinkingLevel, earlier ones a budget.
//
// # Decoding
//
// Every SSE chunk is a whole GenerateContentResponse. Consecutive text
// parts merge into one text block and consecutive thought parts into one
// thinking block. A part's thoughtSignature is kept on the block it rode
// on (Content.Signature), including a signature on an empty text part,
// and on function calls; a part with a second signature, or with fields
// rein does not model, gets a block of its own. Function calls arrive
// whole; calls without an id (Gemini 2.5) get a stable one starting with
// GeneratedIDPrefix, which is not sent back. usageMetadata is cumulative
// and the last one counts: Input is prompt (plus tool-use prompt) minus
// cached tokens, Output is candidate plus thought tokens, CacheRead the
// cached tokens. finishReason STOP ends with stop (tool_use when calls
// were made), MAX_TOKENS with length; blocked or malformed replies end
// with an error naming the reason.
//
// Nothing the server sends is dropped: a part kind rein does not model
// (executableCode, inlineData, …) becomes an empty text block whose Extra
// is the part verbatim, and unknown fields of a part are kept in the
// block's Extra; both are sent back unchanged on the next turn. Unknown
// response, candidate and usage fields (safety ratings, grounding and
// citation metadata, token details, …) end up in Message.Extra, with the
// candidate's under "candidate", its content's under "content" and the
// usage's under "usageMetadata".
//
// # Requests
//
// The conversation goes through llm.Sendable, then: user messages become
// user contents (text and inlineData); assistant messages become model
// contents, with signatures, thought parts and kept fields replayed only
// when they came from this API; tool results become functionResponse
// parts ({"output": text} or {"error": text}), one user content per
// batch. Tool schemas are sent as parametersJsonSchema. For Gemini 3, a
// function call of the current turn that lacks a signature (one made by
// another model) is sent with Gemini's documented placeholder signature.
// Options.Extra is merged over the top-level payload (null deletes a
// field) before Options.OnPayload sees it.
package gemini
