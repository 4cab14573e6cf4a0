package coding

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/reinhq/rein/tool/builtin"
)

// ProjectRoot returns the nearest directory at or above dir that holds a
// .rein/ directory or a .git entry (a directory, or a file in a linked
// worktree), so that rein run from a subdirectory uses the project's
// sessions and config instead of starting a second .rein/ there. The
// search stops below the home directory (which is never a project root
// by accident) and at the file-system root; dir itself is returned when
// nothing is found. dir must be absolute.
func ProjectRoot(dir, home string) string {
	for d := dir; ; {
		if d == home && d != dir {
			break
		}
		if fi, err := os.Stat(filepath.Join(d, ".rein")); err == nil && fi.IsDir() {
			return d
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return dir
}

// WorkspaceDir is the workspace a front-end uses: dir when given (made
// absolute), else the project root of the current directory.
func WorkspaceDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		home, _ := os.UserHomeDir()
		return ProjectRoot(wd, home), nil
	}
	return filepath.Abs(dir)
}

// OpenWorkspace resolves dir (see WorkspaceDir) to a workspace the
// tools can work in; a directory that does not exist, is a file or
// cannot be read is a *WorkspaceError.
func OpenWorkspace(dir string) (builtin.Workspace, error) {
	abs, err := WorkspaceDir(dir)
	if err != nil {
		return builtin.Workspace{}, err
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return builtin.Workspace{}, &WorkspaceError{Dir: abs, Err: err}
	case !fi.IsDir():
		return builtin.Workspace{}, &WorkspaceError{Dir: abs, Err: errNotDir}
	}
	if _, err := os.ReadDir(abs); err != nil {
		return builtin.Workspace{}, &WorkspaceError{Dir: abs, Err: err}
	}
	ws, err := builtin.NewWorkspace(abs)
	if err != nil {
		return builtin.Workspace{}, &WorkspaceError{Dir: abs, Err: err}
	}
	return ws, nil
}

// reinGitignore is written to .rein/.gitignore on first use: session logs
// hold whole conversations (and the contents of files the agent read),
// and output/ holds long tool output; neither belongs in a commit, nor
// do the user's own "allow always" answers (settings.local.json). The
// config files beside them may.
const reinGitignore = `# Written by rein. Session logs, saved tool output and your own approvals
# stay out of git; config.json and harness-config.json may be committed.
sessions/
output/
settings.local.json
`

// ensureGitignore creates root/.rein/ when create is set, and gives an
// existing .rein/ a .gitignore for sessions/ and output/ when it has
// none. A .gitignore the user wrote is never changed.
func ensureGitignore(root string, create bool) error {
	dir := filepath.Join(root, ".rein")
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(reinGitignore); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// warnf sends one line to the warning sink.
func (o *Options) warnf(format string, args ...any) { o.Warn(fmt.Sprintf(format, args...)) }
