package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/spf13/cobra"
)

func newSessionsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, resume and fork the session logs of a workspace",
		Long: `Every run and chat writes a session log under .rein/sessions/ in the workspace:
an append-only JSONL file that survives crashes (see docs/session-format.md).
A SESSION argument is a file path, a session id or a unique prefix of one, or
"last" for the most recent.`,
	}
	cmd.AddCommand(newSessionsListCmd(e), newSessionsShowCmd(e), newSessionsResumeCmd(e), newSessionsForkCmd(e))
	cmd.AddCommand(newSessionsCompactCmd(e), newSessionsHandoffCmd(e))
	cmd.AddCommand(newSessionsImportCmd(e), newSessionsExportCmd(e))
	return cmd
}

func workdirFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVarP(dir, "workdir", "C", "", "workspace whose sessions to use (default: the current directory)")
}

// workspaceDir is the workspace a command uses: dir (the -C flag) when
// given, else the project root of the current directory.
func workspaceDir(dir string) (string, error) { return coding.WorkspaceDir(dir) }

func newSessionsListCmd(e *env) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the sessions of the workspace, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := workspaceDir(dir)
			if err != nil {
				return err
			}
			ls, err := coding.ListSessions(root)
			if err != nil {
				return err
			}
			if len(ls.Sessions) == 0 && len(ls.Unreadable) == 0 {
				fmt.Fprintf(e.stdout, "no sessions in %s\n", ls.Dir)
				return nil
			}
			defer func() {
				for _, u := range ls.Unreadable {
					fmt.Fprintf(e.stdout, "%s: %s\n", relPath(root, u.Path), u.Why)
				}
			}()
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tMODIFIED\tMESSAGES\tFIRST MESSAGE")
			for _, in := range ls.Sessions {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", in.Indent()+shortID(in.ID), in.Modified.Local().Format("2006-01-02 15:04"), in.Messages, in.Title())
			}
			return tw.Flush()
		},
	}
	workdirFlag(cmd, &dir)
	return cmd
}

func shortID(id string) string { return coding.ShortID(id) }

func newSessionsShowCmd(e *env) *cobra.Command {
	var dir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [SESSION]",
		Short: "Print the conversation of a session (its current branch); the last one by default",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := "last"
			if len(args) == 1 {
				ref = args[0]
			}
			path, err := coding.FindSession(dir, ref)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			h, entries, issues, err := session.ReadFile(path)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				for _, en := range entries {
					if err := enc.Encode(en); err != nil {
						return err
					}
				}
				return nil
			}
			p := &printer{out: e.stdout, info: e.stdout, color: e.color}
			fmt.Fprintf(e.stdout, "%s\n", p.style(ansiBold, "session "+h.ID))
			fmt.Fprintf(e.stdout, "%s\n", p.style(ansiDim, fmt.Sprintf("file %s · created %s · workspace %s", path, h.Created.Local().Format("2006-01-02 15:04"), h.Cwd)))
			for _, is := range issues {
				fmt.Fprintf(e.stdout, "%s\n", p.style(ansiRed, fmt.Sprintf("line %d: %s: %s", is.Line, is.Kind, is.Detail)))
			}
			c := session.BuildContext(entries, session.LastLeaf(entries))
			for i := range c.Messages {
				showMessage(e, p, &c.Messages[i], c.EntryIDs[i])
			}
			return nil
		},
	}
	workdirFlag(cmd, &dir)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every entry as JSON, one a line")
	return cmd
}

