package work

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
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
// session log lives there).
//
// A hasher keeps what it learnt: file contents are hashed once per
// (size, modification time, inode, mode), and git's list is kept with
// the stamps of what it came from (the index, the ignore files, every
// directory that may hold a listed file), so a hash of a tree where no
// file was created, removed or renamed runs no git at all, and one where
// nothing changed reads no file. A stamp younger than a timestamp tick
// (see racyMargin) is not trusted, each on its own: such a file is read
// again, such a directory has its entry names compared with those the
// listing saw, such an index or ignore file its content. So any edit
// after a hash, even one of the same size within the same tick, changes
// the next hash, while a file created just before a check costs one git
// listing, not one per hash. Safe for concurrent use.
type TreeHasher struct {
	listMu sync.Mutex // held by list: listings are looked at and replaced
	mu     sync.Mutex
	cache  map[string]fileStamp
	lists  map[string]*listing // per root
	// gitCalls counts git invocations, for tests.
	gitCalls int
}

type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
	mode  fs.FileMode
	sum   [32]byte
	read  time.Time // when the content was read
}

// Hash returns the tree hash of root as "sha256:<hex>". Two calls give
// the same value exactly when the listed files and their contents (and
// executable bits) are the same.
func (t *TreeHasher) Hash(ctx context.Context, root string) (string, error) {
	files, err := t.list(ctx, root)
	if err != nil {
		return "", err
	}
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
	if ok && old.size == st.size && old.mtime.Equal(st.mtime) && old.ino == st.ino && old.mode == st.mode && trusted(old.mtime, old.read) {
		return old, nil
	}
	st.read = time.Now()
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

// list returns the files of root, sorted: git's view when root is in a
// work tree (the kept listing while it holds), a walk otherwise.
func (t *TreeHasher) list(ctx context.Context, root string) ([]string, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, err
	}
	t.listMu.Lock()
	defer t.listMu.Unlock()
	t.mu.Lock()
	prev := t.lists[root]
	t.mu.Unlock()
	keepIgnore := true
	if prev != nil {
		ok, ignoreChanged := prev.valid()
		if ok {
			return prev.files, nil
		}
		keepIgnore = !ignoreChanged
	}
	if l, ok := gitListing(ctx, root, prev, keepIgnore); ok {
		sort.Strings(l.files)
		t.mu.Lock()
		if t.lists == nil {
			t.lists = map[string]*listing{}
		}
		t.lists[root] = l
		t.gitCalls += l.calls
		t.mu.Unlock()
		return l.files, nil
	}
	files, err := walkFiles(root)
	sort.Strings(files)
	return files, err
}

// walkFiles lists every file under root but .git, .rein and
// node_modules, slash-separated and relative.
func walkFiles(root string) ([]string, error) {
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
