package wire

import "bytes"

// lineWatch tells data from keep-alives in a stream read in arbitrary
// pieces. It keeps the start of the line being read, enough to classify
// it.
type lineWatch struct {
	head []byte // the first bytes of the current line
	n    int    // the current line's length so far
}

// longLine is the length past which an unfinished line counts as data:
// keep-alives are short.
const longLine = 96

// progress takes the next piece of the stream and reports whether it
// finished (or grew past longLine) a line that is data.
func (w *lineWatch) progress(p []byte) bool {
	data := false
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		was := w.n
		w.n += len(part)
		if room := longLine - len(w.head); room > 0 {
			w.head = append(w.head, part[:min(room, len(part))]...)
		}
		if was <= longLine && w.n > longLine {
			data = true
		}
		if i < 0 {
			break
		}
		if w.n <= longLine && !keepAlive(w.head) {
			data = true
		}
		w.head, w.n = w.head[:0], 0
		p = p[i+1:]
	}
	return data
}

// keepAlive reports whether a whole line carries no data: blank, an SSE
// comment, a ping event's name or its data.
func keepAlive(line []byte) bool {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0, line[0] == ':':
		return true
	case bytes.HasPrefix(line, []byte("event:")):
		return bytes.Equal(bytes.TrimSpace(line[len("event:"):]), []byte("ping"))
	case bytes.HasPrefix(line, []byte("data:")):
		d := bytes.ReplaceAll(line[len("data:"):], []byte(" "), nil)
		return bytes.Equal(d, []byte(`{"type":"ping"}`))
	}
	return false
}
