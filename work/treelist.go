package work

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// racyMargin is how far before a listing or a read a file's or a
// directory's modification time must lie for its stamp to be trusted
// later. A change within the same timestamp tick as the stamp leaves
// the modification time as it was, so a stamp younger than this is used
// once and checked afresh next time (git's "racily clean" problem).
// File systems stamp with a clock that lags the wall clock by at most a
// scheduler tick; coarse ones (one-second stamps) get two seconds.
const racyMargin = 100 * time.Millisecond

// trusted reports whether a stamp with modification time mtime, taken
// at or after at, can stand for the path later: any later change will
// show as another time.
func trusted(mtime, at time.Time) bool {
	margin := racyMargin
	if mtime.Nanosecond() == 0 {
		margin = 2 * time.Second
	}
	return mtime.Before(at.Add(-margin))
}

// stamp is what a stat says about a path that decides whether it
// changed.
type stamp struct {
	exists bool
	size   int64
	mtime  time.Time
	ino    uint64
	mode   fs.FileMode
}

func statStamp(p string) stamp {
	fi, err := os.Lstat(p)
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, size: fi.Size(), mtime: fi.ModTime(), ino: inode(fi), mode: fi.Mode()}
}

// watched is a path whose stat decides whether a listing still holds.
// When the stat changed, or is too young to trust, what the path holds
// decides: a directory's entry names, a file's content. A directory
// touched without an entry created, removed or renamed, or a file
// rewritten as it was, keeps the listing.
type watched struct {
	path    string
	st      stamp
	at      time.Time // when st was taken, or earlier
	sum     [32]byte  // the names of a directory's entries, a file's content
	ignore  bool      // a source of ignore rules (.gitignore, info/exclude)
	unknown bool      // sum may hold a change git did not see: any new look relists
}

// observe stamps w.path and fingerprints what it holds, stamp first: a
// change after the stamp shows as another stamp or another fingerprint.
func (w *watched) observe() {
	w.at = time.Now()
	w.st = statStamp(w.path)
	w.sum = fingerprint(w.path, w.st)
	w.unknown = false
}

// fingerprint is the hash of the entry names (with their kinds) of a
// directory, or of the content of a file; zero for a missing path.
func fingerprint(p string, st stamp) [32]byte {
	if !st.exists {
		return [32]byte{}
	}
	if !st.mode.IsDir() {
		b, err := os.ReadFile(p)
		if err != nil {
			return [32]byte{}
		}
		return sha256.Sum256(b)
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return [32]byte{}
	}
	h := sha256.New()
	for _, e := range ents { // sorted by name
		h.Write([]byte(e.Name()))
		if e.IsDir() {
			h.Write([]byte{'/'})
		}
		h.Write([]byte{0})
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// listing is the file list of a git work tree, kept with what it was
// derived from: every directory that may hold a file git would list
// (creating, removing or renaming a file there changes the directory),
// the index (git add, rm, commit, checkout) and the ignore rules. While
// none of them changed, the list is what git ls-files would print again.
type listing struct {
	files  []string // sorted, .rein left out
	watch  []watched
	ignore map[string]bool // directory -> ignored, for directories without listed files
	calls  int             // git invocations it took
}

// valid reports whether l still holds: nothing it watches changed.
// ignoreChanged reports whether an ignore source did. A watched path
// whose stamp is unchanged and old enough is taken as it is; any other
// is looked at again (a directory read, a file hashed), and the listing
// holds while it holds what it held. Every path looked at keeps its new
// look, so after valid each watched path is as it is now (a listing made
// next starts from these looks). Not safe for concurrent use.
func (l *listing) valid() (ok, ignoreChanged bool) {
	ok = true
	for i := range l.watch {
		w := &l.watch[i]
		st := statStamp(w.path)
		if st == w.st && !w.unknown && (!st.exists || trusted(st.mtime, w.at)) {
			continue
		}
		now := watched{path: w.path, ignore: w.ignore}
		now.observe()
		if w.unknown || now.st.exists != w.st.exists || now.sum != w.sum {
			ok = false
			ignoreChanged = ignoreChanged || w.ignore
		}
		*w = now
	}
	return ok, ignoreChanged
}

// gitListing lists root with one git call (and, for directories new to
// it that hold no listed file, one git check-ignore call). It reports
// false when root is not in a git work tree or git is missing. prev is
// the previous listing of root (nil for none); its verdicts on ignored
// directories are kept unless keepIgnore is false.
func gitListing(ctx context.Context, root string, prev *listing, keepIgnore bool) (*listing, bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, false
	}
	gitDir, top := findGitDir(root)
	if gitDir == "" {
		return nil, false
	}
	l := &listing{ignore: map[string]bool{}}
	// The previous listing's looks at its directories, taken (by valid)
	// before git runs, stand for them in the new one.
	looked := map[string]watched{}
	if prev != nil {
		for _, w := range prev.watch {
			looked[w.path] = w
		}
		if keepIgnore {
			for d, v := range prev.ignore {
				l.ignore[d] = v
			}
		}
	}
	start := time.Now()
	// The sources of the list are stamped before git reads them, so a
	// change made while it runs shows next time.
	add := func(p string, ignore bool) {
		w := watched{path: p, ignore: ignore}
		w.observe()
		l.watch = append(l.watch, w)
	}
	add(filepath.Join(gitDir, "index"), false)
	add(filepath.Join(gitDir, "info", "exclude"), true)
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		add(filepath.Join(common, "info", "exclude"), true)
	}
	if cfg := globalIgnore(); cfg != "" {
		add(cfg, true)
	}
	for d := root; ; d = filepath.Dir(d) {
		add(filepath.Join(d, ".gitignore"), true)
		if d == top || filepath.Dir(d) == d {
			break
		}
	}
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var out bytes.Buffer
	cmd.Stdout = &out
	l.calls++
	if cmd.Run() != nil {
		return nil, false
	}
	seen := map[string]bool{}
	dirs := map[string]bool{".": true}
	for _, f := range strings.Split(out.String(), "\x00") {
		if f == "" || seen[f] || f == ".rein" || strings.HasPrefix(f, ".rein/") {
			continue
		}
		seen[f] = true
		l.files = append(l.files, f)
		for d := path.Dir(f); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
		if path.Base(f) == ".gitignore" && path.Dir(f) != "." {
			w := lookAfter(filepath.Join(root, filepath.FromSlash(f)), looked, start)
			w.ignore = true
			l.watch = append(l.watch, w)
		}
	}
	if !l.watchDirs(ctx, root, dirs, looked, start) {
		return nil, false
	}
	return l, true
}

