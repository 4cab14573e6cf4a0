// Package llm is rein's neutral vocabulary for talking to language models:
// messages and content blocks, tool specifications, requests, streaming
// events, usage and cost, model descriptions, classified errors and the
// Provider interface every wire protocol implements.
//
// It imports nothing else from rein. Wire clients (llm/anthropic,
// llm/openai, llm/gemini) translate their protocol into these types;
// the agent loop and everything above it speak only these types.
package llm