// showMessage prints one message of a transcript, its entry id (for
// rein sessions fork --at) dimmed at the end of its first line.
func showMessage(e *env, p *printer, m *llm.Message, id string) {
	tag := p.style(ansiDim, "  ["+shortID(id)+"]")
	switch m.Role {
	case llm.RoleUser:
		fmt.Fprintf(e.stdout, "%s%s\n", p.style(ansiCyan, "▸ "+m.Text()), tag)
	case llm.RoleAssistant:
		if len(m.Content) == 0 || m.Content[0].Type != llm.ContentText {
			fmt.Fprintf(e.stdout, "%s%s\n", p.style(ansiBold, "●"), tag)
			tag = ""
		}
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentThinking:
				if c.Text != "" {
					fmt.Fprintf(e.stdout, "%s\n", p.style(ansiDim, "  thinking: "+truncateLine(c.Text, 200)))
				}
			case llm.ContentText:
				first, rest, more := strings.Cut(c.Text, "\n")
				fmt.Fprintf(e.stdout, "%s%s%s\n", p.style(ansiBold, "● "), first, tag)
				if more {
					fmt.Fprintf(e.stdout, "%s\n", rest)
				}
				tag = ""
			case llm.ContentToolCall:
				c := c
				fmt.Fprintf(e.stdout, "  %s %s\n", p.style(ansiCyan, "→ "+c.Name), summarizeArgs(&c))
			}
		}
		if m.Failed() {
			fmt.Fprintf(e.stdout, "%s\n", p.style(ansiRed, "  ✗ "+m.ErrorMessage))
		}
	case llm.RoleToolResult:
		mark := p.style(ansiGreen, "✓")
		if m.IsError {
			mark = p.style(ansiRed, "✗")
		}
		text := strings.TrimSpace(m.Text())
		lines := strings.Count(text, "\n") + 1
		first, _, _ := strings.Cut(text, "\n")
		extra := ""
		if lines > 1 {
			extra = fmt.Sprintf(" (%d lines)", lines)
		}
		fmt.Fprintf(e.stdout, "    %s %s%s%s\n", mark, p.style(ansiDim, truncateLine(first, 120)), p.style(ansiDim, extra), tag)
	}
}

func newSessionsResumeCmd(e *env) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "resume SESSION [PROMPT]",
		Short: "Continue a session: run one more prompt, or chat when none is given",
		Long: `Continue a session where it stopped. The log is opened and repaired: a tool
call the process died during gets a result saying it was interrupted, so the
conversation is well-formed. The session's model, thinking level and active
tools are used unless --model, --thinking or --tools say otherwise, and so is
the --base-url it was made with. With a PROMPT, runs it once (like rein run);
without, shows the conversation so far and starts a chat.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.resolveTextFlags(); err != nil {
				return &exitError{code: 2, err: err}
			}
			if len(args) == 2 {
				if strings.TrimSpace(args[1]) == "" {
					return &exitError{code: 2, err: errEmptyPrompt}
				}
				return resumeSession(cmd, e, o, args[0], &args[1])
			}
			return resumeSession(cmd, e, o, args[0], nil)
		},
	}
	addRunFlags(cmd, o)
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format when a PROMPT is given: text, json or stream-json")
	return cmd
}

func newSessionsForkCmd(e *env) *cobra.Command {
	var dir, at string
	cmd := &cobra.Command{
		Use:   "fork SESSION",
		Short: "Copy a session's conversation up to an entry into a new session",
		Long: `Fork a session: the new session holds the path from the start to the given
entry (--at, an entry id or a unique prefix of one; default the current
position) and records where it came from. Resume the new one to try another
direction without touching the original. The original is only read: it may be
in use by another rein at the same time.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := coding.FindSession(dir, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			forked, h, err := coding.ForkFile(path, at, redactor())
			var refErr *coding.EntryRefError
			if errors.As(err, &refErr) || errors.Is(err, coding.ErrNothingToFork) {
				return &exitError{code: 2, err: err}
			} else if err != nil {
				return &exitError{code: 1, err: err}
			}
			defer forked.Close()
			fmt.Fprintf(e.stdout, "forked %s at %s into %s (id %s)\n", shortID(h.ID), shortID(at), forked.Path(), shortID(forked.ID()))
			for _, r := range forked.Repairs() {
				fmt.Fprintf(e.stderr, "rein: the fork ends at the %s call %s, so it was recorded as not run\n", r.ToolName, r.CallID)
			}
			return nil
		},
	}
	workdirFlag(cmd, &dir)
	cmd.Flags().StringVar(&at, "at", "", "entry id to fork at (default: the session's current position); rein sessions show --json lists ids")
	return cmd
}
