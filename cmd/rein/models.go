package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/catalog"
	"github.com/spf13/cobra"
)

func newModelsCmd(e *env) *cobra.Command {
	var workdir string
	cmd := &cobra.Command{
		Use:   "models [PROVIDER]",
		Short: "List the models rein knows: built in and from the config files",
		Long: `List every model rein knows, built in or declared in a config file
(~/.config/rein/config.json and .rein/config.json), with its context window,
maximum output, prices in US dollars per million tokens, and whether it reasons
and takes images. Give a provider name to list only its models. The aliases accepted by --model
(built in and from the config files) follow the table.

A model missing from the list can still be used as --model provider/<id>; rein
then assumes conservative limits and says how to declare the model.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _ := workspaceDir(workdir)
			cat, err := coding.Catalog(coding.Options{Getenv: e.getenv, Warn: e.warn}, dir)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			models := cat.Models()
			if len(args) == 1 {
				var keep []llm.Model
				for _, m := range models {
					if strings.EqualFold(m.Provider, args[0]) {
						keep = append(keep, m)
					}
				}
				models = keep
				if len(models) == 0 {
					if slices.ContainsFunc(cat.Providers(), func(p string) bool { return strings.EqualFold(p, args[0]) }) {
						fmt.Fprintf(e.stdout, "The catalog lists no model of %s; use any of its models as --model %s/<id>.\n", args[0], args[0])
						return nil
					}
					return &exitError{code: 2, err: fmt.Errorf("unknown provider %q; the providers are %s", args[0], strings.Join(cat.Providers(), ", "))}
				}
			}
			if err := catalog.WriteTable(e.stdout, models); err != nil {
				return err
			}
			provider := ""
			if len(args) == 1 {
				provider = args[0]
			}
			writeAliases(e, cat.Aliases(), provider)
			return nil
		},
	}
	cmd.Flags().StringVarP(&workdir, "workdir", "C", "", "workspace whose .rein/config.json to read (default: the current directory)")
	return cmd
}

// writeAliases lists the aliases (those of one provider when provider is
// set), sorted by name.
func writeAliases(e *env, aliases map[string]string, provider string) {
	names := make([]string, 0, len(aliases))
	for name, ref := range aliases {
		if provider == "" || strings.HasPrefix(strings.ToLower(ref), strings.ToLower(provider)+"/") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	slices.Sort(names)
	fmt.Fprintln(e.stdout, "\nAliases (--model NAME):")
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, n := range names {
		fmt.Fprintf(tw, "  %s\t%s\n", n, aliases[n])
	}
	tw.Flush()
}
