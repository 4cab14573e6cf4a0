package main

import (
	"errors"
	"fmt"

	"github.com/reinhq/rein/coding"
	"github.com/spf13/cobra"
)

func newTrustCmd(e *env) *cobra.Command {
	var revoke, list bool
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust what a workspace's own files would do: hooks, MCP servers, provider settings, sandbox loosening",
		Long: `Some of a workspace's files can run commands on your machine, send model
requests and keys elsewhere, or loosen the sandbox: hooks, sensors, the commit
gate, allow rules and a permissive mode in .claude/settings*.json and
.rein/settings*.json; servers in .mcp.json; provider URLs, headers and key
sources in .rein/config.json; and "sandbox": "off", "writable" and
"env_allow" in .rein/security.json. rein ignores all of it until you trust
it, so a cloned repository cannot act just by being opened.

Trust follows content: rein records what each file would do, and when a file
changes it shows what is new and asks again (a run no one can ask stops
before its first request). Your own "allow always" answers never ask.

rein trust            show what the workspace's files would do, and trust it
rein trust --revoke   stop trusting it
rein trust --list     list the trusted workspaces

In CI, run rein trust in the job before rein -p, or set
REIN_TRUST_WORKSPACE=1 for the run.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t := coding.TrustStore(e.getenv)
			if t.Path == "" {
				return &exitError{code: 2, err: errors.New("no user config directory: set HOME or XDG_CONFIG_HOME")}
			}
			if list {
				ents, err := t.List()
				if err != nil {
					return err
				}
				for _, w := range ents {
					fmt.Fprintln(e.stdout, w.Describe())
				}
				return nil
			}
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			ws, err := coding.OpenWorkspace(dir)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if revoke {
				ok, err := t.Revoke(ws.Root)
				if err != nil {
					return err
				}
				if !ok {
					fmt.Fprintln(e.stdout, ws.Root+" was not trusted")
					return nil
				}
				fmt.Fprintln(e.stdout, "no longer trusted: "+ws.Root)
				return nil
			}
			st, err := t.Grant(ws.Root)
			if err != nil {
				return err
			}
			fmt.Fprint(e.stdout, st.Granted())
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "stop trusting the workspace")
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted workspaces")
	return cmd
}
