package guard

import (
	"errors"
	"io/fs"
	"os"
)

// NoConfigFileError is LoadFor's error for a named configuration file
// that does not exist: a configuration asked for by name is not
// silently replaced by the defaults. It wraps fs.ErrNotExist.
type NoConfigFileError struct{ Path string }

func (e *NoConfigFileError) Error() string { return "no such file: " + e.Path }
func (e *NoConfigFileError) Unwrap() error { return fs.ErrNotExist }

// LoadFor returns the configuration a tool uses that takes an optional
// configuration file, such as an offline replay: the file when one is
// named, merged over DefaultConfig, else the configuration of the
// workspace at workdir (Loader.Load), the process's working directory
// when workdir is "". A named file that does not exist is a
// *NoConfigFileError; any other problem with the file, or with the
// workspace's, goes to warn (nil drops it) and the valid part of the file
// is used, as LoadConfig does.
func LoadFor(file, workdir string, warn func(string)) (Config, error) {
	if file != "" {
		c, err := LoadConfig(file)
		if errors.Is(err, fs.ErrNotExist) {
			return c, &NoConfigFileError{Path: file}
		}
		if err != nil && warn != nil {
			warn(err.Error())
		}
		return c, nil
	}
	if workdir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return DefaultConfig(), err
		}
		workdir = wd
	}
	return (&Loader{Warn: warn}).Load(workdir), nil
}
