package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.RunHelper()
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		sandbox.RemovePrivateTemp()
		os.Exit(code)
	}))
}

// noSandbox turns the sandbox off, for tests that look at process ids
// from outside (a PID namespace renumbers them).
var noSandbox = &sandbox.Policy{Mode: sandbox.Off}

// newWorkspace returns a workspace in a fresh temporary directory.
func newWorkspace(t testing.TB) Workspace {
	t.Helper()
	w, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// put writes files below root; names ending in / become directories.
func put(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// call runs one tool call through the registry, so that arguments are
// validated against the schema first.
func call(t testing.TB, reg *tool.Registry, name, args string) tool.Result {
	t.Helper()
	return callCtx(context.Background(), t, reg, name, args)
}

func callCtx(ctx context.Context, t testing.TB, reg *tool.Registry, name, args string) tool.Result {
	t.Helper()
	c := &tool.Call{ID: "call-1", Name: name, Args: json.RawMessage(args), Tool: reg.Get(name)}
	return reg.Execute(ctx, c)
}

// registry returns the registry of one tool.
func registry(t testing.TB, tl *tool.Tool) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry(tl)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// args marshals v as tool arguments.
func args(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// expect checks a result's error flag and that its text holds every
// fragment.
func expect(t testing.TB, res tool.Result, isErr bool, fragments ...string) {
	t.Helper()
	text := res.Text()
	if res.IsError != isErr {
		t.Fatalf("IsError = %v, want %v; text:\n%s", res.IsError, isErr, text)
	}
	for _, f := range fragments {
		if !strings.Contains(text, f) {
			t.Fatalf("result does not contain %q; text:\n%s", f, text)
		}
	}
}

func readFileString(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
