package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutside is matched (errors.Is) by every error Resolve returns for a
// path that leads out of the workspace.
var ErrOutside = errors.New("path is outside the workspace")

// OutsideError reports a path that leads out of the workspace, directly
// or through a symbolic link.
type OutsideError struct {
	// Path is the path as it was given.
	Path string
	// Resolved is where the path leads once symbolic links are followed.
	Resolved string
	// Root is the workspace root.
	Root string
}

func (e *OutsideError) Error() string {
	via := ""
	if e.Resolved != "" && e.Resolved != filepath.Clean(e.Path) {
		via = fmt.Sprintf(" (it leads to %s)", e.Resolved)
	}
	return fmt.Sprintf("path %q is outside the workspace%s; the workspace root is %s and only paths inside it can be used", e.Path, via, e.Root)
}

// Is makes errors.Is(err, ErrOutside) true.
func (e *OutsideError) Is(target error) bool { return target == ErrOutside }

// Workspace confines the paths tools touch to a root directory. The zero
// value is not usable; set Root or use NewWorkspace. A Workspace is a
// plain value and safe for concurrent use.
type Workspace struct {
	// Root is the workspace directory. It may be relative (to the process
	// working directory) or contain symbolic links; Resolve resolves it on
	// every call. NewWorkspace stores it resolved.
	Root string
	// Files, when set, holds the text read, write and edit work on (an
	// editor's buffers); nil means the disk. See Files.
	Files Files
}

// NewWorkspace returns a workspace rooted at root, made absolute with its
// own symbolic links resolved. root must be an existing directory.
func NewWorkspace(root string) (Workspace, error) {
	if root == "" {
		return Workspace{}, errors.New("workspace: the root directory is empty")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return Workspace{}, fmt.Errorf("workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Workspace{}, fmt.Errorf("workspace: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return Workspace{}, fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return Workspace{}, fmt.Errorf("workspace: %s is not a directory", root)
	}
	return Workspace{Root: real}, nil
}

// root returns the absolute root with its symbolic links resolved.
func (w Workspace) root() (string, error) {
	if w.Root == "" {
		return "", errors.New("the workspace has no root directory")
	}
	abs, err := filepath.Abs(w.Root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("the workspace root is not usable: %w", err)
	}
	return real, nil
}

// maxLinks bounds how many symbolic links one Resolve follows by hand.
const maxLinks = 40

// Resolve turns a path given by a model into an absolute path inside the
// workspace. Relative paths are taken from Root; absolute paths are
// allowed when they lie inside it; an empty path means Root. Symbolic
// links are resolved on the deepest existing ancestor and on dangling
// links, and the rest of the path is appended, so a link that points out
// of the workspace (as the file itself or as any parent directory) is
// refused with an *OutsideError naming the path and the root. The
// returned path contains no symbolic links that existed at the time of
// the call; nothing on disk is changed.
func (w Workspace) Resolve(path string) (string, error) {
	root, err := w.root()
	if err != nil {
		return "", err
	}
	if strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", path)
	}
	p := path
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	real, err := resolveLinks(p)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", path, err)
	}
	if !within(root, real) {
		return "", &OutsideError{Path: path, Resolved: real, Root: root}
	}
	return real, nil
}

// resolveLinks resolves the symbolic links of an absolute, clean path
// whose tail may not exist yet.
func resolveLinks(p string) (string, error) {
	for range maxLinks {
		cur, rest := p, ""
		for {
			real, err := filepath.EvalSymlinks(cur)
			if err == nil {
				return filepath.Join(real, rest), nil
			}
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				return "", err
			}
			// cur may be a dangling link: follow it by hand so that
			// creating the file cannot write through it.
			if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				target, rerr := os.Readlink(cur)
				if rerr != nil {
					return "", rerr
				}
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				p = filepath.Join(filepath.Clean(target), rest)
				break
			}
			parent := filepath.Dir(cur)
			if parent == cur {
				return filepath.Join(cur, rest), nil
			}
			rest = filepath.Join(filepath.Base(cur), rest)
			cur = parent
		}
	}
	return "", errors.New("too many levels of symbolic links")
}

// within reports whether p is root or lies below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// rel returns abs relative to root with forward slashes, for display.
func rel(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// display returns abs relative to the workspace root for messages.
func (w Workspace) display(abs string) string {
	root, err := w.root()
	if err != nil {
		return abs
	}
	return rel(root, abs)
}
