package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// Limits of the read tool.
const (
	// ReadDefaultLimit is how many lines read returns when no limit is given.
	ReadDefaultLimit = 2000
	// ReadMaxBytes caps the text of one read result; the footer says
	// where to continue.
	ReadMaxBytes = MaxResultBytes
	// ReadMaxLineLength is the length in bytes past which a line is cut.
	ReadMaxLineLength = 2000
	// ReadMaxImageBytes is the largest image read returns.
	ReadMaxImageBytes = 5 << 20
	// countCap bounds how many bytes after the shown lines are scanned to
	// count the file's lines.
	countCap = 256 << 20
)

type readArgs struct {
	Path   string `json:"path" jsonschema:"File in the workspace (relative or absolute)."`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based first line. Default 1."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Maximum lines. Default 2000."`
}

// ReadDetails is the Details of a text read result.
type ReadDetails struct {
	Path       string `json:"path"`
	FirstLine  int    `json:"first_line"`
	LastLine   int    `json:"last_line"`
	TotalLines int    `json:"total_lines"` // -1 when the file was too large to count
}

const readDescription = `Read a workspace file. Text comes as numbered lines (number and tab, not part of the file): at most 2000 lines or 15 KB a call; a footer gives the offset to continue from. Lines over 2000 bytes are cut. PNG, JPEG, GIF and WebP images up to 5 MB are shown; other binary files are refused.`

// Read returns the read tool: text with line numbers, paging with offset
// and limit, images as image blocks, binary files refused.
func Read(w Workspace) *tool.Tool {
	t := tool.MustNew("read", readDescription, func(ctx context.Context, call *tool.Call, in readArgs) (tool.Result, error) {
		return readFile(ctx, w, in)
	})
	t.ReadOnly = true
	t.Idempotent = true
	return t
}

func readFile(ctx context.Context, w Workspace, in readArgs) (tool.Result, error) {
	if in.Offset < 0 {
		return tool.Result{}, fmt.Errorf("offset must be 1 or more (got %d)", in.Offset)
	}
	if in.Limit < 0 {
		return tool.Result{}, fmt.Errorf("limit must be 1 or more (got %d)", in.Limit)
	}
	p, err := w.openRooted(in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	defer p.root.Close()
	abs := p.abs()
	shown := w.display(abs)
	f, fi, err := p.openRegular()
	if errors.Is(err, fs.ErrNotExist) {
		return tool.Result{}, errors.New(w.notFound(abs))
	}
	if err != nil {
		if errors.Is(err, ErrOutside) {
			return tool.Result{}, err
		}
		return tool.Result{}, fmt.Errorf("cannot read %s: %v", shown, err)
	}
	defer f.Close()
	if fi.IsDir() {
		return tool.Result{}, fmt.Errorf("%s is a directory, not a file; use ls to list it, or find and grep to search it", shown)
	}
	if !fi.Mode().IsRegular() {
		return tool.Result{}, fmt.Errorf("%s is not a regular file (%s); read only reads files", shown, fi.Mode().Type())
	}
	sample, err := readSample(f)
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot read %s: %v", shown, err)
	}
	if mime := imageType(sample); mime != "" {
		return readImage(f, shown, mime, fi.Size())
	}
	if looksBinary(sample) {
		return tool.Result{}, fmt.Errorf("%s is a binary file (%s); read only shows text and images. Inspect it with bash if you must (e.g. `file %s`, `xxd %s | head`)",
			shown, humanSize(fi.Size()), shellQuote(shown), shellQuote(shown))
	}
	offset := max(in.Offset, 1)
	limit := in.Limit
	if limit == 0 {
		limit = ReadDefaultLimit
	}
	if text, handled, err := w.readThrough(ctx, p); err != nil {
		return tool.Result{}, fmt.Errorf("cannot read %s: %v", shown, err)
	} else if handled {
		return readText(ctx, strings.NewReader(text), shown, offset, limit, int64(len(text)))
	}
	return readText(ctx, f, shown, offset, limit, fi.Size())
}

// imageType returns the MIME type of an image read can return, or "".
func imageType(sample []byte) string {
	switch t := http.DetectContentType(sample); t {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return t
	}
	return ""
}

func readImage(f *os.File, shown, mime string, size int64) (tool.Result, error) {
	if size > ReadMaxImageBytes {
		return tool.Result{}, fmt.Errorf("%s is an image (%s) of %s, larger than the %s read can return; make a smaller copy with bash first if you need to see it",
			shown, mime, humanSize(size), humanSize(ReadMaxImageBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, ReadMaxImageBytes+1))
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot read %s: %v", shown, err)
	}
	if len(data) > ReadMaxImageBytes {
		return tool.Result{}, fmt.Errorf("%s grew past %s while being read", shown, humanSize(ReadMaxImageBytes))
	}
	return tool.Result{Content: []llm.Content{
		llm.Text(fmt.Sprintf("Image %s (%s, %s)", shown, mime, humanSize(int64(len(data))))),
		llm.Image(base64.StdEncoding.EncodeToString(data), mime),
	}}, nil
}

// readText formats lines [offset, offset+limit) of f with line numbers
// and counts the rest of the file's lines for the footer.
func readText(ctx context.Context, f io.Reader, shown string, offset, limit int, size int64) (tool.Result, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	var out strings.Builder
	out.Grow(int(min(size+size/4, ReadMaxBytes+4096)))
	var line []byte // the current line, at most ReadMaxLineLength+1 bytes
	lineLen := 0    // the current line's full length
	lineNo, first, last := 0, 0, 0
	cut, budget, collecting := false, false, true
	ended := false // the current line ends with a newline
	var scratch []byte
	// finish ends the current line: it is counted and, while collecting,
	// shown.
	finish := func() {
		lineNo++
		if lineNo < offset {
			return
		}
		text, full := line, lineLen
		if ended {
			full--
			text = bytes.TrimSuffix(text, []byte("\n"))
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		if lineNo == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		scratch = appendNumbered(scratch[:0], lineNo, text, full)
		if full > ReadMaxLineLength && len(text) > ReadMaxLineLength {
			cut = true
		}
		if first != 0 && out.Len()+len(scratch) > ReadMaxBytes {
			budget, collecting = true, false
			return
		}
		out.Write(scratch)
		if first == 0 {
			first = lineNo
		}
		last = lineNo
		if last-first+1 >= limit {
			collecting = false
		}
	}
	for collecting {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if keep := ReadMaxLineLength + 1 - len(line); keep > 0 {
				line = append(line, chunk[:min(keep, len(chunk))]...)
			}
			lineLen += len(chunk)
			if chunk[len(chunk)-1] == '\n' {
				ended = true
				finish()
				line, lineLen = line[:0], 0
				if lineNo%65536 == 0 && ctx.Err() != nil {
					return tool.Result{}, ctx.Err()
				}
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return tool.Result{}, fmt.Errorf("cannot read %s: %v", shown, err)
			}
			if lineLen > 0 {
				ended = false
				finish()
			}
			break
		}
	}
	total := lineNo
	if !collecting {
		n, ok, err := countRest(ctx, br)
		if err != nil {
			return tool.Result{}, err
		}
		if ok {
			total += n
		} else {
			total = -1
		}
	}
	if total == 0 {
		return tool.Result{Content: []llm.Content{llm.Text(fmt.Sprintf("(%s is empty)", shown))}, Details: ReadDetails{Path: shown}}, nil
	}
	if first == 0 {
		return tool.Result{}, fmt.Errorf("offset %d is past the end of %s, which has %s", offset, shown, plural(total, "line"))
	}
	if last < total || total < 0 {
		of := fmt.Sprintf("of %d", total)
		if total < 0 {
			of = fmt.Sprintf("of a %s file", humanSize(size))
		}
		fmt.Fprintf(&out, "\n[showing lines %d–%d %s; call read with offset=%d to continue", first, last, of, last+1)
		if budget {
			fmt.Fprintf(&out, " (this call stopped at about %d KB of output)", ReadMaxBytes/1000)
		}
		out.WriteString("]")
	}
	if cut {
		out.WriteString("\n[some long lines were cut; use grep or bash (e.g. `cut -c`) to see them in full]")
	}
	return tool.Result{
		Content: []llm.Content{llm.Text(strings.TrimSuffix(out.String(), "\n"))},
		Details: ReadDetails{Path: shown, FirstLine: first, LastLine: last, TotalLines: total},
	}, nil
}

// appendNumbered appends one line in read's format, "%6d\t%s\n", cut
// after ReadMaxLineLength bytes with a marker giving its full length.
func appendNumbered(dst []byte, n int, text []byte, full int) []byte {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(n), 10)
	for i := len(digits); i < 6; i++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, digits...)
	dst = append(dst, '\t')
	cut := full > ReadMaxLineLength && len(text) > ReadMaxLineLength
	if cut {
		k := ReadMaxLineLength
		for k > 0 && !utf8.RuneStart(text[k]) {
			k--
		}
		text = text[:k]
	}
	if utf8.Valid(text) {
		dst = append(dst, text...)
	} else {
		dst = append(dst, strings.ToValidUTF8(string(text), "\uFFFD")...)
	}
	if cut {
		dst = fmt.Appendf(dst, " … [line cut: %d bytes in total]", full)
	}
	return append(dst, '\n')
}

// countRest counts the lines left in br, which is positioned at the start
// of a line. ok is false when more than countCap bytes remain.
func countRest(ctx context.Context, br *bufio.Reader) (n int, ok bool, err error) {
	buf := make([]byte, 64<<10)
	lastByte := byte('\n')
	read := 0
	for {
		m, rerr := br.Read(buf)
		if m > 0 {
			n += bytes.Count(buf[:m], []byte("\n"))
			lastByte = buf[m-1]
			read += m
			if read > countCap {
				return 0, false, nil
			}
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return 0, false, rerr
			}
			break
		}
	}
	if lastByte != '\n' {
		n++
	}
	return n, true, nil
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
