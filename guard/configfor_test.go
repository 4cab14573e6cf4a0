package guard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LoadFor takes the named file, else the workspace's; a named file that
// is missing is an error, a malformed one a warning.
func TestLoadFor(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.json")
	os.WriteFile(file, []byte(`{"readCache": "copy"}`), 0o600)
	var warns []string
	warn := func(s string) { warns = append(warns, s) }
	c, err := LoadFor(file, "", warn)
	if err != nil || c.ReadCache != "copy" || warns != nil {
		t.Fatalf("named file: %+v %v %q", c.ReadCache, err, warns)
	}

	missing := filepath.Join(dir, "none.json")
	_, err = LoadFor(missing, "", warn)
	var nf *NoConfigFileError
	if !errors.As(err, &nf) || !errors.Is(err, fs.ErrNotExist) || err.Error() != "no such file: "+missing {
		t.Errorf("missing file: %v", err)
	}

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"readCache": `), 0o600)
	c, err = LoadFor(bad, "", warn)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], bad) {
		t.Errorf("malformed file: %v %q", err, warns)
	}
	if def := DefaultConfig(); c.ReadCache != def.ReadCache {
		t.Errorf("malformed file gave %q, not the default", c.ReadCache)
	}
	if _, err := LoadFor(bad, "", nil); err != nil {
		t.Errorf("nil warn: %v", err)
	}

	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".rein"), 0o700)
	os.WriteFile(filepath.Join(ws, ".rein", "harness-config.json"), []byte(`{"readCache": "copy"}`), 0o600)
	if c, err := LoadFor("", ws, warn); err != nil || c.ReadCache != "copy" {
		t.Errorf("workspace config: %q %v", c.ReadCache, err)
	}
	t.Chdir(ws)
	if c, err := LoadFor("", "", warn); err != nil || c.ReadCache != "copy" {
		t.Errorf("the working directory's config: %q %v", c.ReadCache, err)
	}
	if c, err := LoadFor("", t.TempDir(), warn); err != nil || c.ReadCache != DefaultConfig().ReadCache {
		t.Errorf("no config: %q %v", c.ReadCache, err)
	}
}
