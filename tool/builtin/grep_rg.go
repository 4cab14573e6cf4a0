package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// rgMessage is the part of one line of `rg --json` output grep uses.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// rgText is ripgrep's encoding of data that may not be UTF-8.
type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	b, err := base64.StdEncoding.DecodeString(t.Bytes)
	if err != nil {
		return ""
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

var (
	rgMatchPrefix   = []byte(`{"type":"match"`)
	rgContextPrefix = []byte(`{"type":"context"`)
)

// searchRipgrep runs rg in the workspace root with the rules the Go
// backend follows: .gitignore applies even outside a git repository,
// the user's global ignore file and rg configuration do not, results are
// in path order. Once the formatter can show nothing more, rg is stopped
// and a second, cheap run with --count finds how many lines matched in
// all. warn reports files rg could not search.
func searchRipgrep(ctx context.Context, rg string, q grepQuery, f *grepFormatter) (warn string, err error) {
	common := []string{"--no-config", "--no-require-git", "--no-ignore-global"}
	if q.in.IgnoreCase {
		common = append(common, "--ignore-case")
	}
	if q.in.Literal {
		common = append(common, "--fixed-strings")
	}
	if q.in.Glob != "" {
		g := q.glob
		if q.negGlob {
			g = "!" + g
		}
		common = append(common, "--glob", g)
	}
	target := []string{"--regexp", q.in.Pattern, "--", q.rel}
	args := append([]string{"--json", "--sort", "path"}, common...)
	if q.in.Context > 0 {
		args = append(args, "--context", strconv.Itoa(q.in.Context))
	}
	args = append(args, target...)

	rctx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := exec.CommandContext(rctx, rg, args...)
	cmd.Dir = q.root
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 8 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("cannot run ripgrep (%s): %v", rg, err)
	}
	br := bufio.NewReaderSize(stdout, 256<<10)
	var perr error
	full := false // the formatter is done; only the count is missing
	for !full {
		line, rerr := br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			// A very long line: collect it whole.
			head := append([]byte(nil), line...)
			rest, rerr2 := br.ReadBytes('\n')
			line, rerr = append(head, rest...), rerr2
		}
		if len(line) > 0 {
			if perr = rgEvent(line, q, f); perr != nil {
				break
			}
			full = f.closed
		}
		if rerr != nil {
			break
		}
	}
	if full || perr != nil {
		stop()
	}
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if perr != nil {
		return "", perr
	}
	if full {
		total, err := rgCount(ctx, rg, q.root, append(append([]string{"--count", "--with-filename"}, common...), target...))
		if err != nil {
			return "", err
		}
		f.more = max(total-f.shown, f.more)
		return "", nil
	}
	var ee *exec.ExitError
	if werr != nil && !(errors.As(werr, &ee) && ee.ExitCode() == 1) {
		msg := strings.TrimSpace(stderr.String())
		if f.shown == 0 {
			if msg == "" {
				msg = werr.Error()
			}
			return "", fmt.Errorf("ripgrep failed: %s", msg)
		}
		if msg != "" {
			warn = "some files could not be searched: " + firstLine(msg)
		}
	}
	return warn, nil
}

// rgCount runs rg with --count and sums the matching lines of every
// file ("path:count" lines).
func rgCount(ctx context.Context, rg, dir string, args []string) (int, error) {
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() <= 2) {
		return 0, fmt.Errorf("ripgrep failed: %v", err)
	}
	total := 0
	for _, l := range strings.Split(string(out), "\n") {
		if i := strings.LastIndexByte(l, ':'); i >= 0 {
			if n, err := strconv.Atoi(l[i+1:]); err == nil {
				total += n
			}
		}
	}
	return total, nil
}

// rgEvent decodes one line of rg output into the formatter. Lines that
// can no longer be shown are only counted.
func rgEvent(line []byte, q grepQuery, f *grepFormatter) error {
	isMatch := bytes.HasPrefix(line, rgMatchPrefix)
	if !isMatch && !bytes.HasPrefix(line, rgContextPrefix) {
		return nil
	}
	if isMatch && f.full() && q.hide == nil {
		f.add(grepEvent{match: true})
		return nil
	}
	if !isMatch && !f.wantsContext() {
		return nil
	}
	var m rgMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("cannot read ripgrep output: %v", err)
	}
	path := strings.TrimPrefix(m.Data.Path.String(), "./")
	if q.rel == "." && path == "" {
		path = "."
	}
	if q.hide != nil && path != "." && q.hide(filepath.Join(q.root, filepath.FromSlash(path))) {
		if q.hidden.first != path && !q.hidden.seen(path) {
			q.hidden.add(path)
		}
		return nil // a deny rule covers the file: nothing of it is shown
	}
	if isMatch && f.full() {
		f.add(grepEvent{match: true})
		return nil
	}
	text := strings.TrimSuffix(m.Data.Lines.String(), "\n")
	f.add(grepEvent{path: path, line: m.Data.LineNumber, text: text, match: isMatch})
	return nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
