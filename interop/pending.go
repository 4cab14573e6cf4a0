package interop

import (
	"bufio"
	"errors"
	"io"
)

var errPending = errors.New("this format is not supported yet")

func readCodex(r io.Reader, name string) (*Conversation, error)    { return nil, errPending }
func readOpenCode(r io.Reader, name string) (*Conversation, error) { return nil, errPending }
func writeCodex(w *bufio.Writer, s *Session, o Options, r *Report) error {
	return errPending
}
func writeOpenCode(w *bufio.Writer, s *Session, o Options, r *Report) error {
	return errPending
}

// CodexThreadID is the codex thread id of an exported rein session.
func CodexThreadID(id string) string { return uuidOf(id, id) }
