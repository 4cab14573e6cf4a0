package builtin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/tool"
)

// outputSink collects a command's combined output with bounded memory.
// Until the output passes spillAt bytes it is kept whole; after that the
// first headCap bytes and the last tailCap bytes stay in memory and
// everything (up to maxLog bytes) is streamed to a log file. Safe for
// concurrent use: one goroutine writes, others take snapshots.
type outputSink struct {
	headCap, tailCap, spillAt int
	maxLog                    int64
	root, dir                 string // workspace root; log directory inside it

	mu       sync.Mutex
	buf      []byte // everything, until spilled
	head     []byte
	tail     ring
	total    int64
	lines    int64
	spilled  bool
	log      *os.File
	logw     io.Writer // log, or a redacting writer in front of it
	redact   *redact.Redactor
	logPath  string // relative to root, forward slashes
	logBytes int64
	logErr   error
	version  uint64
}

func newOutputSink(root string, o BashOptions) *outputSink {
	return &outputSink{
		headCap: o.HeadBytes,
		tailCap: o.TailBytes,
		spillAt: o.HeadBytes + o.TailBytes,
		maxLog:  o.MaxLogBytes,
		root:    root,
		dir:     filepath.Join(root, filepath.FromSlash(tool.OutputDir)),
		tail:    ring{buf: make([]byte, o.TailBytes)},
		redact:  o.Redact,
	}
}

// Write never fails: a log that cannot be written is reported in the
// result instead.
func (s *outputSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += int64(len(p))
	s.lines += int64(bytes.Count(p, []byte{'\n'}))
	s.version++
	if !s.spilled {
		s.buf = append(s.buf, p...)
		if len(s.buf) > s.spillAt {
			s.spill()
		}
		return len(p), nil
	}
	s.tail.write(p)
	s.writeLog(p)
	return len(p), nil
}

// spill moves the buffered output to the head, the tail and the log.
func (s *outputSink) spill() {
	s.spilled = true
	s.head = append([]byte(nil), s.buf[:s.headCap]...)
	s.tail.write(s.buf)
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		s.logErr = err
	} else if err := ignoreOutputDir(s.dir); err != nil {
		s.logErr = err
	} else if f, err := os.CreateTemp(s.dir, "bash-*.log"); err != nil {
		s.logErr = err
	} else {
		s.log = f
		s.logw = f
		if s.redact != nil {
			s.logw = redact.NewWriter(s.redact, f)
		}
		s.logPath = rel(s.root, f.Name())
	}
	s.writeLog(s.buf)
	s.buf = nil
}

// ignoreOutputDir makes git, find and grep pass over the logs: it puts a
// .gitignore matching everything in dir unless one is there.
func ignoreOutputDir(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString("# written by rein: tool outputs are not part of the project\n*\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *outputSink) writeLog(p []byte) {
	if s.log == nil || s.logErr != nil {
		return
	}
	if room := s.maxLog - s.logBytes; int64(len(p)) > room {
		p = p[:max(room, 0)]
	}
	if len(p) == 0 {
		return
	}
	n, err := s.logw.Write(p)
	s.logBytes += int64(n)
	if err != nil {
		s.logErr = err
	}
}

// close closes the log file.
func (s *outputSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log != nil {
		if rw, ok := s.logw.(*redact.Writer); ok {
			if err := rw.Close(); err != nil && s.logErr == nil {
				s.logErr = err
			}
		}
		if err := s.log.Close(); err != nil && s.logErr == nil {
			s.logErr = err
		}
		s.log = nil
	}
}

// recent returns the last n bytes of output, the output's size so far,
// and a version that changes whenever output arrives.
func (s *outputSink) recent(n int) (version uint64, total int64, out []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.spilled {
		return s.version, s.total, append([]byte(nil), s.buf[max(0, len(s.buf)-n):]...)
	}
	t := s.tail.bytes()
	return s.version, s.total, t[max(0, len(t)-n):]
}

// render returns the output for the model: all of it, or the head, a
// marker saying what was left out and where the full log is, and the
// tail.
func (s *outputSink) render() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.spilled {
		return cleanOutput(s.buf)
	}
	head := s.head
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i+1]
	}
	tail := s.tail.bytes()
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	omitted := s.total - int64(len(head)) - int64(len(tail))
	omittedLines := s.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var b strings.Builder
	b.WriteString(cleanOutput(head))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… %s (%s) omitted from the middle of %s of output; ", humanSize(omitted), plural(int(max(omittedLines, 0)), "line"), humanSize(s.total))
	switch {
	case s.logPath == "":
		fmt.Fprintf(&b, "the full output could not be saved: %v", s.logErr)
	case s.logErr != nil:
		fmt.Fprintf(&b, "the first %s of output are in %s (writing it failed: %v)", humanSize(s.logBytes), s.logPath, s.logErr)
	case s.logBytes < s.total:
		fmt.Fprintf(&b, "the first %s of output are in %s; read it with offset and limit, or grep it", humanSize(s.logBytes), s.logPath)
	default:
		fmt.Fprintf(&b, "the full output is in %s; read it with offset and limit, or grep it", s.logPath)
	}
	b.WriteString(" …]\n")
	b.WriteString(cleanOutput(tail))
	return b.String()
}

// ring keeps the last len(buf) bytes written to it.
type ring struct {
	buf  []byte
	pos  int
	full bool
}

func (r *ring) write(p []byte) {
	n := len(r.buf)
	if n == 0 {
		return
	}
	if len(p) >= n {
		copy(r.buf, p[len(p)-n:])
		r.pos, r.full = 0, true
		return
	}
	c := copy(r.buf[r.pos:], p)
	if c < len(p) {
		copy(r.buf, p[c:])
		r.full = true
	}
	r.pos = (r.pos + len(p)) % n
	if r.pos == 0 {
		r.full = true
	}
}

// bytes returns the kept bytes in order, as a new slice.
func (r *ring) bytes() []byte {
	if !r.full {
		return append([]byte(nil), r.buf[:r.pos]...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.pos:]...)
	return append(out, r.buf[:r.pos]...)
}

// cleanOutput makes terminal output fit for a model: valid UTF-8, no
// ANSI escape sequences, CRLF as LF, and a line redrawn with carriage
// returns (progress bars) reduced to what was drawn last.
func cleanOutput(b []byte) string {
	s := string(b)
	if strings.ContainsAny(s, "\x1b\r") {
		s = stripANSI(s)
		if strings.Contains(s, "\r") {
			lines := strings.Split(s, "\n")
			for i, l := range lines {
				l = strings.TrimRight(l, "\r")
				if j := strings.LastIndexByte(l, '\r'); j >= 0 {
					l = l[j+1:]
				}
				lines[i] = l
			}
			s = strings.Join(lines, "\n")
		}
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// stripANSI removes CSI and OSC escape sequences and other two-byte
// escapes.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[': // CSI: parameters, then a final byte in 0x40–0x7e
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']': // OSC: ends with BEL or ESC \
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}

// cut reports whether the output was too long to keep whole, so that
// render keeps only its head and tail.
func (s *outputSink) cut() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spilled
}
