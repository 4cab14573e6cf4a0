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
//
// # The tool chain
//
// Every tool call passes through one chain, built by the harness from the
// options Open fills in (see harness.Options.Middleware). Outermost first:
//
//  1. the permission gate, with the command PreToolUse hooks inside it: a
//     call the user or a rule refuses never reaches anything below, and
//     each decision is logged before the call it decided;
//  2. the typed hooks (tool_call, tool_result), which now include the
//     command PostToolUse hooks as a tool-result hook, so hooks occupy one
//     position: they see the call as approved and the result as the model
//     will see it;
//  3. the guard, which stops wasted calls (repeats, re-reads, loops)
//     before they run and records what they returned;
//  4. the prompt's just-in-time context (context files of folders the
//     model reads from), added to results that passed the guard;
//  5. the enforcer (sensors and the commit gate), which checks what a
//     call changed;
//  6. the output limit, which cuts long output and saves it whole, after
//     everything above has added its notes;
//  7. the timeout, closest to the tool, so that it bounds the tool alone.
//
// Permission comes first because nothing, not even a hook, may act on a
// call the user has not allowed; the guard comes after the hooks so that
// a hook's rewrite of the arguments is what the guard judges; the limit
// comes after everything that adds text so the model never gets more than
// the limit.
//
// # Imports
//
// coding imports the harness and everything below it (agent, tool,
// guard, session, compact, prompt, hook, permission, mcp, sandbox,
// redact, injection, llm and its providers); it imports no front-end and
// nothing imports it but front-ends (cmd/rein) and embedders.
package coding
