package main

import (
	"os"

	"github.com/reinhq/rein/redact"
)

// redactor masks the known secret formats and the values of every
// secret-looking variable in rein's environment.
func redactor() *redact.Redactor { return redact.FromEnv(os.Environ()) }

// redactOutputs makes everything written to e's stdout and stderr pass
// through the redactor; the returned function writes what is held back.
func redactOutputs(e *env) func() {
	r := redactor()
	// The terminal UI redraws whole frames of escape sequences; a writer
	// that holds back an unfinished word would hold back the frame. It
	// draws on the terminal itself, where the user sees what the model
	// read; everything written to files and pipes stays redacted.
	e.screen = e.stdout
	out, errw := redact.NewWriter(r, e.stdout), redact.NewWriter(r, e.stderr)
	e.stdout, e.stderr = out, errw
	return func() {
		out.Close()
		errw.Close()
	}
}
