// Package coding is rein's front door: the configured coding agent that
// every front-end (rein run, the line chat, the terminal UI, the demo) and
// every Go program embedding rein opens.
//
// Open reads a workspace the way the rein command does — .rein/ and
// .claude/ settings, context files, skills, prompt templates, MCP servers,
// security, context and guard config — builds the model and the tool
// chain once, and returns an *Agent that owns the harness, the session
// log, the command hooks, the permission gate, the MCP bridge and the
// bash sandbox. A front-end talks to it through a small API:
//
//   - Submit is the one path of a prompt: template expansion, the
//     UserPromptSubmit hooks (a block stops the prompt everywhere), then
//     the run; Steer, FollowUp, Abort, Compact and Close act on it.
//   - Commands is the one slash-command set (model, thinking, tools,
//     mode, compact, label, tree, fork, session, sessions, status and the
//     prompt templates) that every front-end lists and runs.
//   - Subscribe delivers the harness's events, approval requests among
//     them: an approval is answered through the event it arrived in, so a
//     dialog and a line prompt are two consumers of one API.
//   - NewOutput writes a run in the machine-readable formats of
//     `rein run -o` (Claude Code's json and stream-json, rein-json,
//     rein-stream-json); ReadPrompt reads a one-shot prompt from
//     arguments and piped input.
//
// # The tool chain
//
// Every tool call of every front-end passes through one chain, built by
// harness.ToolChain from the parts Open configures. Outermost first:
//
//  1. the permission gate, with the command PreToolUse hooks inside it;
//     each decision is logged after the message holding the call and
//     before the call's result;
//  2. the typed hooks, the command PostToolUse hooks among them (as a
//     tool_result handler), so that hooks occupy one position;
//  3. the guard;
//  4. the prompt's just-in-time context files;
//  5. the enforcer: sensors after edits, the commit gate;
//  6. the output limit;
//  7. the timeout.
//
// harness.ToolChain's doc comment gives the reason for each place.
//
// # Imports
//
// coding imports the harness and everything below it (agent, tool,
// guard, session, compact, prompt, hook, permission, mcp, sandbox,
// redact, injection, llm and its providers); it imports no front-end and
// nothing imports it but front-ends (cmd/rein) and embedders.
package coding
