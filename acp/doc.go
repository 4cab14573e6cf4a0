// Package acp serves rein over the Agent Client Protocol: an editor
// (Zed, a JetBrains IDE, Neovim, acpx…) starts `rein acp` and speaks
// JSON-RPC to it over stdio. One process serves many sessions; each is a
// coding.Agent opened through the front door, so an editor gets the same
// tools, rules, hooks, templates and session log as the terminal.
//
// The mapping, in short (docs/acp.md has the whole of it):
//
//   - session/new opens an agent in the client's cwd, with the client's
//     MCP servers added for that session; session/load continues a
//     logged session and first replays its active branch as updates;
//   - session/prompt is coding.Agent.Submit: message and thought chunks,
//     tool calls with their kind, locations and raw input, tool call
//     updates with text, diffs and exit status, usage updates;
//   - rein's approval requests become session/request_permission; no
//     answer, an error or a cancel is a deny;
//   - permission modes are ACP session modes; the model and the
//     reasoning effort are session config options;
//   - when the client offers fs/read_text_file and fs/write_text_file,
//     the read, write and edit tools go through it (after rein's path
//     checks), so unsaved editor buffers are what the model sees.
package acp
