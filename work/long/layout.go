package long

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
)

// Layout names the files of long mode and its limits. Paths are relative
// to the workspace root.
type Layout struct {
	Preset Preset
	// Progress, Notes and Setup are the progress file, the notes file and
	// the set-up script.
	Progress, Notes, Setup string
	// VerifyTimeout bounds a verify command that names no timeout;
	// SetupTimeout bounds the set-up script.
	VerifyTimeout, SetupTimeout time.Duration
	// MaxFailures stops a run when one task has ended that many sessions
	// without passing its verify commands.
	MaxFailures int
	// NotesTail is how many bytes of the end of the notes file a worker's
	// prompt carries.
	NotesTail int
}

// Default limits.
const (
	DefaultVerifyTimeout = 5 * time.Minute
	DefaultSetupTimeout  = 5 * time.Minute
	DefaultMaxFailures   = 3
	DefaultNotesTail     = 4000
)

// DefaultLayout returns the file names of preset with the default limits.
// An unknown preset gets the rein layout.
func DefaultLayout(p Preset) Layout {
	l := Layout{Preset: PresetRein, Progress: "agent-progress.json", Notes: "agent-notes.md", Setup: "workspace.sh",
		VerifyTimeout: DefaultVerifyTimeout, SetupTimeout: DefaultSetupTimeout, MaxFailures: DefaultMaxFailures, NotesTail: DefaultNotesTail}
	if p == PresetAnthropic {
		l.Preset, l.Progress, l.Notes, l.Setup = PresetAnthropic, "feature_list.json", "claude-progress.txt", "init.sh"
	}
	return l
}

// ConfigFile is the workspace's long-mode config file.
func ConfigFile(root string) string { return filepath.Join(root, ".rein", "long.json") }

// fileConfig is .rein/long.json.
type fileConfig struct {
	Preset        Preset `json:"preset,omitempty"`
	Progress      string `json:"progress,omitempty"`
	Notes         string `json:"notes,omitempty"`
	Setup         string `json:"setup,omitempty"`
	VerifyTimeout string `json:"verify_timeout,omitempty"`
	SetupTimeout  string `json:"setup_timeout,omitempty"`
	MaxFailures   int    `json:"max_failures,omitempty"`
	NotesTail     int    `json:"notes_tail,omitempty"`
}

// Overrides are the command line's choices; empty fields keep the
// config file's (or the preset's) values.
type Overrides struct {
	Preset                 Preset
	Progress, Notes, Setup string
	MaxFailures            int
}

// LoadLayout resolves the layout of the workspace root: the preset's
// names, then .rein/long.json, then o. A malformed config file is a
// *FileError with its line.
func LoadLayout(root string, o Overrides) (Layout, error) {
	path := ConfigFile(root)
	var fc fileConfig
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Layout{}, err
	default:
		if err := json.Unmarshal(data, &fc, json.RejectUnknownMembers(true)); err != nil {
			return Layout{}, configError(path, data, err)
		}
	}
	preset := fc.Preset
	if o.Preset != "" {
		preset = o.Preset
	}
	switch preset {
	case "", PresetRein, PresetAnthropic:
	default:
		if o.Preset != "" {
			return Layout{}, presetError(preset)
		}
		return Layout{}, &FileError{File: path, Line: lineOf(data, `"preset"`), Msg: presetError(preset).Error()}
	}
	l := DefaultLayout(preset)
	set := func(dst *string, vals ...string) {
		for _, v := range vals {
			if v != "" {
				*dst = v
			}
		}
	}
	set(&l.Progress, fc.Progress, o.Progress)
	set(&l.Notes, fc.Notes, o.Notes)
	set(&l.Setup, fc.Setup, o.Setup)
	for _, d := range []struct {
		text, key string
		dst       *time.Duration
	}{{fc.VerifyTimeout, "verify_timeout", &l.VerifyTimeout}, {fc.SetupTimeout, "setup_timeout", &l.SetupTimeout}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil || v <= 0 {
			return Layout{}, &FileError{File: path, Line: lineOf(data, `"`+d.key+`"`), Msg: fmt.Sprintf("%s %q is not a positive duration such as 90s or 5m", d.key, d.text)}
		}
		*d.dst = v
	}
	if fc.MaxFailures < 0 {
		return Layout{}, &FileError{File: path, Line: lineOf(data, `"max_failures"`), Msg: "max_failures is negative"}
	}
	if fc.MaxFailures > 0 {
		l.MaxFailures = fc.MaxFailures
	}
	if o.MaxFailures > 0 {
		l.MaxFailures = o.MaxFailures
	}
	if fc.NotesTail > 0 {
		l.NotesTail = fc.NotesTail
	}
	return l, l.check(path, data)
}

// CheckPreset reports an unknown preset name.
func CheckPreset(p Preset) error {
	switch p {
	case "", PresetRein, PresetAnthropic:
		return nil
	}
	return presetError(p)
}

func presetError(p Preset) error {
	return fmt.Errorf("unknown preset %q: use rein (agent-progress.json, agent-notes.md, workspace.sh) or anthropic (feature_list.json, claude-progress.txt, init.sh)", p)
}

// check refuses file names outside the workspace, inside .rein/ or the
// same for two files.
func (l Layout) check(path string, data []byte) error {
	seen := map[string]string{}
	for _, f := range []struct{ key, name string }{{"progress", l.Progress}, {"notes", l.Notes}, {"setup", l.Setup}} {
		clean := filepath.Clean(f.name)
		bad := ""
		switch {
		case filepath.IsAbs(f.name):
			bad = "is absolute: name a file inside the workspace, relative to its root"
		case clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)):
			bad = "leads outside the workspace"
		case clean == ".rein" || strings.HasPrefix(clean, ".rein"+string(filepath.Separator)):
			bad = "is inside .rein/, which git does not track: long mode's files are committed with the work"
		case seen[clean] != "":
			bad = "is also the " + seen[clean] + " file"
		}
		if bad != "" {
			return &FileError{File: path, Line: lineOf(data, `"`+f.key+`"`), Msg: fmt.Sprintf("%s file %q %s", f.key, f.name, bad)}
		}
		seen[clean] = f.key
	}
	return nil
}

// lineOf is the line of the first occurrence of s in data, or 0.
func lineOf(data []byte, s string) int {
	if i := bytes.Index(data, []byte(s)); i >= 0 {
		return lineAt(data, int64(i))
	}
	return 0
}

func configError(path string, data []byte, err error) error {
	var se *json.SemanticError
	if errors.As(err, &se) {
		msg := err.Error()
		if se.Err != nil && strings.Contains(se.Err.Error(), "unknown object member") {
			msg = fmt.Sprintf("unknown field %q (fields: preset, progress, notes, setup, verify_timeout, setup_timeout, max_failures, notes_tail)", lastToken(string(se.JSONPointer)))
		}
		return &FileError{File: path, Line: lineAt(data, se.ByteOffset), Msg: msg}
	}
	if fe, ok := syntaxError(path, data, err).(*FileError); ok && fe.Line > 0 {
		fe.Msg = strings.Replace(fe.Msg, "task list", "config object", 1)
		return fe
	}
	return &FileError{File: path, Msg: err.Error()}
}
