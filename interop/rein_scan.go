package interop

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/reinhq/rein/session"
)

// scanRein reads a rein session file a line at a time (a session moved
// from another machine). Its entries are rein's already: the import only
// checks their links (see orphanStep) and changes nothing else.
func scanRein(s *scan) error {
	c, name := s.c, s.name
	header := false
	err := eachLine(s.r, func(n int, line []byte, last bool) error {
		if !header {
			var h session.Header
			if err := json.Unmarshal(line, &h); err != nil || h.Type != session.HeaderType || h.Created.IsZero() || h.Version < 1 {
				return fmt.Errorf("%w: the first line is not a rein session header", errNotFormat)
			}
			header = true
			c.Source = session.Source{Format: string(Rein), Version: strconv.Itoa(h.Version), Path: name, ID: h.ID}
			if h.Source != nil {
				c.Source = *h.Source
			}
			c.Cwd, c.Created = h.Cwd, h.Created
			if h.Version > session.FormatVersion {
				c.Report.drop(name, fmt.Sprintf("format version %d", h.Version), fmt.Sprintf("this program knows version %d and reads it best-effort", session.FormatVersion))
			}
			return nil
		}
		e, err := session.DecodeEntry(line)
		if err != nil {
			return err
		}
		if e.Type == session.TypeSessionInfo {
			c.Name = e.Name
		}
		return s.add(e, false)
	}, func(n int, why string) { c.Report.drop(lineRef{name, n}.String(), "line", why) })
	if err != nil {
		return err
	}
	if !header {
		return headerError(name, Rein, &c.Report)
	}
	return nil
}
