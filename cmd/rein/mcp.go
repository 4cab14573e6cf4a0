package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/catalog"
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
			cfg, err := coding.MCPConfig(coding.Options{Getenv: e.getenv, Warn: e.warn}, dir, nil)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			m := mcp.New(cfg, mcp.Options{Workdir: dir, Getenv: e.getenv, Version: version, StartTimeout: timeout,
				BaseEnv: coding.ChildEnv(coding.Options{Getenv: e.getenv}, dir)})
			m.Start(cmd.Context())
			m.WaitStarted(cmd.Context())
			defer m.Close()
			sts := m.Status()
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(sts)
			}
			if len(sts) == 0 {
				user := ""
				if p := catalog.UserConfigPath(e.getenv); p != "" {
					user = filepath.Dir(p)
				}
				looked := mcp.Paths(user, dir)
				if home := e.getenv("HOME"); home != "" {
					looked = append(looked, filepath.Join(home, ".claude.json"))
				}
				fmt.Fprintln(e.stdout, "no MCP servers configured (looked in: "+strings.Join(looked, ", ")+")")
				return nil
			}
			for _, st := range sts {
				fmt.Fprintf(e.stdout, "%s  %s  %s  %s\n", st.Name, st.State, st.Transport, st.Target)
				if st.Server != "" {
					fmt.Fprintf(e.stdout, "  server: %s\n", st.Server)
				}
				if st.Error != "" {
					fmt.Fprintf(e.stdout, "  error: %s\n", st.Error)
				}
				if st.Log != "" && st.State != mcp.StateDisabled {
					fmt.Fprintf(e.stdout, "  log: %s\n", relPath(dir, st.Log))
				}
				for _, t := range st.Tools {
					fmt.Fprintf(e.stdout, "  tool: %s\n", t)
				}
				for _, s := range st.Skipped {
					fmt.Fprintf(e.stdout, "  skipped: %s\n", s)
				}
			}
			return nil
		},
	}
	list.Flags().StringVarP(&workdir, "workdir", "C", "", "workspace whose .mcp.json and .rein/config.json are read (default: the current directory)")
	list.Flags().BoolVar(&asJSON, "json", false, "print the states as JSON")
	list.Flags().DurationVar(&timeout, "timeout", mcp.DefaultStartTimeout, "how long each server has to start")
	cmd.AddCommand(list)
	return cmd
}
