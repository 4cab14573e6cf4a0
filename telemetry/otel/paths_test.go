package otel

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/telemetry/otelpipe"
)

var companion struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// builtCompanion builds cmd/rein-otel once per test binary: the program
// that rein starts to export.
func builtCompanion(t testing.TB) string {
	t.Helper()
	companion.once.Do(func() {
		companion.dir, companion.err = os.MkdirTemp("", "rein-otel-test-")
		if companion.err != nil {
			return
		}
		companion.path = filepath.Join(companion.dir, otelpipe.Companion)
		cmd := exec.Command("go", "build", "-o", companion.path, "github.com/reinhq/rein/cmd/rein-otel")
		companion.out, companion.err = cmd.CombinedOutput()
	})
	if companion.err != nil {
		t.Fatalf("building rein-otel: %v\n%s", companion.err, companion.out)
	}
	return companion.path
}

// bothPaths runs test with the exporter in process (as a library user
// embeds it) and through the built rein-otel fed by otelpipe (as the
// rein program exports).
func bothPaths(t *testing.T, test func(*testing.T, telemetry.TraceSetup)) {
	t.Run("in-process", func(t *testing.T) { test(t, Setup) })
	t.Run("rein-otel", func(t *testing.T) { test(t, otelpipe.With(builtCompanion(t))) })
}
