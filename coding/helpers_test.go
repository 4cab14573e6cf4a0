package coding

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		sandbox.RemovePrivateTemp()
		os.Exit(code)
	}))
}

// testEnv is an isolated environment: a home of its own (so no user
// config, settings or trust of the machine apply) and the sandbox as the
// test asks.
type testEnv struct {
	home string
	vars map[string]string
	mu   sync.Mutex
	warn []string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	home := t.TempDir()
	return &testEnv{home: home, vars: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "PATH": os.Getenv("PATH")}}
}

func (e *testEnv) getenv(k string) string { return e.vars[k] }

func (e *testEnv) warned(msg string) {
	e.mu.Lock()
	e.warn = append(e.warn, msg)
	e.mu.Unlock()
}

func (e *testEnv) warnings() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.warn...)
}

// options opens dir with the scripted model replies.
func (e *testEnv) options(dir string, replies ...faux.Reply) Options {
	return Options{Workdir: dir, Provider: faux.New(replies...), ModelInfo: faux.Model(), Getenv: e.getenv, Warn: e.warned,
		Environ: func() []string { return []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")} }}
}

// write writes files under dir, making their folders.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
