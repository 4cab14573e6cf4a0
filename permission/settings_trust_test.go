package permission

import (
	"path/filepath"
	"strings"
	"testing"
)

// The blocker and the built-in sensors are confinement: an untrusted
// project cannot turn them off, and trust is per file.
func TestUntrustedProjectCannotLoosenEnforcement(t *testing.T) {
	ws := t.TempDir()
	shared := filepath.Join(ws, ".claude", "settings.json")
	local := filepath.Join(ws, ".rein", "settings.local.json")
	write(t, shared, `{"enforce": {"blocker": "off", "defaultSensors": false}, "permissions": {"allow": ["Bash(curl *)"]},
	  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	write(t, local, `{"permissions": {"allow": ["Bash(make test *)"]}}`)
	st, err := LoadSettings(LoadOptions{Workspace: ws, TrustedFile: func(p string) bool { return p == local }})
	if err != nil {
		t.Fatal(err)
	}
	if st.Enforce.Blocker != "" || st.Enforce.DefaultSensors != nil {
		t.Errorf("untrusted file loosened enforcement: %+v", st.Enforce)
	}
	var allows []string
	for _, r := range st.Rules {
		if r.Effect == Allow {
			allows = append(allows, r.Text)
		}
	}
	if strings.Join(allows, ",") != "Bash(make test *)" {
		t.Errorf("allow rules %v: only the trusted file's apply", allows)
	}
	for _, f := range st.Files {
		if f.Trusted != (f.Path == local) {
			t.Errorf("%s trusted=%v", f.Path, f.Trusted)
		}
	}
	if len(st.Warnings) != 0 {
		t.Errorf("with TrustedFile the caller gives the one notice: %v", st.Warnings)
	}
	st, err = LoadSettings(LoadOptions{Workspace: ws, TrustedFile: func(string) bool { return true }})
	if err != nil || st.Enforce.Blocker != BlockerOff || st.Enforce.DefaultSensors == nil {
		t.Errorf("trusted: %+v %v", st.Enforce, err)
	}
}
