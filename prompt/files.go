package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Note is something discovery skipped, cut or chose, said so a person
// can act on it. Discovery never fails: each problem becomes a note and
// the rest still loads.
type Note struct {
	// Kind is "context", "skill", "template" or "config".
	Kind string
	// Path is the file or folder the note is about ("" when none).
	Path string
	Msg  string
}

func (n Note) String() string {
	if n.Path == "" {
		return n.Msg
	}
	return n.Path + ": " + n.Msg
}

// fileSystem is what discovery needs from the operating system; tests
// substitute failures that a privileged user cannot provoke for real.
type fileSystem interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Open(name string) (io.ReadCloser, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	EvalSymlinks(name string) (string, error)
}

type osFS struct{}

func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (osFS) Open(name string) (io.ReadCloser, error)    { return os.Open(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (osFS) EvalSymlinks(name string) (string, error)   { return filepath.EvalSymlinks(name) }

// listingOrder is a fileSystem that can list a folder in the order the
// filesystem keeps it, unsorted.
type listingOrder interface {
	ReadDirUnsorted(name string) ([]fs.DirEntry, error)
}

func (osFS) ReadDirUnsorted(name string) ([]fs.DirEntry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// errSkip means the file is absent: no note is due.
var errSkip = errors.New("absent")

// statFile checks that path is a regular file worth reading. It returns
// errSkip when nothing is there and an error that reads well after the
// path otherwise.
func statFile(fsys fileSystem, path string) (fs.FileInfo, error) {
	fi, err := fsys.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := fsys.Lstat(path); lerr == nil {
			return nil, errors.New("is a symbolic link to nothing; skipped")
		}
		return nil, errSkip
	case errors.Is(err, syscall.ELOOP):
		return nil, errors.New("is a loop of symbolic links; skipped")
	case errors.Is(err, fs.ErrPermission):
		return nil, errors.New("cannot be read (permission denied); skipped")
	case errors.Is(err, syscall.ENOTDIR):
		return nil, errSkip
	case err != nil:
		return nil, fmt.Errorf("cannot be read (%v); skipped", unwrapPath(err))
	case fi.IsDir():
		return nil, errors.New("is a directory, not a file; skipped")
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("is not a regular file (%s); skipped", fi.Mode().Type())
	}
	return fi, nil
}

// readText reads at most limit bytes of a text file. It refuses binary
// and non-UTF-8 content, and reports whether the text was cut (at a line
// end when one is near).
func readText(fsys fileSystem, path string, limit int) (text string, cut bool, err error) {
	f, err := fsys.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return "", false, errors.New("cannot be read (permission denied); skipped")
		}
		return "", false, fmt.Errorf("cannot be read (%v); skipped", unwrapPath(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", false, fmt.Errorf("cannot be read (%v); skipped", unwrapPath(err))
	}
	if len(b) > limit {
		b, cut = cutText(b, limit), true
	}
	if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
		return "", false, errors.New("is binary, not text; skipped")
	}
	if !utf8.Valid(b) {
		return "", false, errors.New("is not valid UTF-8 text; skipped (save it as UTF-8)")
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	return strings.ReplaceAll(string(b), "\r\n", "\n"), cut, nil
}

// cutText shortens b to at most limit bytes, ending at a line end in the
// last quarter when there is one, and never inside a UTF-8 sequence.
func cutText(b []byte, limit int) []byte {
	b = b[:limit]
	if i := bytes.LastIndexByte(b, '\n'); i >= limit*3/4 {
		return b[:i+1]
	}
	for i := len(b); i > 0 && i > len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i-1]) {
			if !utf8.FullRune(b[i-1:]) {
				return b[:i-1]
			}
			break
		}
	}
	return b
}

// unwrapPath drops the path from a *fs.PathError, which the note shows
// already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// shortPath shows path relative to the workspace when inside it, with ~
// for the home directory, else as it is. Paths shown to the model are
// short and stable.
func shortPath(path, workspace, home string) string {
	if workspace != "" {
		if rel, err := filepath.Rel(workspace, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	if home != "" && home != "/" {
		if path == home {
			return "~"
		}
		if strings.HasPrefix(path, home+string(filepath.Separator)) {
			return "~/" + filepath.ToSlash(path[len(home)+1:])
		}
	}
	return path
}

// ancestors returns dir and its parents, innermost first, up to and
// including stop (or the filesystem root when stop is "" or not an
// ancestor). The walk is lexical, so symbolic links among the ancestors
// cannot make it loop; it is bounded all the same.
func ancestors(dir, stop string) []string {
	var out []string
	for i := 0; i < 256; i++ {
		out = append(out, dir)
		if dir == stop {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return out
}

// repoRoot returns the nearest ancestor of dir (dir included) holding a
// .git entry, or "" when dir is in no repository.
func repoRoot(fsys fileSystem, dir string) string {
	for _, d := range ancestors(dir, "") {
		if _, err := fsys.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
	}
	return ""
}
