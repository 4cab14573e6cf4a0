package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// SettingsEnv reads the env objects of the settings files (Claude Code's
// "env": variables for every session) and returns them as KEY=VALUE,
// sorted, a more specific file's value winning. A project file's env
// counts only when o.TrustedFile (or o.Trusted) says the user trusts it:
// otherwise it is skipped (with a warning when o.TrustedFile is unset), since a cloned repository must
// not choose the environment of the commands rein runs. A value that is
// not a string is an error naming the file and the key.
func SettingsEnv(o LoadOptions) (env []string, warnings []string, err error) {
	vars := map[string]string{}
	for _, f := range SettingsPaths(o.Workspace, o.Home, o.ConfigDir) {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading settings %s: %w", f.Path, err)
		}
		var file struct {
			Env map[string]json.RawMessage `json:"env"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			// LoadSettings reports a malformed file with its line.
			continue
		}
		if len(file.Env) == 0 {
			continue
		}
		trusted := o.Trusted
		if o.TrustedFile != nil {
			trusted = o.TrustedFile(f.Path)
		}
		if f.Project && !trusted {
			// With TrustedFile the caller names the untrusted files in one
			// notice, as LoadSettings does.
			if o.TrustedFile == nil {
				warnings = append(warnings, fmt.Sprintf("%s: env (%s) is ignored until you trust this workspace (rein trust)",
					f.Path, strings.Join(slices.Sorted(maps.Keys(file.Env)), ", ")))
			}
			continue
		}
		for k, raw := range file.Env {
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, nil, fmt.Errorf("settings %s: env.%s is %s: give a string, such as \"1\"", f.Path, k, raw)
			}
			if k == "" {
				return nil, nil, fmt.Errorf("settings %s: env has an empty name", f.Path)
			}
			vars[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env, warnings, nil
}
