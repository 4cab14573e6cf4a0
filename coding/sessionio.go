package coding

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinhq/rein/interop"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
)

// Lines is the report a front-end shows for an import, one line each
// (no newlines): what was imported as which session, then, indented by
// two spaces, what was carried over and what was left out, and one line
// per sub-agent session imported beside it. It describes what was
// written also when ImportFile returned an error with the Imported.
func (im *Imported) Lines() []string {
	if res := im.Bundle; res != nil {
		return []string{
			fmt.Sprintf("restored the bundle %s: %d sessions (ids kept: %s), %d run records added, %d already here",
				im.From, len(res.Paths), strings.Join(res.IDs, ", "), res.Runs, res.RunsKnown),
			"  " + res.Report.Summary(),
		}
	}
	c := im.Conversation
	out := []string{
		fmt.Sprintf("imported %s (%s %s, id %s) as session %s", im.From, c.Source.Format, c.Source.Version, c.Source.ID, ShortID(im.ID)),
		"  " + c.Report.Summary(),
	}
	for _, ch := range im.Children {
		out = append(out, fmt.Sprintf("  sub-agent %s (%s) as session %s: %s", ch.Conversation.Source.Path, ch.Conversation.Link.Type, ShortID(ch.ID), ch.Conversation.Report.Summary()))
	}
	return out
}

// ImportForeign makes the session file path resumable. When it is
// another harness's recording (see interop.DetectFile), it is imported
// into the sessions of the workspace WorkspaceDir(workdir) resolves, and
// the Imported's Path is the rein session to resume; notify, when not
// nil, is told first, in one line, what is about to happen. A rein
// session, or a file of no known format, gives nil and no error: the
// caller resumes path itself. The file is only read. As with
// ImportFile, an error may come with the Imported so far.
func ImportForeign(workdir, path string, r *redact.Redactor, notify func(string)) (*Imported, error) {
	root, err := WorkspaceDir(workdir)
	if err != nil {
		return nil, err
	}
	f, err := interop.DetectFile(path)
	if err != nil || f == "" || f == interop.Rein {
		return nil, err
	}
	if notify != nil {
		notify(fmt.Sprintf("%s is a %s session; importing it into a new rein session (the file is left as it is)", path, f))
	}
	return ImportFile(path, f, root, r)
}

// ExportOptions are the choices of ExportSession.
type ExportOptions struct {
	// Format is the format to write (see interop.ParseExportFormat).
	Format interop.Format
	// Output is the file to write, created new (an existing file is an
	// error and is left as it is); "" or "-" writes to the writer.
	Output string
	// Install writes the file where Format's program looks for the
	// sessions of the session's workspace (interop.Env.InstallPath)
	// instead of Output.
	Install bool
	// Redact masks secrets in the text of transcripts (md, html); nil
	// leaves the text as it is.
	Redact func(string) string
	// Version and Provider are passed on as interop.Options'.
	Version, Provider string
	// Getenv reads the environment that locates the other programs'
	// session directories for Install; nil is os.Getenv.
	Getenv func(string) string
	// Now stamps the names of installed files; zero is time.Now.
	Now time.Time
}

// Exported is what ExportSession wrote.
type Exported struct {
	// Path is the file written; "" when the export went to the writer.
	Path string
	// Format is the format written; ID is the session's id.
	Format interop.Format
	ID     string
	// Open is the command that opens an installed export in its
	// program ("" unless Install).
	Open string
	// Report says what the format could not hold.
	Report *interop.Report
}

// InstallError is ExportSession's error when Install cannot place the
// export: the session records no workspace, or the format has no place
// of its own. Nothing was written.
type InstallError struct{ Err error }

func (e *InstallError) Error() string { return e.Err.Error() }
func (e *InstallError) Unwrap() error { return e.Err }

// ExportSession writes the rein session file path in o.Format: to a new
// file (o.Output, or the install place with o.Install), else to w. The
// session is read and converted whole before anything is written, so a
// failure to read or convert writes nothing; the session file is only
// read. Errors: an *InstallError when the install place is unknown, the
// interop and file errors otherwise.
func ExportSession(w io.Writer, path string, o ExportOptions) (*Exported, error) {
	data, s, rep, err := interop.ExportFile(path, o.Format, interop.Options{Version: o.Version, Provider: o.Provider, Redact: o.Redact})
	if err != nil {
		return nil, err
	}
	x := &Exported{Path: o.Output, Format: o.Format, ID: s.Header.ID, Report: rep}
	if o.Install {
		getenv, now := o.Getenv, o.Now
		if getenv == nil {
			getenv = os.Getenv
		}
		if now.IsZero() {
			now = time.Now()
		}
		if x.Path, err = interop.HomeEnv(getenv).InstallPath(s, o.Format, now); err != nil {
			return nil, &InstallError{err}
		}
		x.Open = interop.OpenHint(o.Format, s, x.Path)
	}
	if x.Path == "-" {
		x.Path = ""
	}
	if x.Path == "" {
		_, err = w.Write(data)
	} else {
		err = interop.WriteNew(x.Path, data)
	}
	if err != nil {
		return nil, err
	}
	return x, nil
}

// Lines is the report a front-end shows after an export, one line each
// (no newlines): the file written and, for an installed one, the
// command that opens it; then what the format could not hold.
func (x *Exported) Lines() []string {
	var out []string
	if x.Path != "" {
		out = append(out, "wrote "+x.Path)
	}
	if x.Open != "" {
		out = append(out, "open it with: "+x.Open)
	}
	return append(out, fmt.Sprintf("exported %s as %s: %s", ShortID(x.ID), x.Format, x.Report.Summary()))
}

// LockedHint is what a front-end tells a user whose session ref is held
// by another process (err is or wraps a *session.LockedError): how to
// read the session meanwhile and how to continue it in a copy. It is ""
// for any other error.
func LockedHint(err error, ref string) string {
	var locked *session.LockedError
	if !errors.As(err, &locked) {
		return ""
	}
	return fmt.Sprintf("rein sessions show %s reads it meanwhile; rein sessions fork %s copies it into a new session to continue", ShortID(ref), ShortID(ref))
}

// LatestForeign is the newest session pi, Claude Code or codex keeps for
// the directory dir (the working directory when ""), only format f's
// when f is set: what an import of "the latest session" reads. Not
// finding one is an error that says where it looked.
func LatestForeign(getenv func(string) string, dir string, f interop.Format) (interop.Found, error) {
	wd, _ := os.Getwd()
	if dir != "" {
		wd, _ = filepath.Abs(dir)
	}
	return interop.HomeEnv(getenv).Latest(wd, f)
}

// SessionListing is what ListSessions found in a workspace.
type SessionListing struct {
	// Dir is the workspace's sessions directory.
	Dir string
	// Sessions are the sessions, nested as session.Nest orders them:
	// each session a user started, newest first, followed by the
	// sessions of the sub-agents it spawned.
	Sessions []session.Nested
	// Unreadable are the session files that could not be listed, with
	// why, so that a listing shows them instead of hiding them.
	Unreadable []session.Unreadable
}

// ListSessions lists the sessions of the workspace at root, the
// sub-agents' nested under their parents, and the files of its sessions
// directory that are not readable sessions. A workspace without
// sessions lists nothing; only a directory that cannot be read is an
// error.
func ListSessions(root string) (*SessionListing, error) {
	dir := session.DefaultDir(root)
	infos, err := session.List(dir)
	if err != nil {
		return nil, err
	}
	return &SessionListing{Dir: dir, Sessions: session.Nest(infos), Unreadable: session.Unlisted(dir, infos)}, nil
}
