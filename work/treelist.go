package work

import (
	"bytes"
	"context"
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
type watched struct {
	path   string
	st     stamp
	ignore bool // a source of ignore rules (.gitignore, info/exclude)
}

// listing is the file list of a git work tree, kept with what it was
// derived from: every directory that may hold a file git would list
// (creating, removing or renaming a file there changes the directory),
// the index (git add, rm, commit, checkout) and the ignore rules. While
// none of them changed, the list is what git ls-files would print again.
type listing struct {
	files  []string // sorted, .rein left out
	watch  []watched
	racy   bool            // a stamp was too young to trust: list again next time
	ignore map[string]bool // directory -> ignored, for directories without listed files
	calls  int             // git invocations it took
}

// valid reports whether l still holds: nothing it watches changed.
// ignoreChanged reports whether an ignore source did.
func (l *listing) valid() (ok, ignoreChanged bool) {
	if l.racy {
		return false, false
	}
	ok = true
	for _, w := range l.watch {
		if statStamp(w.path) != w.st {
			if w.ignore {
				return false, true
			}
			ok = false
		}
	}
	return ok, false
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
	start := time.Now()
	l := &listing{ignore: map[string]bool{}}
	if prev != nil && keepIgnore {
		for d, v := range prev.ignore {
			l.ignore[d] = v
		}
	}
	// The sources of the list are stamped before git reads them, so a
	// change made while it runs shows next time.
	add := func(p string, ignore bool) {
		l.watch = append(l.watch, watched{path: p, st: statStamp(p), ignore: ignore})
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
			add(filepath.Join(root, filepath.FromSlash(f)), true)
		}
	}
	if !l.watchDirs(ctx, root, dirs) {
		return nil, false
	}
	for i := range l.watch {
		if st := l.watch[i].st; st.exists && !trusted(st.mtime, start) {
			l.racy = true
		}
	}
	return l, true
}

// watchDirs stamps the directories of dirs (relative, slash-separated)
// and every directory under them that is not ignored, though it holds
// no listed file yet: a file created there would be listed.
func (l *listing) watchDirs(ctx context.Context, root string, dirs map[string]bool) bool {
	queue := make([]string, 0, len(dirs))
	for d := range dirs {
		queue = append(queue, d)
	}
	for len(queue) > 0 {
		var unknown []string
		var next []string
		for _, d := range queue {
			abs := filepath.Join(root, filepath.FromSlash(d))
			l.watch = append(l.watch, watched{path: abs, st: statStamp(abs)})
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
