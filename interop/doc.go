// Package interop moves sessions between rein and other coding agents:
// it reads pi session files (v3), Claude Code session files, codex
// rollouts and opencode exports into rein session entries, and writes a
// rein session in each of those formats, as a Markdown or HTML transcript,
// or as a JSON bundle.
//
// Importing keeps the shape of the conversation: trees stay trees (pi's
// and Claude Code's parent links), linear recordings become one branch.
// Tool calls that map onto rein's tools (read, write, edit, bash, grep,
// find, ls) stay call/result pairs with their arguments renamed; calls to
// other tools become text in the assistant's message, followed by their
// result, so a model can still read them. Every call ends up with a
// result (a synthetic "not recorded" one when the recording has none),
// consecutive messages of the same role are merged, and opaque
// identifiers (tool call ids, signatures, encrypted reasoning, the
// source's session id) are copied byte for byte. What could not be
// carried over is listed in a Report, with file:line where a line was
// skipped. The source file is only read.
//
// The formats, and what carries over in each, are described in
// docs/sessions-interop.md.
package interop
