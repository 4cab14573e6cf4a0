package coding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/reinhq/rein/llm/catalog"
)

// WorkspaceError is returned by Open when the workspace directory cannot
// be used: it does not exist, is a file, or cannot be read.
type WorkspaceError struct {
	Dir string
	Err error
}

func (e *WorkspaceError) Error() string {
	switch {
	case errors.Is(e.Err, os.ErrNotExist):
		return fmt.Sprintf("the workspace %s does not exist", e.Dir)
	case errors.Is(e.Err, errNotDir):
		return fmt.Sprintf("the workspace %s is a file, not a directory", e.Dir)
	}
	return fmt.Sprintf("cannot use the workspace %s: %v", e.Dir, e.Err)
}

func (e *WorkspaceError) Unwrap() error { return e.Err }

var errNotDir = errors.New("not a directory")

// ConfigError is returned by Open when a config file of the workspace or
// the user cannot be read or is malformed. File names the file; Line is
// the line of the problem when it is known (0 otherwise). Nothing was
// started and no session was locked.
type ConfigError struct {
	File string
	Line int
	Err  error
}

func (e *ConfigError) Error() string {
	msg := e.Err.Error()
	if e.File == "" || strings.Contains(msg, e.File) {
		return msg
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.File, msg)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// configError wraps err, from reading one of files, as a *ConfigError:
// the file is the one err names (else the first), the line the one err
// names after it, else where the file's JSON breaks.
func configError(err error, files ...string) error {
	if err == nil {
		return nil
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		return err
	}
	var cat *catalog.ConfigError
	if errors.As(err, &cat) {
		return &ConfigError{File: cat.File, Line: cat.Line, Err: err}
	}
	msg := err.Error()
	file := ""
	for _, f := range files {
		if f != "" && strings.Contains(msg, f) {
			file = f
			break
		}
	}
	if file == "" && len(files) > 0 {
		file = files[0]
	}
	line := 0
	if file != "" {
		if m := regexp.MustCompile(regexp.QuoteMeta(file) + `:(\d+)`).FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
		} else if data, rerr := os.ReadFile(file); rerr == nil {
			line = jsonErrorLine(data)
		}
	}
	return &ConfigError{File: file, Line: line, Err: err}
}

// jsonErrorLine is the line where data stops being valid JSON, or 0.
func jsonErrorLine(data []byte) int {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lineAt(data, se.Offset)
	}
	return 0
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
