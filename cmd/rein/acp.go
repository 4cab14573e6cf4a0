package main

import (
	"io"
	"log/slog"
	"time"

	"github.com/reinhq/rein/acp"
	"github.com/reinhq/rein/agent"
	"github.com/spf13/cobra"
)

func newACPCmd(e *env) *cobra.Command {
	o := &runOptions{frontend: "acp"}
	var askTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "acp [flags]",
		Short: "Serve editors over the Agent Client Protocol on stdin and stdout",
		Long: `Speak the Agent Client Protocol (JSON-RPC over stdio) to an editor such as
Zed, a JetBrains IDE or Neovim, or to acpx. One process serves many sessions;
each opens in the directory the editor names, with the workspace's config,
rules, hooks, skills and session log, as rein run does. Tool calls that need
approval are asked through the editor; an unanswered or cancelled request
is a deny. When the editor offers fs/*, read, write and edit use its buffers.
Standard output carries only protocol messages; notes go to standard error.
See docs/acp.md.`,
		Example: `  rein acp                                   # as an editor's agent command
  rein acp --model sonnet --permission-mode auto_edit
  rein acp --model faux --script replies.jsonl # scripted, for tests`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.resolveTextFlags(); err != nil {
				return &exitError{code: 2, err: err}
			}
			co, err := o.options(e, "", false)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			co.ConfirmTrust = nil
			// The protocol library logs each closed connection at
			// info level; standard error keeps its warnings only.
			slog.SetDefault(slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
			out := e.stdout
			if e.screen != nil {
				// Protocol messages must leave at once: the redacting
				// writer holds back unfinished words. Tool output and
				// logs are redacted by the agent itself.
				out = e.screen
			}
			return acp.Serve(cmd.Context(), acp.Options{Agent: co, PermissionTimeout: askTimeout, Version: versionString()}, stdinOf(e), out)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.model, "model", "m", "", "model: provider/model, an alias, or faux with --script (default: the config's)")
	f.StringVar(&o.script, "script", "", "JSONL file of scripted replies for --model faux")
	f.StringVar(&o.baseURL, "base-url", "", "send model requests to this server instead of the provider's")
	f.StringVar(&o.thinking, "thinking", "", "reasoning effort: off, minimal, low, medium, high, xhigh (default: the model's own)")
	f.StringVar(&o.tools, "tools", "coding", "tools to offer: tool or toolset names, comma-separated; -name removes one")
	f.StringVar(&o.permissionMode, "permission-mode", "", "what runs without asking: ask, auto_read, auto_edit, auto_all or plan (default: the settings' defaultMode, else auto_read)")
	f.IntVar(&o.maxTurns, "max-turns", agent.DefaultMaxTurns, "stop a prompt after this many turns (0 = no cap)")
	f.StringSliceVar(&o.disableMCP, "disable-mcp", nil, "configured MCP servers not to start (all: none of them)")
	f.DurationVar(&askTimeout, "permission-timeout", 5*time.Minute, "deny a tool call when the editor has not answered its permission request within this long")
	addPeerFlags(cmd, o)
	return cmd
}

// stdinOf is the command's standard input.
func stdinOf(e *env) io.Reader { return e.stdin }
