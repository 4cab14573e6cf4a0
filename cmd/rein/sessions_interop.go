package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/interop"
	"github.com/spf13/cobra"
)

func newSessionsImportCmd(e *env) *cobra.Command {
	var dir, from string
	var latest bool
	cmd := &cobra.Command{
		Use:   "import [FILE|DIR]",
		Short: "Import a session of pi, Claude Code, codex or opencode (or a rein bundle) as a new rein session",
		Long: `Read another harness's session and write it as a new rein session of this
workspace, recording where it came from. The format is detected from the
content unless --from names it. --latest takes the newest session that pi,
Claude Code or codex keeps for this directory; a DIR imports every session file
in it. The source is only read. A report says what was imported and what was
left out and why (see docs/sessions-interop.md).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := interop.ParseFormat(from)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			root, err := workspaceDir(dir)
			if err != nil {
				return err
			}
			var paths []string
			switch {
			case latest && len(args) == 0:
				found, err := coding.LatestForeign(e.getenv, dir, f)
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				paths, f = []string{found.Path}, found.Format
			case len(args) == 1:
				paths, err = interop.SessionFiles(args[0])
				if err != nil {
					return &exitError{code: 2, err: err}
				}
			default:
				return &exitError{code: 2, err: errors.New("name a FILE or DIR to import, or give --latest")}
			}
			failed := 0
			for _, p := range paths {
				im, err := coding.ImportFile(p, f, root, redactor())
				if _, err := printImported(e.stdout, im, err); err != nil {
					fmt.Fprintf(e.stderr, "rein: %v\n", err)
					failed++
				}
			}
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be imported", failed, len(paths))}
			}
			return nil
		},
	}
	workdirFlag(cmd, &dir)
	cmd.Flags().StringVar(&from, "from", "auto", "format of the source: auto, claude, codex, pi, opencode or rein")
	cmd.Flags().BoolVar(&latest, "latest", false, "import the newest session pi, Claude Code or codex keeps for this directory")
	return cmd
}

// printImported prints the report of an import and returns the new
// session's file, or the import's error after what it wrote.
func printImported(w io.Writer, im *coding.Imported, err error) (string, error) {
	if im == nil {
		return "", err
	}
	for _, l := range im.Lines() {
		fmt.Fprintln(w, l)
	}
	if err != nil {
		return "", err
	}
	return im.Path, nil
}

func newSessionsExportCmd(e *env) *cobra.Command {
	var dir, format, out, version, provider string
	var install, noRedact bool
	cmd := &cobra.Command{
		Use:   "export SESSION --format pi|claude|codex|opencode|md|html|json",
		Short: "Write a session for another harness, as a transcript, or as a bundle",
		Long: `Write the session in another harness's format (pi, claude, codex, opencode),
as a Markdown or HTML transcript for people (md, html: tool calls fold, usage
table, secrets redacted unless --no-redact), or as a rein bundle (json: the
session and the sessions forked from it). Standard output unless -o names a
file; --install writes it where pi, Claude Code or codex look for sessions of
the session's workspace. A report on standard error says what the format
could not hold (see docs/sessions-interop.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := interop.ParseExportFormat(format)
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("--format: %w", err)}
			}
			path, err := coding.FindSession(dir, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			o := coding.ExportOptions{Format: f, Output: out, Install: install, Version: version, Provider: provider, Getenv: e.getenv}
			if !noRedact {
				o.Redact = redactor().String
			}
			x, err := coding.ExportSession(e.stdout, path, o)
			var place *coding.InstallError
			if errors.As(err, &place) {
				return &exitError{code: 2, err: err}
			} else if err != nil {
				return &exitError{code: 1, err: err}
			}
			for _, l := range x.Lines() {
				fmt.Fprintln(e.stderr, l)
			}
			return nil
		},
	}
	workdirFlag(cmd, &dir)
	cmd.Flags().StringVarP(&format, "format", "f", "", "pi, claude, codex, opencode, md, html or json")
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write (default: standard output)")
	cmd.Flags().BoolVar(&install, "install", false, "write it where pi, Claude Code or codex looks for this workspace's sessions")
	cmd.Flags().BoolVar(&noRedact, "no-redact", false, "do not redact secrets in md and html transcripts")
	cmd.Flags().StringVar(&provider, "codex-provider", "", "the model provider id a codex rollout names; codex resumes only with it (default openai)")
	cmd.Flags().StringVar(&version, "program-version", "", "the program version to record where the format has one (Claude Code's version, codex's cli_version)")
	return cmd
}

// importForeignFor imports another harness's session named by --resume
// into the workspace of o.
func importForeignFor(e *env, o *runOptions, path string) (string, error) {
	im, err := coding.ImportForeign(o.workdir, path, redactor(), func(msg string) { fmt.Fprintln(e.stderr, "rein:", msg) })
	return printImported(e.stderr, im, err)
}
