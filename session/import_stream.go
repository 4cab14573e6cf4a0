package session

import (
	"errors"
	"iter"
	"os"
)

// WriteImported writes a new session file as CreateImported does, taking
// the entries from seq one at a time and keeping none of them, so that
// importing a recording of any size needs memory for its ids only. The
// entries are checked as CreateImported checks them, and must already be
// complete: the file's leaf is its last tree entry, and no call is
// answered on its behalf. It returns the closed file's path and the new
// session's id. On an error, from seq or the file, nothing is left
// behind. opts.Agent links it to a parent as for CreateImported.
func WriteImported(opts Options, src Source, seq iter.Seq2[*Entry, error]) (path, id string, err error) {
	if src.Format == "" {
		return "", "", errors.New("session: an imported session needs its source format")
	}
	h := Header{Type: HeaderType, Version: FormatVersion, ID: opts.sessionID(), Created: opts.now().UTC(), Cwd: opts.Cwd, Source: &src, Agent: opts.Agent}
	s, err := create(opts, h, nil)
	if err != nil {
		return "", "", err
	}
	fail := func(err error) (string, string, error) {
		_ = s.Close()
		_ = os.Remove(s.path)
		return "", "", err
	}
	seen := map[string]bool{}
	i := 0
	for e, err := range seq {
		if err != nil {
			return fail(err)
		}
		if err := checkImportedEntry(i, e, seen); err != nil {
			return fail(err)
		}
		line, err := s.enc.entryLine(e)
		if err != nil {
			return fail(err)
		}
		if line, err = s.outgoing(line, e); err != nil {
			return fail(err)
		}
		if err := s.write(line); err != nil {
			return fail(err)
		}
		i++
	}
	if err := s.Close(); err != nil {
		_ = os.Remove(s.path)
		return "", "", err
	}
	return s.path, h.ID, nil
}
