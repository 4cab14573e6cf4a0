package work

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/reinhq/rein/internal/cputime"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/session"
)

// BenchmarkVerifyOverhead measures what a contract check adds to the
// command it runs: hashing the tracked tree of a 200-file git repository
// (before and after), starting the command, judging it and writing its
// verification entry to a session file. Each iteration changes the tree
// first, so the evidence is never reused: "edit" rewrites a tracked file
// in place (the listing is kept, no git runs); "new-file" adds an
// untracked file written a while before the check, as a model's edit is
// (git lists the tree again, once per check); "new-file-now" adds it
// just before the check, within the file system's timestamp tick, the
// worst case (git lists it once; after the command the directory's
// stamp is too young to trust, so its entry names are read again).
// overhead-ms is the check's time minus the same command run bare (exec
// of bash -c), measured in the same iteration; cpu-ms is this process's
// CPU time per check (the command's own runs in its child).
func BenchmarkVerifyOverhead(b *testing.B) {
	for _, mode := range []string{"edit", "new-file", "new-file-now"} {
		b.Run(mode, func(b *testing.B) { benchVerify(b, mode) })
	}
}

func benchVerify(b *testing.B, mode string) {
	dir := b.TempDir()
	gitB(b, dir, "init", "-q")
	for i := range 200 {
		writeB(b, dir, fmt.Sprintf("pkg%d/file%d.go", i%20, i), fmt.Sprintf("package pkg\n\n// File %d.\nvar X%d = %d\n", i, i, i))
	}
	gitB(b, dir, "add", ".")
	gitB(b, dir, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "init")
	age(b, dir) // a work tree written a while ago
	s, err := session.Create(session.Options{Dir: filepath.Join(b.TempDir(), "s")})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	p := Predicate{Type: PredCommand, Run: "true"}
	if err := p.check(); err != nil {
		b.Fatal(err)
	}
	v, err := NewVerifier(context.Background(), VerifierOptions{Predicates: []Predicate{p},
		Command: CommandOptions{Dir: dir, Sandbox: &sandbox.Policy{Mode: sandbox.Off}, Shell: "bash"},
		Record:  func(e session.Entry) error { _, err := s.Append(e); return err }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := v.Check(ctx, ""); err != nil { // the first listing
		b.Fatal(err)
	}
	var checkT, bareT, cpuT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if mode == "edit" {
			writeB(b, dir, "pkg0/file0.go", fmt.Sprintf("package pkg\n\nvar Y = %d\n", i))
		} else {
			name := fmt.Sprintf("pkg%d/new%d.go", i%20, i)
			writeB(b, dir, name, "package pkg\n")
			if mode == "new-file" {
				old := time.Now().Add(-time.Minute)
				for _, p := range []string{name, filepath.Dir(name)} {
					if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		b.StartTimer()
		c0, t0 := cputime.Self(), time.Now()
		rep, err := v.Check(ctx, "")
		checkT += time.Since(t0)
		cpuT += cputime.Self() - c0
		if err != nil || !rep.Met() {
			b.Fatal(err, rep.Detail())
		}
		t1 := time.Now()
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		bareT += time.Since(t1)
	}
	b.ReportMetric(float64(checkT.Microseconds())/1000/float64(b.N), "check-ms")
	b.ReportMetric(float64(bareT.Microseconds())/1000/float64(b.N), "command-ms")
	b.ReportMetric(float64((checkT-bareT).Microseconds())/1000/float64(b.N), "overhead-ms")
	b.ReportMetric(float64(cpuT.Microseconds())/1000/float64(b.N), "cpu-ms")
}

func gitB(b *testing.B, dir string, args ...string) {
	b.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeB(b *testing.B, dir, name, text string) {
	b.Helper()
	p := filepath.Join(dir, name)
	if err := mkdirWrite(p, text); err != nil {
		b.Fatal(err)
	}
}
