package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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
				wd, _ := os.Getwd()
				if dir != "" {
					wd, _ = filepath.Abs(dir)
				}
				found, err := interop.HomeEnv(e.getenv).Latest(wd, f)
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
				if _, err := importOne(e.stdout, p, f, root); err != nil {
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

// importOne imports one file into the workspace root and prints what
// was carried over; it returns the new session's file.
func importOne(w io.Writer, path string, f interop.Format, root string) (string, error) {
	im, err := coding.ImportFile(path, f, root, redactor())
	if im == nil {
		return "", err
	}
	if res := im.Bundle; res != nil {
		fmt.Fprintf(w, "restored the bundle %s: %d sessions (ids kept: %s), %d run records added, %d already here\n  %s\n",
			path, len(res.Paths), strings.Join(res.IDs, ", "), res.Runs, res.RunsKnown, res.Report.Summary())
		return im.Path, nil
	}
	c := im.Conversation
	fmt.Fprintf(w, "imported %s (%s %s, id %s) as session %s\n  %s\n", path, c.Source.Format, c.Source.Version, c.Source.ID, shortID(im.ID), c.Report.Summary())
	for _, ch := range im.Children {
		fmt.Fprintf(w, "  sub-agent %s (%s) as session %s: %s\n", ch.Conversation.Source.Path, ch.Conversation.Link.Type, shortID(ch.ID), ch.Conversation.Report.Summary())
	}
	if err != nil {
		return "", err
	}
	return im.Path, nil
}

// importForeign imports the file path when it is another harness's
// session, so that rein -c and --resume can continue it; "" when it is
// not one.
func importForeign(e *env, path, root string) (string, error) {
	f, err := interop.DetectFile(path)
	if err != nil || f == "" || f == interop.Rein {
		return "", err
	}
	fmt.Fprintf(e.stderr, "rein: %s is a %s session; importing it into a new rein session (the file is left as it is)\n", path, f)
	return importOne(e.stderr, path, f, root)
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
			f, err := interop.ParseFormat(format)
			if err != nil || f == "" || f == interop.Rein {
				return &exitError{code: 2, err: fmt.Errorf("--format: give one of pi, claude, codex, opencode, md, html, json")}
			}
			path, err := coding.FindSession(dir, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			o := interop.Options{Version: version, Provider: provider}
			if !noRedact {
				o.Redact = redactor().String
			}
			data, s, rep, err := interop.ExportFile(path, f, o)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if install {
				out, err = interop.HomeEnv(e.getenv).InstallPath(s, f, time.Now())
				if err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			if out == "" || out == "-" {
				w := bufio.NewWriter(e.stdout)
				w.Write(data)
				if err := w.Flush(); err != nil {
					return err
				}
			} else if err := interop.WriteNew(out, data); err != nil {
				return &exitError{code: 1, err: err}
			}
			if out != "" && out != "-" {
				fmt.Fprintf(e.stderr, "wrote %s\n", out)
				if install {
					fmt.Fprintf(e.stderr, "open it with: %s\n", interop.OpenHint(f, s, out))
				}
			}
			fmt.Fprintf(e.stderr, "exported %s as %s: %s\n", shortID(s.Header.ID), f, rep.Summary())
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
	root, err := workspaceDir(o.workdir)
	if err != nil {
		return "", err
	}
	return importForeign(e, path, root)
}
