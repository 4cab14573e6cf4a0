package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/tool"
	"github.com/spf13/cobra"
)

func newSkillsCmd(e *env) *cobra.Command {
	return listCmd(e, "skills", "List the skills found for the workspace, and why any were skipped",
		`List the skills (folders with a SKILL.md) rein finds for the workspace, in the
order it looks: .rein/skills, .agents/skills and .claude/skills in the workspace
and each parent up to the repository root, ~/.config/rein/skills, then the
folders in the config's "skills" list. The system prompt carries only an index;
the model loads a skill with the skill tool when it needs it.`,
		"skill", func(tw io.Writer, f *prompt.Found) int {
			for _, s := range f.Skills {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Shown, s.Description)
			}
			return len(f.Skills)
		})
}

func newPromptsCmd(e *env) *cobra.Command {
	return listCmd(e, "prompts", "List the prompt templates you can call as /name args",
		`List the prompt templates: Markdown files in .rein/prompts/ of the workspace and
its parents up to the repository root, then ~/.config/rein/prompts/. Call one in
rein chat, or as rein run "/name args"; $1, $2 … and $@ in the file are replaced
by the arguments.`,
		"template", func(tw io.Writer, f *prompt.Found) int {
			for _, t := range f.Templates {
				fmt.Fprintf(tw, "/%s %s\t%s\t%s\n", t.Name, t.ArgumentHint, t.Description, t.Shown)
			}
			return len(f.Templates)
		})
}

// listCmd is a command that lists what discovery found of one kind, then
// the notes of that kind.
func listCmd(e *env, use, short, long, kind string, list func(io.Writer, *prompt.Found) int) *cobra.Command {
	var workdir string
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := coding.Discover(coding.Options{Workdir: workdir, Getenv: e.getenv, Warn: e.warn}, false)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			if list(tw, f) == 0 {
				fmt.Fprintf(e.stdout, "No %ss found (rein %s --help says where rein looks).\n", kind, use)
			}
			tw.Flush()
			printNotes(e, "skipped or shadowed", f.NotesOf(kind))
			return nil
		},
	}
	cmd.Flags().StringVarP(&workdir, "workdir", "C", "", "workspace directory (default: the current directory)")
	return cmd
}

func printNotes(e *env, title string, notes []prompt.Note) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "\n%s:\n", title)
	for _, n := range notes {
		fmt.Fprintf(e.stdout, "  %s\n", n)
	}
}

func newPromptCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Show the system prompt and tool schemas rein sends",
	}
	cmd.AddCommand(newPromptShowCmd(e))
	return cmd
}

func newPromptShowCmd(e *env) *cobra.Command {
	o := &runOptions{}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [flags] [PROMPT]",
		Short: "Print the system prompt by tier, the tool schemas, and their size",
		Long: `Print what every request of a run starts with: the system prompt (stable and
session tiers above the cache boundary, the volatile tier below it), the tool
schemas, and their size in bytes and estimated tokens (bytes/4). Context files,
skills and the bootstrap file are read as rein run reads them.

With --model, also print the exact body of the first request rein run would send
to that model's API for PROMPT (nothing is sent).`,
		Example: `  rein prompt show
  rein prompt show --tools readonly --json
  rein prompt show --model sonnet "fix the failing test"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			co := coding.Options{Workdir: o.workdir, Tools: o.tools, Getenv: e.getenv, Warn: e.warn, Redactor: redactor()}
			sys, reg, err := coding.Inspect(cmd.Context(), co)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := showRequest(e, sys, reg, asJSON); err != nil || o.model == "" {
				return err
			}
			text := "…"
			if len(args) == 1 {
				text = args[0]
			}
			body, err := wireRequest(cmd.Context(), e, o, text)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(e.stdout, "\n──── first request to %s (%d bytes, about %d tokens) ────\n%s\n", o.model, len(body), prompt.EstimateTokens(len(body)), body)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.workdir, "workdir", "C", "", "workspace directory (default: the current directory)")
	fl.StringVar(&o.tools, "tools", "coding", "tools to offer, as for rein run")
	fl.StringVarP(&o.model, "model", "m", "", "also print the exact first request to this model's API (nothing is sent)")
	fl.StringVar(&o.baseURL, "base-url", "", "as for rein run")
	fl.BoolVar(&asJSON, "json", false, "print one JSON object: system parts, tool specs, sizes")
	return cmd
}

// wireRequest returns the body of the first request a run would send
// for text; nothing is sent.
func wireRequest(ctx context.Context, e *env, o *runOptions, text string) ([]byte, error) {
	co, err := o.options(e, "", true)
	co.NoRunRecords = true
	if err != nil {
		return nil, err
	}
	return coding.FirstRequest(ctx, co, text)
}

// showRequest prints a first request's system prompt, tools and size.
func showRequest(e *env, sys []llm.SystemPart, reg *tool.Registry, asJSON bool) error {
	s := prompt.Show(sys, reg.Specs())
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return s.WriteText(e.stdout)
}
