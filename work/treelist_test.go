package work

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// age sets the modification time of everything under dir (the git
// directory included) an hour back: a work tree written a while ago,
// whose stamps the hasher may trust.
func age(tb testing.TB, dir string) {
	tb.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func (t *TreeHasher) calls() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gitCalls
}

// hashStep hashes dir and reports the hash and the git calls it took.
func hashStep(t *testing.T, h *TreeHasher, dir string) (string, int) {
	t.Helper()
	before := h.calls()
	s, err := h.Hash(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, h.calls() - before
}

// TestTreeHashKeepsListing: a hash of a tree where no file was created,
// removed or renamed runs no git, while every change still changes the
// hash as a fresh hasher (which lists with git) sees it.
func TestTreeHashKeepsListing(t *testing.T) {
	dir := gitRepo(t)
	write(t, dir, ".gitignore", "build/\n")
	write(t, dir, "pkg/b.go", "package pkg\n")
	for _, d := range []string{"build", "empty", "pkg/sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	age(t, dir)
	var h TreeHasher
	fresh := func() string {
		t.Helper()
		var f TreeHasher
		s, err := f.Hash(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	h0, n := hashStep(t, &h, dir)
	if n != 2 || h0 != fresh() {
		t.Fatalf("first hash: %d git calls (want ls-files and one check-ignore of the directories without files)", n)
	}
	if h1, n := hashStep(t, &h, dir); n != 0 || h1 != h0 {
		t.Fatalf("unchanged tree: %d git calls, hash changed %v", n, h1 != h0)
	}
	steps := []struct {
		name    string
		change  func()
		same    bool // the hash stays
		maxGit  int
		minimum int
	}{
		{"edit in place", func() { write(t, dir, "a.txt", "two\n") }, false, 0, 0},
		{"same size again", func() { write(t, dir, "a.txt", "one\n") }, false, 0, 0},
		{"file in an ignored directory", func() { write(t, dir, "build/out.bin", "x") }, true, 1, 0},
		{"file in an empty directory", func() { write(t, dir, "empty/new.go", "package empty\n") }, false, 2, 1},
		{"file in a nested empty directory", func() { write(t, dir, "pkg/sub/c.go", "package sub\n") }, false, 2, 1},
		{"delete an untracked file", func() { os.Remove(filepath.Join(dir, "pkg/b.go")) }, false, 2, 1},
		{"un-ignore a directory", func() { write(t, dir, ".gitignore", "nothing\n") }, false, 2, 1},
		{"git add", func() { git(t, dir, "add", "-A") }, true, 2, 1},
		{"under .rein", func() { write(t, dir, ".rein/sessions/x.jsonl", "{}\n") }, true, 2, 0},
	}
	prev := h0
	for _, s := range steps {
		s.change()
		got, n := hashStep(t, &h, dir)
		if want := fresh(); got != want {
			t.Fatalf("%s: the kept listing gives %s, a fresh one %s", s.name, got, want)
		}
		if (got == prev) != s.same {
			t.Fatalf("%s: hash changed %v, want %v", s.name, got != prev, !s.same)
		}
		if n > s.maxGit || n < s.minimum {
			t.Fatalf("%s: %d git calls, want %d to %d", s.name, n, s.minimum, s.maxGit)
		}
		prev = got
		age(t, dir)
		if again, n := hashStep(t, &h, dir); again != got || n > 2 {
			t.Fatalf("%s: settled tree: hash changed %v, %d git calls", s.name, again != got, n)
		}
		if _, n := hashStep(t, &h, dir); n != 0 {
			t.Fatalf("%s: an unchanged, settled tree took %d git calls", s.name, n)
		}
	}
}

// TestTreeHashSameTick: an edit right after a hash, of the same size and
// within the same timestamp tick (the modification time put back as it
// was), still changes the next hash: young stamps are not trusted.
func TestTreeHashSameTick(t *testing.T) {
	dir := gitRepo(t)
	p := filepath.Join(dir, "a.txt")
	// The file's stamp is as young as the hash (the tick of its last
	// write is not over): set ahead of the clock, whatever the load.
	tick := time.Now().Add(time.Second)
	if err := os.Chtimes(p, tick, tick); err != nil {
		t.Fatal(err)
	}
	var h TreeHasher
	h1, _ := hashStep(t, &h, dir)
	write(t, dir, "a.txt", "two\n")
	if err := os.Chtimes(p, tick, tick); err != nil {
		t.Fatal(err)
	}
	if h2, _ := hashStep(t, &h, dir); h2 == h1 {
		t.Fatal("an edit within the same tick kept the hash")
	}
}

// TestEvidenceStaleAfterEdit: evidence a check took goes stale with the
// next edit even when the hasher runs no git in between.
func TestEvidenceStaleAfterEdit(t *testing.T) {
	dir := gitRepo(t)
	age(t, dir)
	var h TreeHasher
	o := CommandOptions{Dir: dir, Hasher: &h, Sandbox: sandboxOff()}
	ev, err := RunCommand(context.Background(), o, "true")
	if err != nil {
		t.Fatal(err)
	}
	now, _ := hashStep(t, &h, dir)
	if !ev.Fresh(now) {
		t.Fatal("evidence on an unchanged tree is stale")
	}
	write(t, dir, "a.txt", "edited after the check\n")
	now, n := hashStep(t, &h, dir)
	if ev.Fresh(now) || n != 0 {
		t.Fatalf("after an edit: fresh=%v, %d git calls", ev.Fresh(now), n)
	}
}

// TestTreeHashYoungDirectory: a directory whose stamp is too young to
// trust keeps the listing while its entries are the same (no git runs),
// and a file created in it within the same tick (the directory's
// modification time put back as it was) still changes the next hash.
func TestTreeHashYoungDirectory(t *testing.T) {
	dir := gitRepo(t)
	write(t, dir, "pkg/a.go", "package pkg\n")
	age(t, dir)
	var h TreeHasher
	h0, _ := hashStep(t, &h, dir)
	write(t, dir, "pkg/new.go", "package pkg\n")
	d := filepath.Join(dir, "pkg")
	// The directory's tick is not over: set ahead of the clock, whatever
	// the load.
	tick := time.Now().Add(time.Second)
	if err := os.Chtimes(d, tick, tick); err != nil {
		t.Fatal(err)
	}
	h1, n := hashStep(t, &h, dir)
	if h1 == h0 || n != 1 {
		t.Fatalf("a new file: hash changed %v, %d git calls (want 1)", h1 != h0, n)
	}
	if h2, n := hashStep(t, &h, dir); h2 != h1 || n != 0 {
		t.Fatalf("young directory, same entries: hash changed %v, %d git calls (want 0)", h2 != h1, n)
	}
	write(t, dir, "pkg/other.go", "package pkg\n")
	if err := os.Chtimes(d, tick, tick); err != nil {
		t.Fatal(err)
	}
	h3, n := hashStep(t, &h, dir)
	if h3 == h1 || n != 1 {
		t.Fatalf("a file created within the directory's tick: hash changed %v, %d git calls (want 1)", h3 != h1, n)
	}
	var fresh TreeHasher
	if want, _ := hashStep(t, &fresh, dir); h3 != want {
		t.Fatal("the kept listing differs from a fresh one")
	}
}
