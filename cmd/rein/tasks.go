package main

import (
	"encoding/json"
	"fmt"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/work"
	"github.com/spf13/cobra"
)

func newTasksCmd(e *env) *cobra.Command {
	var dir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tasks [SESSION]",
		Short: "Print the work items of a session; the last one by default",
		Long: `Print the work items of a session: the plan the model keeps with the
work-item tools (work_item_add, work_item_update, TodoWrite), as the session
log last recorded it. SESSION is an id, an id prefix, a file, or "last".
With --json, the list is printed as one JSON array.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := "last"
			if len(args) == 1 {
				ref = args[0]
			}
			path, err := coding.FindSession(dir, ref)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			list, err := coding.WorkItemsOf(path)
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = work.List{}
				}
				return json.NewEncoder(e.stdout).Encode(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(e.stdout, "no work items")
				return nil
			}
			fmt.Fprint(e.stdout, list.Summary()+"\n"+list.Render())
			return nil
		},
	}
	workdirFlag(cmd, &dir)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return cmd
}
