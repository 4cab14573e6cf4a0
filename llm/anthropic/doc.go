// Package anthropic is rein's client for the Anthropic Messages API
// (POST /v1/messages with "stream": true) and for servers that speak it.
// A *Client is an llm.Provider: Stream sends one request and yields the
// reply as llm events, ending with exactly one done or error event.
//
// # Options
//
//   - BaseURL: the server, with or without a trailing /v1 (default
//     https://api.anthropic.com). A request's Model.BaseURL wins.
//   - HTTPClient: sends the requests (default http.DefaultClient).
//   - APIKey: called on every request, so expiring keys can be refreshed;
//     sent as x-api-key. A request's Options.APIKey wins. With no key no
//     x-api-key header is sent, for local servers that need none.
//   - Headers: added to every request, then Model.Headers, then the
//     request's Options.Headers; later ones win, defaults included
//     (content-type, accept: text/event-stream, anthropic-version
//     2023-06-01), so anthropic-beta and the like can be set there.
//   - IdleTimeout: a reply that sends no bytes for this long, headers
//     included, fails with code timeout (default 60s; pings do not count as data; negative disables).
//
// # Requests
//
// The system prompt becomes at most two text blocks: the parts before the
// first Volatile one, joined with blank lines, and the rest. Messages go
// through llm.Sendable; tool results become tool_result blocks (text,
// images, is_error), and consecutive tool results and user messages are
// merged into one user message. Tool-call ids are made to match
// ^[a-zA-Z0-9_-]{1,64}$ the same way on a call and on its result, and
// arguments that are not a JSON object are sent as {}. Tools are sent as
// name, description and input_schema.
//
// max_tokens is Request.MaxTokens, else Model.MaxOutput, else
// DefaultMaxTokens. A thinking level turns on thinking for models marked
// Reasoning only. Claude 4.6 and later (see Adaptive) get adaptive
// thinking, {"type":"adaptive"} with output_config.effort low (minimal,
// low), medium, high or max (xhigh); level off sends no thinking field and
// leaves the model's default. Older models get extended thinking with
// these budget_tokens:
//
//	minimal 1024   low 2048   medium 8192   high 16384   xhigh 32768
//
// When a budget leaves less than 1024 tokens of max_tokens for the answer,
// max_tokens is raised by the budget (up to Model.MaxOutput); a budget that
// still does not fit is lowered, and thinking stays off below the API's
// minimum of 1024. Temperature is omitted while thinking.
// Options.Metadata["user_id"] becomes metadata.user_id. Options.Extra is
// merged over the top-level fields (a JSON null deletes one), and then
// Options.OnPayload sees the final body.
//
// # Prompt caching
//
// Three of the four cache breakpoints the API allows are used: the end of
// the stable system prompt, and the last block of each of the two latest
// user messages (a tool-result message counts as one). The second marks
// where the previous request wrote its cache, which the API would
// otherwise look for only within 20 blocks of the newest breakpoint, so
// long tool batches keep hitting the cache.
//
// # Replies
//
// Text, thinking (signature_delta sets Content.Signature) and tool calls
// (input_json_delta, finished with llm.FinishArguments: no input gives {},
// invalid JSON is kept as a JSON string) map to llm content blocks.
// redacted_thinking becomes a thinking block with Redacted set and the
// opaque data in Signature. All of them are sent back unchanged on later
// turns when the message came from this API. Usage is taken from
// message_start and overwritten by the cumulative counts of
// message_delta (input_tokens, output_tokens, cache_read_input_tokens,
// cache_creation_input_tokens), never added twice. Stop reasons map as
// end_turn and stop_sequence → stop, max_tokens and
// model_context_window_exceeded → length, tool_use → tool_use;
// pause_turn and reasons added later end the turn as stop, and refusal
// ends it as an error (code unknown) so that the refused reply is not
// sent back.
//
// # Pass-through
//
// Nothing the API sends is dropped:
//
//   - Fields of text, thinking and tool_use blocks that rein does not
//     model (citations on text, caller on tool_use) are kept in
//     Content.Extra as a JSON object and merged back into the block.
//   - Blocks of other types (server_tool_use, web_search_tool_result, …)
//     are kept in Message.Extra as {"blocks":[{"at":i,"block":{…}}]}, where
//     at is the block's position among all the message's blocks; streamed
//     input_json_delta, text_delta and citations_delta fill in their input,
//     text and citations. They are sent back verbatim, at their position.
//   - Events of unknown types are kept in Message.Extra "events", for
//     inspection only. Unknown delta types carry nothing rein can place
//     and are skipped.
//   - stop_reason (when not end_turn, tool_use or max_tokens) and the
//     matched stop_sequence are recorded in Message.Extra.
//
// Extra data is sent back only for assistant messages whose API is
// llm.APIAnthropicMessages. An assistant message holding nothing but
// pass-through blocks has no content and is left out by llm.Sendable.
//
// # Failures
//
// Every failure ends the stream with a final error event carrying an
// *llm.Error and the partial message: replies with an error status are
// classified by wire.Do (Retry-After honoured); error events inside the
// stream by their error.type (overloaded_error → overloaded,
// rate_limit_error → rate_limit, api_error → server_error,
// authentication_error and permission_error → auth, billing_error →
// billing, not_found_error → model_not_found, request_too_large and
// "prompt is too long" → context_overflow, timeout_error → timeout,
// invalid_request_error → format); malformed JSON, protocol violations
// and a JSON reply where a stream was expected → format; a stream that ends before message_stop →
// server_error; a stall → timeout; a cancelled context → aborted. The API
// key is removed from every message.
package anthropic
