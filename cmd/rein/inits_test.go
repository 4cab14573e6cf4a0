package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Start-up stays lean: no package initialiser in rein's binary may
// allocate more than 256 KiB (rein's own packages 64 KiB: a regexp or a
// table they need only on some paths is built on first use), nor all of
// them together more than 2 MiB, as the runtime reports with
// GODEBUG=inittrace=1. Bytes allocated,
// unlike milliseconds, do not depend on how busy the machine is; a
// regexp with Unicode classes or a table built at init shows up here.
func TestInitsStayLean(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--version")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rein --version: %v\n%s", err, stderr.String())
	}
	const perPackage, perOwn, total = 256 << 10, 64 << 10, 2 << 20
	sum, n := 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PACKAGE @T ms, D ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("cannot read %q", sc.Text())
		}
		n++
		sum += b
		if b > perPackage && !strings.HasPrefix(f[1], "testing") {
			t.Errorf("package %s allocates %d KiB at init (at most %d KiB)", f[1], b>>10, perPackage>>10)
		}
		if b > perOwn && strings.HasPrefix(f[1], "github.com/reinhq/rein/") {
			t.Errorf("package %s allocates %d KiB at init (at most %d KiB for rein's own)", f[1], b>>10, perOwn>>10)
		}
	}
	if n == 0 {
		t.Fatalf("no init trace in:\n%s", stderr.String())
	}
	if sum > total {
		t.Errorf("package initialisers allocate %d KiB together (at most %d KiB)", sum>>10, total>>10)
	}
}
