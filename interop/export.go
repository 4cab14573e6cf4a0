package interop

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// Options tune an export.
type Options struct {
	// Version is the program version written where a format records the
	// writer's (Claude Code's "version", codex's cli_version).
	Version string
	// Provider is the model provider id a codex rollout names (codex
	// resumes a thread only with the provider it was made with); empty
	// means "openai".
	Provider string
	// Redact, when set, is applied to every text a transcript (md, html)
	// shows; the session formats are written as the session holds them
	// (rein's log is already redacted when it is written).
	Redact func(string) string
	// Now stamps what the format needs a time for and the session lacks.
	Now func() time.Time
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// Session is a rein session to export: its header and entries as
// session.ReadFile returns them.
type Session struct {
	Header  session.Header
	Entries []session.Entry
	// Path is the file it was read from.
	Path string
}

// LoadSession reads the rein session at path for export.
func LoadSession(path string) (*Session, error) {
	h, entries, _, err := session.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Session{Header: h, Entries: entries, Path: path}, nil
}

// Export writes s to w in format f and reports what the format could
// not hold.
func Export(w io.Writer, s *Session, f Format, o Options) (*Report, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	r := &Report{}
	var err error
	switch f {
	case Pi:
		err = writePi(bw, s, o, r)
	case Claude:
		err = writeClaude(bw, s, o, r)
	case Codex:
		err = writeCodex(bw, s, o, r)
	case OpenCode:
		err = writeOpenCode(bw, s, o, r)
	case Markdown:
		err = writeMarkdown(bw, s, o, r)
	case HTML:
		err = writeHTML(bw, s, o, r)
	case Bundle:
		err = writeBundle(bw, s, o, r)
	case Rein:
		return nil, fmt.Errorf("a rein session is exported as json (a bundle) or copied as it is")
	default:
		return nil, fmt.Errorf("unknown export format %q", f)
	}
	if err != nil {
		return nil, err
	}
	return r, bw.Flush()
}

// ordered returns the tree entries of s in an order that keeps parents
// first and puts the path to the leaf last, so that formats whose active
// branch is the newest entry (pi, Claude Code) continue where rein would.
func ordered(s *Session, r *Report) []*session.Entry {
	leaf := session.LastLeaf(s.Entries)
	var tree []*session.Entry
	index := map[string]int{}
	for i := range s.Entries {
		if e := &s.Entries[i]; e.IsTree() {
			index[e.ID] = len(tree)
			tree = append(tree, e)
		}
	}
	if len(tree) == 0 || tree[len(tree)-1].ID == leaf {
		return tree
	}
	onPath := map[string]bool{}
	for id := leaf; id != ""; {
		onPath[id] = true
		i, ok := index[id]
		if !ok {
			break
		}
		id = tree[i].Parent
	}
	children := map[string][]*session.Entry{}
	for _, e := range tree {
		children[e.Parent] = append(children[e.Parent], e)
	}
	out := make([]*session.Entry, 0, len(tree))
	var visit func(id string)
	visit = func(id string) {
		var last *session.Entry
		for _, c := range children[id] {
			if onPath[c.ID] {
				last = c
				continue
			}
			out = append(out, c)
			visit(c.ID)
		}
		if last != nil {
			out = append(out, last)
			if last.ID != leaf {
				visit(last.ID)
			} else if len(children[leaf]) > 0 {
				r.drop("", "the position in the session", "the current entry has later entries below it; the other program continues from the newest entry instead")
				visit(leaf)
			}
		}
	}
	visit("")
	return out
}

// uuidOf formats a 32-hex-digit id as a UUID, and makes any other id
// into a stable UUID-shaped one derived from it (and seed).
func uuidOf(seed, id string) string {
	if len(id) == 36 && id[8] == '-' && id[13] == '-' {
		return id
	}
	h := id
	if _, err := hex.DecodeString(id); err != nil || len(id) != 32 {
		sum := sha256.Sum256([]byte(seed + "\x00" + id))
		h = hex.EncodeToString(sum[:16])
		h = h[:12] + "4" + h[13:16] + "8" + h[17:]
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// thinkingFor returns the thinking blocks of m as a format tied to api
// may carry them: signed or encrypted thinking only for the same API,
// other thinking as its text.
func keepThinking(m *llm.Message, api llm.API) bool { return m.API == api }
