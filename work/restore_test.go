package work

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

// runs counts the lines a command appended to a file outside the
// workspace: how often it ran.
func runs(t *testing.T, counter string) int {
	t.Helper()
	b, err := os.ReadFile(counter)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestEvidenceReadBackAfterReopen: verification entries written before
// the process ended count after the session is reopened, while they
// were taken on the tree as it is: the passing command is not run
// again. After an edit they are stale and it runs; evidence the log
// lost (a torn last line) never counts.
func TestEvidenceReadBackAfterReopen(t *testing.T) {
	dir := gitRepo(t)
	counter := filepath.Join(t.TempDir(), "runs")
	pass := mustPred(t, Predicate{Type: PredCommand, Run: "echo run >> " + counter + " && grep -q one a.txt"})
	other := mustPred(t, Predicate{Type: PredCommand, Run: "true", Timeout: "30s"})
	s := newSession(t)
	v := newVerifier(t, dir, nil, persistTo(s), pass, other)
	ctx := context.Background()
	if rep, err := v.Check(ctx, ""); err != nil || !rep.Met() {
		t.Fatalf("first check: %v %s", err, rep.Detail())
	}
	if n := runs(t, counter); n != 1 {
		t.Fatalf("%d runs", n)
	}
	path := s.Path()
	s.Close()

	reopen := func() (*session.Session, *Verifier, int) {
		t.Helper()
		s, err := session.Open(path, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		v := newVerifier(t, dir, nil, persistTo(s), pass, other)
		return s, v, v.Restore(s.Entries())
	}
	s2, v2, kept := reopen()
	if kept != 2 {
		t.Fatalf("restored %d pieces of evidence, want 2", kept)
	}
	rep, err := v2.Check(ctx, "")
	if err != nil || !rep.Met() {
		t.Fatalf("check after reopen: %v %s", err, rep.Detail())
	}
	if n := runs(t, counter); n != 1 {
		t.Fatalf("a passing check on the same tree ran again after reopen (%d runs)", n)
	}
	// A predicate with another timeout is another check: its evidence
	// does not stand in for it.
	v3 := newVerifier(t, dir, nil, nil, mustPred(t, Predicate{Type: PredCommand, Run: pass.Run, Timeout: "1m"}))
	if v3.Restore(s2.Entries()) != 0 {
		t.Fatal("evidence taken under another timeout was restored")
	}

	// An edit after the crash: the logged evidence is stale.
	write(t, dir, "a.txt", "one, edited\n")
	if rep, err := v2.Check(ctx, ""); err != nil || !rep.Met() {
		t.Fatalf("check after an edit: %v %s", err, rep.Detail())
	}
	if n := runs(t, counter); n != 2 {
		t.Fatalf("stale evidence counted: %d runs, want 2", n)
	}
	s2.Close()

	// The process died while writing the entry of a run on a new tree:
	// its torn line is set aside, and the command runs again.
	write(t, dir, "a.txt", "one, edited twice\n")
	s3, err := session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vTorn := newVerifier(t, dir, nil, persistTo(s3), pass)
	if rep, err := vTorn.Check(ctx, ""); err != nil || !rep.Met() {
		t.Fatal(err, rep.Detail())
	}
	s3.Close()
	if n := runs(t, counter); n != 3 {
		t.Fatalf("%d runs", n)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"verification"`) {
		t.Fatalf("the last line is not the evidence: %s", last)
	}
	torn := strings.Join(lines[:len(lines)-1], "") + last[:len(last)/2]
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v4, _ := reopen()
	if rep, err := v4.Check(ctx, ""); err != nil || !rep.Met() {
		t.Fatal(err, rep.Detail())
	}
	if n := runs(t, counter); n != 4 {
		t.Fatalf("evidence the log lost counted: %d runs, want 4", n)
	}
}
