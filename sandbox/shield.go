package sandbox

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Limits of what a shield keeps: files over maxShieldFile, or beyond
// maxShieldBytes or maxShieldEntries in all, are watched by their hash
// only; a change to one is moved aside but cannot be put back.
const (
	maxShieldFile    = 1 << 20
	maxShieldBytes   = 8 << 20
	maxShieldEntries = 4000
)

// reinConfig are the entries of .rein a shield keeps: what can run a
// command, send requests elsewhere or loosen the sandbox. The rest of
// .rein (sessions, saved output, run records, locks, long-mode files) is
// rein's own state, written while commands run; settings.local.json is
// written by rein when a person answers "always", and trust notices a
// change to it by its hash (package trust).
var reinConfig = map[string]bool{
	"config.json": true, "security.json": true, "settings.json": true, "harness-config.json": true,
	"telemetry.json": true, "contract.json": true, "agents": true, "prompts": true, "skills": true,
	"commands": true, "hooks": true,
}

// shield is what the existing protected paths held before a command,
// for Landlock, which cannot keep them read-only as bubblewrap's binds
// do: Landlock rules only add access, so a path inside the writable
// workspace is writable. After the command, restore puts back what it
// changed and moves aside what it added.
//
// One shield serves every command that overlaps in time on one
// workspace (shields, below): a command that started after another
// changed a protected file must not take that change for the original.
type shield struct {
	ws      string
	entries map[string]shieldEntry // absolute path → what it held
	dirs    map[string]dirID       // protected directories (and .git) → identity
	refs    int
}

type shieldEntry struct {
	mode fs.FileMode
	data []byte // nil when only the hash is kept (or for a directory)
	sum  [32]byte
	link string
	kept bool // data holds the whole content
}

type dirID struct{ dev, ino uint64 }

// shields holds the shield of each workspace while commands run on it.
// It is process-wide on purpose: every bash tool in the process (an
// agent's and its sub-agents') runs commands on the same files.
var shields = struct {
	sync.Mutex
	m map[string]*shield
}{m: map[string]*shield{}}

// acquireShield returns the workspace's shield, taking a snapshot when
// no command is running on it.
func acquireShield(ws string, protected []string) *shield {
	shields.Lock()
	defer shields.Unlock()
	if s := shields.m[ws]; s != nil {
		s.refs++
		return s
	}
	s := &shield{ws: ws, entries: map[string]shieldEntry{}, dirs: map[string]dirID{}, refs: 1}
	budget := maxShieldBytes
	for _, q := range protected {
		s.walk(q, func(p string, fi fs.FileInfo) {
			if len(s.entries) >= maxShieldEntries {
				return
			}
			e := shieldEntry{mode: fi.Mode()}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				e.link, _ = os.Readlink(p)
			case fi.Mode().IsRegular():
				data, err := os.ReadFile(p)
				if err != nil {
					return
				}
				e.sum = sha256.Sum256(data)
				if len(data) <= maxShieldFile && len(data) <= budget {
					e.data, e.kept = data, true
					budget -= len(data)
				}
			case fi.IsDir():
				if id, ok := identity(fi); ok {
					s.dirs[p] = id
				}
			}
			s.entries[p] = e
		})
	}
	git := filepath.Join(ws, ".git")
	if fi, err := os.Lstat(git); err == nil && fi.IsDir() {
		if id, ok := identity(fi); ok {
			s.dirs[git] = id
		}
	}
	shields.m[ws] = s
	return s
}

// release drops one command's hold on s.
func (s *shield) release() {
	shields.Lock()
	defer shields.Unlock()
	if s.refs--; s.refs == 0 && shields.m[s.ws] == s {
		delete(shields.m, s.ws)
	}
}

