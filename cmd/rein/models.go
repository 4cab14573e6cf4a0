package main

import (
	"fmt"
	"strings"

	"github.com/reinhq/rein/coding"
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
			models, provider := cat.Models(), ""
			if len(args) == 1 {
				provider = args[0]
				var known bool
				if models, known = cat.ModelsOf(provider); len(models) == 0 {
					if known {
						fmt.Fprintf(e.stdout, "The catalog lists no model of %s; use any of its models as --model %s/<id>.\n", provider, provider)
						return nil
					}
					return &exitError{code: 2, err: fmt.Errorf("unknown provider %q; the providers are %s", provider, strings.Join(cat.Providers(), ", "))}
				}
			}
			if err := catalog.WriteTable(e.stdout, models); err != nil {
				return err
			}
			return catalog.WriteAliases(e.stdout, cat.Aliases(), provider)
		},
	}
	cmd.Flags().StringVarP(&workdir, "workdir", "C", "", "workspace whose .rein/config.json to read (default: the current directory)")
	return cmd
}
