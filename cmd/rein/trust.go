package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/reinhq/rein/coding"
	"github.com/spf13/cobra"
)

func newTrustCmd(e *env) *cobra.Command {
	var revoke, list bool
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a workspace to run its own hooks, sensors and allow rules",
		Long: `A workspace's settings files (.claude/settings*.json, .rein/settings*.json) can
declare hooks and checks that run commands on your machine, and allow rules that
let the agent act without asking. rein applies them only in workspaces you
trust, so a cloned repository cannot run commands just by being opened. Deny
and ask rules apply everywhere.

rein trust            trust the current directory (or DIR)
rein trust --revoke   stop trusting it
rein trust --list     list the trusted workspaces`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t := coding.TrustStore(e.getenv)
			if t.Path == "" {
				return &exitError{code: 2, err: errors.New("no user config directory: set HOME or XDG_CONFIG_HOME")}
			}
			if list {
				ws, err := t.List()
				if err != nil {
					return err
				}
				for _, w := range ws {
					fmt.Fprintln(e.stdout, w)
				}
				return nil
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			if revoke {
				ok, err := t.Remove(abs)
				if err != nil {
					return err
				}
				if !ok {
					fmt.Fprintln(e.stdout, abs+" was not trusted")
					return nil
				}
				fmt.Fprintln(e.stdout, "no longer trusted: "+abs)
				return nil
			}
			if err := t.Add(abs); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, "trusted: "+abs)
			if what := coding.UntrustedFeatures(abs); what != "" {
				fmt.Fprintln(e.stdout, "its settings "+what+"; they apply from the next run")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "stop trusting the workspace")
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted workspaces")
	return cmd
}
