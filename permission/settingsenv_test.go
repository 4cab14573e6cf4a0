package permission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSettingsEnv(t *testing.T) {
	ws, home, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, body string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"env": {"A": "claude-user", "B": "claude-user"}}`)
	write(filepath.Join(cfg, "settings.json"), `{"env": {"B": "rein-user"}}`)
	write(filepath.Join(ws, ".claude", "settings.json"), `{"env": {"C": "project"}, "permissions": {"allow": ["Read"]}}`)
	o := LoadOptions{Workspace: ws, Home: home, ConfigDir: cfg, Trusted: true}
	env, warns, err := SettingsEnv(o)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if want := []string{"A=claude-user", "B=rein-user", "C=project"}; !slices.Equal(env, want) {
		t.Errorf("trusted: %q, want %q", env, want)
	}
	// An untrusted workspace's env is left out, and said.
	o.Trusted = false
	env, warns, err = SettingsEnv(o)
	if err != nil || slices.Contains(env, "C=project") || len(warns) != 1 || !strings.Contains(warns[0], "env (C) is ignored until you trust") {
		t.Errorf("untrusted: %q %q %v", env, warns, err)
	}
	// A value that is not a string names the file and the key.
	write(filepath.Join(ws, ".rein", "settings.json"), `{"env": {"N": 3}}`)
	o.Trusted = true
	if _, _, err := SettingsEnv(o); err == nil || !strings.Contains(err.Error(), ".rein/settings.json: env.N is 3: give a string") {
		t.Errorf("a number: %v", err)
	}
}
