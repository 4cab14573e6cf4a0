package tui

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/redact"
)

// historyKeep is how many prompts the history keeps: the file is cut
// back to the last historyKeep when it holds more than twice as many.
const historyKeep = 1000

// FileHistory is the terminal UI's prompt history of one workspace
// (a tui.PromptStore): a JSON-lines file, one {"text", "time"} object per
// prompt, under the user's state directory. Prompts pass through the
// redactor before they are written. Each prompt is one write to the file
// opened with O_APPEND, under a shared lock, so rein processes of the
// same workspace append side by side; cutting the file back takes the
// lock exclusively. Not safe for concurrent use within a process (the UI
// calls it from one goroutine).
type FileHistory struct {
	path   string
	redact *redact.Redactor
	keep   int
	lines  int    // lines in the file, as far as this process knows
	last   string // the newest prompt, to store a repeated one once
}

type historyEntry struct {
	Text string    `json:"text"`
	Time time.Time `json:"time"`
}

// historyPath is the history file of a workspace root:
// $XDG_STATE_HOME/rein/history/<hash>.jsonl, else under
// ~/.local/state/rein/history/ (the directory of the key cooldown
// state), or "" when neither variable is set.
func historyPath(getenv func(string) string, root string) string {
	state := catalog.DefaultStatePath(getenv)
	if state == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(filepath.Dir(state), "history", hex.EncodeToString(sum[:8])+".jsonl")
}

// OpenHistory returns the prompt history of the workspace root, or nil
// when REIN_HISTORY=off or there is no state directory. Nothing is read
// or created until the UI loads or adds a prompt.
func OpenHistory(getenv func(string) string, root string, r *redact.Redactor) *FileHistory {
	if getenv("REIN_HISTORY") == "off" {
		return nil
	}
	p := historyPath(getenv, root)
	if p == "" {
		return nil
	}
	return &FileHistory{path: p, redact: r, keep: historyKeep}
}

// Load returns the last prompts of the file, oldest first. A missing
// file is an empty history. Damaged lines are skipped and reported in
// the error, with the prompts that could be read.
func (h *FileHistory) Load() ([]string, error) {
	entries, lines, bad, err := h.read()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w; new prompts are still saved", err)
	}
	h.lines = lines
	var out []string
	for _, e := range entries {
		if len(out) == 0 || out[len(out)-1] != e.Text {
			out = append(out, e.Text)
		}
	}
	if len(out) > h.keep {
		out = out[len(out)-h.keep:]
	}
	if len(out) > 0 {
		h.last = out[len(out)-1]
	}
	if bad > 0 {
		return out, fmt.Errorf("%s: skipped %d damaged line%s", h.path, bad, plural(bad))
	}
	return out, nil
}

// read parses the file: its entries, its line count and the number of
// lines that are not entries.
func (h *FileHistory) read() (entries []historyEntry, lines, bad int, err error) {
	f, err := os.Open(h.path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		lines++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e historyEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			bad++
			continue
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return entries, lines, bad, fmt.Errorf("reading %s: %w", h.path, err)
	}
	return entries, lines, bad, nil
}

// Add appends a prompt, redacted, unless it repeats the newest one, and
// cuts the file back when it has grown past twice the prompts kept.
func (h *FileHistory) Add(text string) error {
	text = h.redact.String(text)
	if text == h.last {
		return nil
	}
	line, err := encodeEntry(historyEntry{Text: text, Time: time.Now().UTC()})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	lock := flock.New(h.path+".lock", flock.SetPermissions(0o600))
	if err := lock.RLock(); err != nil {
		return err
	}
	err = appendLine(h.path, line)
	lock.Unlock()
	if err != nil {
		return err
	}
	h.last = text
	h.lines++
	if h.lines > 2*h.keep {
		return h.compact(lock)
	}
	return nil
}

// encodeEntry is e as one JSON line, newline included.
func encodeEntry(e historyEntry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(e)
	return buf.Bytes(), err
}

// appendLine writes b to the end of the file in one write, after a
// newline when the file ends in a torn line (a process that died while
// writing), so that b stays a line of its own.
func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		end := make([]byte, 1)
		if _, err := f.ReadAt(end, fi.Size()-1); err == nil && end[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// compact rewrites the file with its last h.keep entries (damaged lines
// are dropped), holding the lock exclusively so that no prompt appended
// meanwhile is lost.
func (h *FileHistory) compact(lock *flock.Flock) error {
	if err := lock.Lock(); err != nil {
		return err
	}
	defer lock.Unlock()
	entries, _, _, err := h.read()
	if err != nil {
		return err
	}
	if len(entries) > h.keep {
		entries = entries[len(entries)-h.keep:]
	}
	var buf bytes.Buffer
	for _, e := range entries {
		line, err := encodeEntry(e)
		if err != nil {
			return err
		}
		buf.Write(line)
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".history-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), h.path); err != nil {
		return err
	}
	h.lines = len(entries)
	return nil
}
