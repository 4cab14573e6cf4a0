package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The test binary doubles as the rein command for tests that need a
	// real process (to kill it, say).
	if os.Getenv("REIN_TEST_MAIN") == "1" {
		main()
		return
	}
	goleak.VerifyTestMain(m)
}

// runCLI runs rein with args and returns the exit code and outputs.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code := execute(context.Background(), e, args)
	return code, out.String(), errOut.String()
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runCLI(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "rein ") {
		t.Fatalf("version: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "", "--help")
	if code != 0 || !strings.Contains(out, "rein demo") || !strings.Contains(out, "run") {
		t.Fatalf("help: %d %q", code, out)
	}
}