// walk calls fn for q and, when q is a directory, for everything under
// it that a shield keeps (links are not followed).
func (s *shield) walk(q string, fn func(string, fs.FileInfo)) {
	reinDir := filepath.Join(s.ws, ".rein")
	_ = filepath.Walk(q, func(p string, fi fs.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if filepath.Dir(p) == reinDir && !reinConfig[fi.Name()] {
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fn(p, fi)
		return nil
	})
}

// restore puts back what the protected paths held when s was taken:
// a protected directory (or .git) that was moved away is moved back when
// it is found at the top of the workspace, a changed or removed entry is
// written back (the changed one moved to NAME.modified-TIME first), and
// an added one is moved to NAME.planted-TIME. Nothing is deleted.
func (s *shield) restore(protected []string) ([]Planted, error) {
	stamp := time.Now().UTC().Format("20060102T150405")
	var out []Planted
	var errs []error
	ours := map[string]bool{} // where restore moved things: not added by the command
	aside := func(p, tag string) (string, error) {
		dst := p + "." + tag + "-" + stamp
		for i := 2; present(dst); i++ {
			dst = fmt.Sprintf("%s.%s-%s-%d", p, tag, stamp, i)
		}
		ours[dst] = true
		return dst, os.Rename(p, dst)
	}
	// Directories first: a renamed-away .git is brought back whole.
	for _, d := range sortedKeys(s.dirs) {
		want := s.dirs[d]
		if fi, err := os.Lstat(d); err == nil {
			if id, ok := identity(fi); ok && id == want {
				continue
			}
		}
		found := s.find(want)
		if found == "" {
			continue // the entries below are rebuilt one by one
		}
		if present(d) {
			dst, err := aside(d, "planted")
			if err != nil {
				errs = append(errs, fmt.Errorf("sandbox: %s was replaced by a command and could not be moved aside: %w", s.rel(d), err))
				continue
			}
			out = append(out, Planted{Path: s.rel(d), MovedTo: s.rel(dst)})
		}
		if err := os.Rename(found, d); err != nil {
			errs = append(errs, fmt.Errorf("sandbox: a command moved %s to %s, and it could not be moved back: %w", s.rel(d), s.rel(found), err))
			continue
		}
		out = append(out, Planted{Path: s.rel(d), MovedTo: s.rel(found), Restored: true})
	}
	// Then every entry: put back what changed or went.
	for _, p := range sortedKeys(s.entries) {
		e := s.entries[p]
		fi, err := os.Lstat(p)
		if err == nil && e.same(p, fi) {
			continue
		}
		if err == nil {
			if fi.IsDir() && e.mode.IsDir() {
				_ = os.Chmod(p, e.mode.Perm())
				continue
			}
			dst, err := aside(p, "modified")
			if err != nil {
				errs = append(errs, fmt.Errorf("sandbox: %s was changed by a command and could not be moved aside: %w", s.rel(p), err))
				continue
			}
			if !e.put(p) {
				out = append(out, Planted{Path: s.rel(p), MovedTo: s.rel(dst)})
				errs = append(errs, fmt.Errorf("sandbox: %s was changed by a command; its original was too large to keep and is not put back", s.rel(p)))
				continue
			}
			out = append(out, Planted{Path: s.rel(p), MovedTo: s.rel(dst), Restored: true})
			continue
		}
		if e.put(p) {
			out = append(out, Planted{Path: s.rel(p), Restored: true})
		} else {
			errs = append(errs, fmt.Errorf("sandbox: %s was removed by a command and its original was too large to keep", s.rel(p)))
		}
	}
	// Last, what was added inside the protected directories.
	for _, q := range protected {
		s.walk(q, func(p string, fi fs.FileInfo) {
			if _, ok := s.entries[p]; ok || p == q || ours[p] {
				return // known, or missing before (Watch sweeps those)
			}
			if _, known := s.entries[filepath.Dir(p)]; !known {
				return // inside an added directory, which moves whole
			}
			dst, err := aside(p, "planted")
			if err != nil {
				errs = append(errs, fmt.Errorf("sandbox: %s was created by a command and could not be moved aside: %w", s.rel(p), err))
				return
			}
			out = append(out, Planted{Path: s.rel(p), MovedTo: s.rel(dst)})
		})
	}
	return out, errors.Join(errs...)
}

// find looks for the directory with identity id among the workspace's
// top two levels: where a command that renamed a protected directory
// most likely put it.
func (s *shield) find(id dirID) string {
	var hit string
	var look func(dir string, depth int)
	look = func(dir string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if hit != "" || !e.IsDir() {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if fi, err := os.Lstat(p); err == nil {
				if got, ok := identity(fi); ok && got == id {
					hit = p
					return
				}
			}
			if depth > 0 {
				look(p, depth-1)
			}
		}
	}
	look(s.ws, 1)
	return hit
}

// same reports whether p (with info fi) still holds what e recorded.
func (e shieldEntry) same(p string, fi fs.FileInfo) bool {
	if fi.Mode().Type() != e.mode.Type() || fi.Mode().Perm() != e.mode.Perm() {
		return false
	}
	switch {
	case e.mode&fs.ModeSymlink != 0:
		l, err := os.Readlink(p)
		return err == nil && l == e.link
	case e.mode.IsRegular():
		if e.kept && fi.Size() != int64(len(e.data)) {
			return false
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return false
		}
		if e.kept {
			return bytes.Equal(data, e.data)
		}
		return sha256.Sum256(data) == e.sum
	}
	return true
}

// put writes e back at p (whose place is free), making its parents as
// needed; false when e's content was not kept.
func (e shieldEntry) put(p string) bool {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false
	}
	switch {
	case e.mode.IsDir():
		return os.Mkdir(p, e.mode.Perm()) == nil || present(p)
	case e.mode&fs.ModeSymlink != 0:
		return os.Symlink(e.link, p) == nil
	case e.mode.IsRegular() && e.kept:
		tmp := p + ".rein-restore"
		if err := os.WriteFile(tmp, e.data, e.mode.Perm()); err != nil {
			return false
		}
		_ = os.Chmod(tmp, e.mode.Perm())
		return os.Rename(tmp, p) == nil
	}
	return false
}

func (s *shield) rel(p string) string {
	if r, err := filepath.Rel(s.ws, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func identity(fi fs.FileInfo) (dirID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirID{}, false
	}
	return dirID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
