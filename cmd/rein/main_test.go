package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

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
