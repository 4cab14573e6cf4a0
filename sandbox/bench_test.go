//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// childCPU returns the user and system time of the waited-for children
// of this process so far, in milliseconds.
func childCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// BenchmarkStart measures starting and finishing `true` confined by each
// mechanism, against starting it directly: the start-up cost a bash call
// pays for its sandbox is the difference.
func BenchmarkStart(b *testing.B) {
	ws := b.TempDir()
	// A home outside /tmp, whose many entries on a busy machine would
	// each need a rule of their own (see readRules).
	home, err := os.MkdirTemp("/var/tmp", "rein-bench-home-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(home) })
	for _, d := range []string{".ssh", ".aws", ".config/gh", "src", ".cache"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", ".git/hooks/pre-push", ".claude/settings.json", ".rein/config.json"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(f)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte("{}"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	none := []string{}
	cases := []struct {
		name  string
		wrap  bool
		watch bool
		p     Policy
	}{
		{"direct", false, false, Policy{}},
		{"helper-only", true, false, Policy{Mode: Off}},
		{"landlock", true, false, Policy{Mode: WorkspaceWrite, Workspace: ws, Backend: Landlock, Hidden: none}},
		// As the bash tool runs it: credentials hidden, protected files
		// kept and checked.
		{"landlock-hidden-watched", true, true, Policy{Mode: WorkspaceWrite, Workspace: ws, Backend: Landlock, Hidden: DefaultHidden(home)}},
		{"bwrap", true, false, Policy{Mode: WorkspaceWrite, Workspace: ws, Backend: Bwrap}},
		{"bwrap-nonet", true, false, Policy{Mode: WorkspaceWrite, Workspace: ws, Backend: Bwrap, NoNetwork: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.p.Backend == Bwrap && !bwrapWorks() {
				b.Skip("no bwrap")
			}
			if c.p.Backend == Landlock && LandlockABI() == 0 {
				b.Skip("no Landlock")
			}
			before := childCPU()
			for range b.N {
				cmd := exec.Command("/bin/true")
				var w *Watch
				if c.watch {
					w = NewWatch(c.p)
				}
				if c.wrap {
					if _, err := Wrap(cmd, c.p); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				if _, err := w.Sweep(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/call")
			// CPU time of the started processes: steadier than wall time
			// on a loaded machine.
			b.ReportMetric((childCPU()-before)/float64(b.N), "cpu-ms/call")
		})
	}
}
