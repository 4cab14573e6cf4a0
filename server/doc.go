// Package server is rein's HTTP+SSE API: web and mobile front-ends, and
// several clients at once, run, watch, approve, cancel and resume sessions
// of the coding agent (package coding) through it.
//
// One open session is one *coding.Agent. A prompt is accepted at once
// (202 with its run id, whether it waits and where) and runs under the
// server, never under the request: a client that goes away stops nothing.
// Every event of a session gets the next number of the session's
// sequence and is kept (streaming deltas in a bounded ring, the rest for
// the session's life), so an event stream resumed with Last-Event-ID
// carries on exactly where it stopped. Events are rein's one event
// schema, the objects of `rein run --output-format rein-stream-json`
// (coding.EventEncoder).
//
// The server listens on loopback unless given a token; a request with
// an Origin header is refused unless that origin is allowed; bodies,
// queues, sessions and streams are bounded, and a full bound answers 503
// with Retry-After. docs/server.md describes the routes and openapi.json
// (served at /openapi.json) their shapes.
package server
