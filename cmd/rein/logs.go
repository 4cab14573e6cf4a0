package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/telemetry/logs"
)

// openLogs builds the subsystem loggers REIN_LOG asks for
// (guard=debug,compact=info; a bare level means every subsystem). Lines
// go to REIN_LOG_FILE when set, else to .rein/logs/rein.log of the
// directory rein works in when the terminal UI owns the screen, else to
// standard error; a file's lines pass the redactor first. It returns nil
// when REIN_LOG is unset, and an error naming the problem when it cannot
// be read or the file cannot be opened. The returned function closes the
// file.
func openLogs(e *env, tui bool, workdir string) (*logs.Set, func(), error) {
	spec := e.getenv("REIN_LOG")
	if spec == "" {
		return nil, func() {}, nil
	}
	lv, err := logs.Parse(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("REIN_LOG: %w", err)
	}
	path := e.getenv("REIN_LOG_FILE")
	if path == "" && !tui {
		return logs.New(e.stderr, lv), func() {}, nil
	}
	if path == "" {
		if workdir == "" {
			workdir = "."
		}
		path = filepath.Join(workdir, ".rein", "logs", "rein.log")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, nil, fmt.Errorf("REIN_LOG: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("REIN_LOG_FILE: %w", err)
	}
	w := redact.NewWriter(redactor(), f)
	return logs.New(w, lv), func() { closeAll(w, f) }, nil
}

func closeAll(cs ...io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}
