package work

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// TreeHasher computes the content hash of a workspace's tracked tree:
// in a git repository the files git ls-files lists (tracked, and
// untracked ones not ignored), elsewhere every file under the root but
// .git, .rein and node_modules. Paths under .rein/ never count (the
// session log lives there). File contents are hashed once per (size,
// modification time, inode), so a second hash of an unchanged tree reads
// no file. Safe for concurrent use.
type TreeHasher struct {
	mu    sync.Mutex
	cache map[string]fileStamp
}

type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
	mode  fs.FileMode
	sum   [32]byte
}

// Hash returns the tree hash of root as "sha256:<hex>". Two calls give
// the same value exactly when the listed files and their contents (and
// executable bits) are the same.
func (t *TreeHasher) Hash(ctx context.Context, root string) (string, error) {
	files, err := listFiles(ctx, root)
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		if f == ".rein" || strings.HasPrefix(f, ".rein/") {
			continue
		}
		st, err := t.file(filepath.Join(root, filepath.FromSlash(f)))
		h.Write([]byte(f))
		h.Write([]byte{0})
		switch {
		case errors.Is(err, fs.ErrNotExist):
			h.Write([]byte("deleted"))
		case err != nil:
			return "", err
		default:
			if st.mode&0o111 != 0 {
				h.Write([]byte("x"))
			}
			h.Write(st.sum[:])
		}
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func (t *TreeHasher) file(path string) (fileStamp, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileStamp{}, err
	}
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime(), ino: inode(fi), mode: fi.Mode()}
	t.mu.Lock()
	old, ok := t.cache[path]
	t.mu.Unlock()
	if ok && old.size == st.size && old.mtime.Equal(st.mtime) && old.ino == st.ino && old.mode == st.mode {
		return old, nil
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return fileStamp{}, err
		}
		st.sum = sha256.Sum256([]byte("link:" + target))
	case fi.IsDir():
		st.sum = sha256.Sum256([]byte("dir")) // a submodule
	default:
		f, err := os.Open(path)
		if err != nil {
			return fileStamp{}, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return fileStamp{}, err
		}
		copy(st.sum[:], h.Sum(nil))
	}
	t.mu.Lock()
	if t.cache == nil {
		t.cache = map[string]fileStamp{}
	}
	t.cache[path] = st
	t.mu.Unlock()
	return st, nil
}

// listFiles lists the files of root, slash-separated and relative: git's
// view when root is in a work tree, a walk otherwise.
func listFiles(ctx context.Context, root string) ([]string, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, err
	}
	if files, ok := gitFiles(ctx, root); ok {
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable: not part of the tree
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".rein", "node_modules":
				if p != root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}

func gitFiles(ctx context.Context, root string) ([]string, bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, false
	}
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return nil, false
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range strings.Split(out.String(), "\x00") {
		if f != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	return files, true
}
