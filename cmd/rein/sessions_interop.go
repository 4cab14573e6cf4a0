package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/interop"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
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
				found, err := harnessEnv(e).Latest(wd, f)
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				paths, f = []string{found.Path}, found.Format
			case len(args) == 1:
				paths, err = importPaths(args[0])
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

// importPaths is the file, or the session files directly in a directory.
func importPaths(arg string) ([]string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{arg}, nil
	}
	var out []string
	for _, pat := range []string{"*.jsonl", "*.json"} {
		m, _ := filepath.Glob(filepath.Join(arg, pat))
		out = append(out, m...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no .jsonl or .json files in %s", arg)
	}
	return out, nil
}

// importOne imports one file into the workspace root and prints what
// was carried over; it returns the new session's file.
func importOne(w io.Writer, path string, f interop.Format, root string) (string, error) {
	if data, err := os.ReadFile(path); err == nil && interop.IsBundle(data) {
		res, err := interop.RestoreBundle(data, path, session.DefaultDir(root), root, telemetry.DefaultDir(root), redactor().Bytes)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(w, "restored the bundle %s: %d sessions (ids kept: %s), %d run records added, %d already here\n  %s\n",
			path, len(res.Paths), strings.Join(res.IDs, ", "), res.Runs, res.RunsKnown, res.Report.Summary())
		return res.Paths[0], nil
	}
	c, err := interop.ReadFile(path, f)
	if err != nil {
		return "", err
	}
	opts := session.Options{Dir: session.DefaultDir(root), Cwd: root, Redact: redactor().Bytes}
	s, err := interop.Import(c, opts)
	if err != nil {
		return "", err
	}
	defer s.Close()
	fmt.Fprintf(w, "imported %s (%s %s, id %s) as session %s\n  %s\n", path, c.Source.Format, c.Source.Version, c.Source.ID, shortID(s.ID()), c.Report.Summary())
	children, err := interop.ImportChildren(c, s, opts)
	for i, child := range children {
		l := c.Children[i].Link
		if err == nil {
			err = subagent.RecordImported(s, child, l.Type, c.Children[i].Name, l.ParentCall, l.Depth)
		}
		fmt.Fprintf(w, "  sub-agent %s (%s) as session %s: %s\n", c.Children[i].Source.Path, l.Type, shortID(child.ID()), c.Children[i].Report.Summary())
		child.Close()
	}
	if err != nil {
		return "", fmt.Errorf("the sub-agents of %s: %w", path, err)
	}
	return s.Path(), nil
}

// importForeign imports the file path when it is another harness's
// session, so that rein -c and --resume can continue it; "" when it is
// not one.
func importForeign(e *env, path, root string) (string, error) {
	head := make([]byte, 64<<10)
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	n, _ := io.ReadFull(fh, head)
	fh.Close()
	f := interop.Detect(head[:n])
	if f == "" || f == interop.Rein {
		return "", nil
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
			s, err := interop.LoadSession(path)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			o := interop.Options{Version: version, Provider: provider}
			if !noRedact {
				o.Redact = redactor().String
			}
			var buf bytes.Buffer
			rep, err := interop.Export(&buf, s, f, o)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if install {
				out, err = harnessEnv(e).InstallPath(s, f, time.Now())
				if err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			if out == "" || out == "-" {
				w := bufio.NewWriter(e.stdout)
				w.Write(buf.Bytes())
				if err := w.Flush(); err != nil {
					return err
				}
			} else if err := writeExport(out, buf.Bytes()); err != nil {
				return &exitError{code: 1, err: err}
			}
			if out != "" && out != "-" {
				fmt.Fprintf(e.stderr, "wrote %s\n", out)
				if install {
					fmt.Fprintf(e.stderr, "open it with: %s\n", openHint(f, s, out))
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

// writeExport writes data to path (0600, directories 0700) without
// replacing a file that exists.
func writeExport(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func openHint(f interop.Format, s *interop.Session, path string) string {
	switch f {
	case interop.Pi:
		return "pi --session " + path + "  (or pi -c in " + s.Header.Cwd + ")"
	case interop.Claude:
		return "claude --resume " + interop.ClaudeSessionID(s.Header.ID) + "  (in " + s.Header.Cwd + ")"
	case interop.Codex:
		id := interop.CodexThreadID(s.Header.ID)
		return "codex resume " + id + "  (codex migrate-rollouts --apply --thread " + id + " shows its commands in codex's app)"
	}
	return path
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

// harnessEnv is where the other harnesses keep their sessions: under
// $HOME, moved by their own environment variables.
func harnessEnv(e *env) interop.Env {
	home := e.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return interop.Env{Home: home, Getenv: e.getenv}
}
