package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "MCP servers: list them with their state and tools",
		Long: `rein offers the tools of MCP servers to the model as mcp__<server>__<tool>.
Servers are read from ~/.config/rein/mcp.json, ~/.config/rein/config.json,
.mcp.json in the workspace and .rein/config.json (later files win), from their
"mcpServers" block. See docs/mcp.md.`,
	}
	var workdir string
	var asJSON bool
	var timeout time.Duration
	list := &cobra.Command{
		Use:   "list",
		Short: "Start each configured MCP server and show its state, its tools and why one failed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := workdir
			if dir == "" {
				dir, _ = os.Getwd()
			}
			dir, _ = filepath.Abs(dir)
			sts, looked, err := coding.MCPServers(cmd.Context(), coding.Options{Getenv: e.getenv, Warn: e.warn, Version: version}, dir, timeout)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(sts)
			}
			if len(sts) == 0 {
				fmt.Fprintln(e.stdout, "no MCP servers configured (looked in: "+strings.Join(looked, ", ")+")")
				return nil
			}
			mcp.WriteStatus(e.stdout, sts, dir)
			return nil
		},
	}
	list.Flags().StringVarP(&workdir, "workdir", "C", "", "workspace whose .mcp.json and .rein/config.json are read (default: the current directory)")
	list.Flags().BoolVar(&asJSON, "json", false, "print the states as JSON")
	list.Flags().DurationVar(&timeout, "timeout", mcp.DefaultStartTimeout, "how long each server has to start")
	cmd.AddCommand(list)
	return cmd
}