// watchDirs stamps the directories of dirs (relative, slash-separated)
// and every directory under them that is not ignored, though it holds
// no listed file yet: a file created there would be listed.
func (l *listing) watchDirs(ctx context.Context, root string, dirs map[string]bool, looked map[string]watched, start time.Time) bool {
	queue := make([]string, 0, len(dirs))
	for d := range dirs {
		queue = append(queue, d)
	}
	for len(queue) > 0 {
		var unknown []string
		var next []string
		for _, d := range queue {
			abs := filepath.Join(root, filepath.FromSlash(d))
			l.watch = append(l.watch, lookAfter(abs, looked, start))
			ents, err := os.ReadDir(abs)
			if err != nil {
				continue
			}
			for _, e := range ents {
				if !e.IsDir() {
					continue
				}
				sub := path.Join(d, e.Name())
				if dirs[sub] || (d == "." && (e.Name() == ".git" || e.Name() == ".rein")) {
					continue
				}
				if ign, ok := l.ignore[sub]; ok {
					if !ign {
						next = append(next, sub)
					}
					continue
				}
				unknown = append(unknown, sub)
			}
		}
		if len(unknown) > 0 {
			l.calls++
			ignored, ok := checkIgnore(ctx, root, unknown)
			if !ok {
				return false
			}
			for _, d := range unknown {
				l.ignore[d] = ignored[d]
				if !ignored[d] {
					next = append(next, d)
				}
			}
		}
		queue = next
	}
	return true
}

// lookAfter is the look at p for a listing git made from start on: the
// look taken before (by valid) when there is one, else a new one. A new
// look may hold a change git did not see; unless its stamp predates
// start, it is marked unknown, so the next valid lists anew.
func lookAfter(p string, looked map[string]watched, start time.Time) watched {
	if w, ok := looked[p]; ok && w.st.exists {
		return w
	}
	w := watched{path: p}
	w.observe()
	if !trusted(w.st.mtime, start) {
		w.at, w.unknown = start, true
	}
	return w
}

// checkIgnore asks git which of dirs are ignored.
func checkIgnore(ctx context.Context, root string, dirs []string) (map[string]bool, bool) {
	cmd := exec.CommandContext(ctx, "git", "-C", root, "check-ignore", "-z", "--stdin")
	cmd.Stdin = strings.NewReader(strings.Join(dirs, "\x00") + "\x00")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		// Exit status 1: none of them is ignored.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return nil, false
		}
	}
	ignored := map[string]bool{}
	for _, d := range strings.Split(out.String(), "\x00") {
		if d != "" {
			ignored[strings.TrimSuffix(d, "/")] = true
		}
	}
	return ignored, true
}

// findGitDir returns the git directory of the work tree holding root and
// the work tree's top, or "" when there is none. A .git file (a linked
// work tree, a submodule) names its directory.
func findGitDir(root string) (gitDir, top string) {
	for d := root; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		if err == nil {
			if fi.IsDir() {
				return p, d
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return "", ""
			}
			g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return "", ""
			}
			g = strings.TrimSpace(g)
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			return g, d
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// globalIgnore is the per-user ignore file git reads by default
// ($XDG_CONFIG_HOME/git/ignore). A core.excludesFile set elsewhere is
// not watched: a change to it shows at the next listing.
func globalIgnore() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "git", "ignore")
	}
	return ""
}
