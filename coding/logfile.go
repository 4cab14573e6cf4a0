package coding

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/telemetry/logs"
)

// OpenLogs builds the subsystem loggers that REIN_LOG, read through
// getenv, asks for (guard=debug,compact=info; a bare level means every
// subsystem), for Options.Logs. Lines go to REIN_LOG_FILE when set, else
// to .rein/logs/rein.log of workdir ("" is the current directory) when
// screen is true (a full-screen front-end owns the terminal), else to
// stderr; lines written to a file pass r first. With REIN_LOG unset it
// returns a nil set; a specification it cannot read or a file it cannot
// open is an error naming the variable. The returned function closes the
// file; it is never nil when the error is.
func OpenLogs(getenv func(string) string, stderr io.Writer, screen bool, workdir string, r *redact.Redactor) (*logs.Set, func(), error) {
	spec := getenv("REIN_LOG")
	if spec == "" {
		return nil, func() {}, nil
	}
	lv, err := logs.Parse(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("REIN_LOG: %w", err)
	}
	path := getenv("REIN_LOG_FILE")
	if path == "" && !screen {
		return logs.New(stderr, lv), func() {}, nil
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
	w := redact.NewWriter(r, f)
	return logs.New(w, lv), func() { w.Close(); f.Close() }, nil
}
