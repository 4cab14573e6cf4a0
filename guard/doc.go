// Package guard stops wasted tool calls before they run. Its rules are
// tool middleware, on by default, evaluated in a fixed order on every
// call, each with a stable id:
//
//  1. passthrough: tools exempt from every rule (ask_user by default).
//  2. error_retry: a call that failed twice in a row with the same
//     arguments is not run a third time.
//  3. read_cache: a re-read of the same view of an unchanged file within
//     six turns is answered from the cache.
//  4. cascade: more than eight consecutive calls of one tool (bash: of
//     one command) in a turn are blocked.
//  5. mismatch: bash that only views (cat, grep, find -name, ls …) is
//     redirected to the dedicated tool, decided on a parse of the command.
//  6. loop.generic_repeat, loop.unknown_tool, loop.poll_no_progress,
//     loop.ping_pong and loop.circuit_breaker: loop detectors over the
//     last 30 calls; the circuit breaker ends the run.
//
// A decision is Allow, Warn (the call runs and the model sees the warning
// before its result), Cached, Block (the call does not run; the model is
// told why and what to do instead) or Stop (the run ends). Allowed calls
// add nothing to the conversation.
//
// The same engine serves the live middleware and offline replay of
// recorded sessions (package guard/replay): a Guard decides a call with
// Decide before it runs and learns its outcome with Record after.
// Configuration comes from .rein/harness-config.json (or pi's
// .pi/harness-config.json) merged over DefaultConfig; see docs/guards.md.
package guard
