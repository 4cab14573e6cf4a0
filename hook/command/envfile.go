package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// EnvFileVar names the file a SessionStart hook may write `export
// NAME=value` lines to; the variables reach every later bash command of
// the session, as in Claude Code.
const EnvFileVar = "CLAUDE_ENV_FILE"

// maxEnvFile bounds the env file read; a larger one is read up to it,
// with a note.
const maxEnvFile = 256 << 10

// envFileEvents orders the env files by the event that wrote them, as
// Claude Code does (Setup, SessionStart, CwdChanged, FileChanged).
var envFileEvents = []string{"setup", "sessionstart", "cwdchanged", "filechanged"}

var envFileName = regexp.MustCompile(`^(setup|sessionstart|cwdchanged|filechanged)-hook-(\d+)\.sh$`)

// EnvFilePath is the CLAUDE_ENV_FILE of the index-th hook (counted from
// 0 among the hooks that run) of ev in dir, named as Claude Code names
// it: sessionstart-hook-0.sh.
func EnvFilePath(dir string, ev Event, index int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-hook-%d.sh", strings.ToLower(string(ev)), index))
}

// EnvNote is a line of an env file that was not applied, or a file that
// could not be read (Line 0).
type EnvNote struct {
	File string
	Line int
	// Text is the line as written (clipped).
	Text   string
	Reason string
}

func (n EnvNote) String() string {
	if n.Line == 0 {
		return fmt.Sprintf("%s: %s", n.File, n.Reason)
	}
	return fmt.Sprintf("%s:%d: %s, not applied: %s", n.File, n.Line, n.Reason, n.Text)
}

// ReadEnvDir reads the env files hooks wrote in dir, in Claude Code's
// order (by event, then by the hook's index), and returns the variables
// they set as NAME=value (a later assignment of a name wins) and a note
// for each line it did not apply and each file it could not read. A
// missing dir is no files. base is the environment the values expand
// against ($NAME, ${NAME}); the variables set by earlier lines count too.
//
// The files are read, not run: a line may be blank, a # comment, or
// `[export |declare -x ]NAME=value ...` with the value unquoted, in
// single quotes or in double quotes. Anything else — command
// substitution, other commands, functions — is a note, and the other
// lines still apply.
func ReadEnvDir(dir string, base []string) (vars []string, notes []EnvNote) {
	return ReadEnvFiles("", dir, base)
}

// ReadEnvFiles is ReadEnvDir with the file preset read first: the
// CLAUDE_ENV_FILE of the harness's own environment, which Claude Code
// applies to its shell commands before its hooks' files, so that a
// hook's assignment wins. A preset that does not exist is no file.
func ReadEnvFiles(preset, dir string, base []string) (vars []string, notes []EnvNote) {
	var paths []string
	if preset != "" {
		if _, err := os.Stat(preset); err == nil || !errors.Is(err, fs.ErrNotExist) {
			paths = append(paths, preset)
		}
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			notes = append(notes, EnvNote{File: dir, Reason: "cannot list the env files: " + err.Error()})
		}
		var names []string
		for _, e := range ents {
			if envFileName.MatchString(e.Name()) {
				names = append(names, e.Name())
			}
		}
		slices.SortFunc(names, compareEnvFiles)
		for _, n := range names {
			paths = append(paths, filepath.Join(dir, n))
		}
	}
	if len(paths) == 0 {
		return nil, notes
	}
	env := newEnvState(base)
	for _, p := range paths {
		data, err := readEnvFile(p)
		if err != nil {
			notes = append(notes, EnvNote{File: p, Reason: "cannot read: " + err.Error()})
			continue
		}
		if len(data) == maxEnvFile {
			notes = append(notes, EnvNote{File: p, Reason: fmt.Sprintf("larger than %d KB; only its start is read", maxEnvFile>>10)})
		}
		notes = append(notes, env.apply(p, string(data))...)
	}
	return env.result(), notes
}

func readEnvFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	buf := make([]byte, maxEnvFile)
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	return buf[:n], nil
}

func compareEnvFiles(a, b string) int {
	ma, mb := envFileName.FindStringSubmatch(a), envFileName.FindStringSubmatch(b)
	if c := slices.Index(envFileEvents, ma[1]) - slices.Index(envFileEvents, mb[1]); c != 0 {
		return c
	}
	ia, _ := strconv.Atoi(ma[2])
	ib, _ := strconv.Atoi(mb[2])
	return ia - ib
}
