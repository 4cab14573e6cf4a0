package guard

import (
	"hash/maphash"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/reinhq/rein/llm"
)

// Rule read_cache: a re-read of the same view of a file up to
// ReadCacheTurns turns after the read is not run again. The view is a
// read call's path, offset and limit, or a bash command that only views
// one file of the workspace (cat, head, sed -n …, as mismatch recognises
// them). By default the call is answered with a short note saying that
// the earlier result is unchanged and still current, since it is still in
// the conversation: the tokens of the output are saved. Results shorter
// than MinReferenceChars run again (the note would cost about as much),
// and with "readCache": "copy" a read is answered with the cached copy
// instead, as pi's harness does.
//
// A write or edit of the file, or a bash command that may modify files,
// drops the cached views, and so does ForgetReads, which the harness calls
// when earlier results leave the conversation (masking, compaction).
// Stale content is never pointed at: a live guard compares the file's size
// and modification time with those it had before it was read; an offline
// guard (replay) compares the recorded result of the re-read with the
// cached one.

// MinReferenceChars is the shortest result the read cache answers with a
// reference to the earlier result: below it the note saves little or
// nothing.
const MinReferenceChars = 400

// readView is the part of a file a call asks for: a read's offset and
// limit, or for a bash view the command's call key (cat -n, sed -n and nl
// show the same lines differently).
type readView struct {
	offset, limit int
	cmd           uint64
}

// stamp is what identifies a version of a file on disk.
type stamp struct{ size, mtime int64 }

type cachedView struct {
	view readView
	// turn is the turn of the read, epoch the run (see Guard.epoch).
	turn, epoch int
	content     []llm.Content
	text        uint64 // exact hash of the text, for offline comparison
	chars       int    // length of the text
	st          stamp
	stamped     bool
}

type fileViews struct {
	path  string
	views []cachedView
}

// cacheHit is a cached view found for a call, checked fresh.
type cacheHit struct {
	fv *fileViews
	cv cachedView
}

// maxCachedFiles bounds the cache; older entries are dropped first.
const maxCachedFiles = 256

// lookupView finds a fresh cached copy of view of the file at path (see
// viewKey) for call c. It takes the lock only to look, so that the file
// check happens outside it.
func (g *Guard) lookupView(c *Call, view readView, path string) cacheHit {
	g.mu.Lock()
	fv := g.files[path]
	var cv cachedView
	found := false
	if fv != nil {
		for _, v := range fv.views {
			if v.view == view {
				cv, found = v, true
				break
			}
		}
	}
	g.mu.Unlock()
	if !found {
		return cacheHit{}
	}
	if g.opts.Offline {
		if c.Recorded != nil && (c.Recorded.IsError || exactHash(c.Recorded.Text()) != cv.text) {
			return cacheHit{} // the file changed by other means
		}
	} else if st, ok := g.stat(fv.path); !ok || !cv.stamped || st != cv.st {
		return cacheHit{}
	}
	return cacheHit{fv: fv, cv: cv}
}

func (g *Guard) decideReadCache(c *Call, hit cacheHit) (Decision, bool) {
	if hit.fv == nil || g.files[hit.fv.path] != hit.fv {
		return Decision{}, false // no copy, or invalidated since the lookup
	}
	if age := c.Turn - hit.cv.turn; hit.cv.epoch != g.epoch || age < 0 || age > g.s.readTurns {
		return Decision{}, false
	}
	turn := strconv.Itoa(hit.cv.turn)
	if g.s.copyReads {
		marker := "[guard read_cache] Unchanged since you read it in turn " + turn + "; this is the cached copy."
		content := make([]llm.Content, 0, len(hit.cv.content)+1)
		content = append(content, llm.Text(marker+"\n"))
		content = append(content, hit.cv.content...)
		return Decision{Action: Cached, Rule: RuleReadCache, Message: marker, Content: content}, true
	}
	if hit.cv.chars < MinReferenceChars {
		return Decision{}, false
	}
	var msg string
	if hit.cv.view.cmd != 0 {
		msg = "[guard read_cache] The file has not changed since " + describe(c) + " ran in turn " + turn +
			"; that output is still current, so the command was not run again."
	} else {
		msg = "[guard read_cache] " + shorten(viewPath(c.Args), 80) + " has not changed since you read these lines in turn " + turn +
			"; that result is still current, so it was not read again."
	}
	return Decision{Action: Cached, Rule: RuleReadCache, Message: msg, Content: []llm.Content{llm.Text(msg)}}, true
}

// viewPath is the path a read call names, as the model wrote it.
func viewPath(args []byte) string {
	if s, ok := fieldString(args, "path"); ok {
		return s
	}
	s, _ := fieldString(args, "file_path")
	return s
}

// ForgetReads drops every cached view and remembered output. A harness
// calls it when earlier tool results leave the conversation the model
// sees (masking, a compaction): read_cache and same_output answer by
// pointing at an earlier result, which must still be there.
func (g *Guard) ForgetReads() {
	g.mu.Lock()
	clear(g.files)
	clear(g.outputs)
	g.mu.Unlock()
}

// storeRead keeps the content of a successful read. Called with g.mu held.
func (g *Guard) storeRead(path string, view readView, turn, epoch int, content []llm.Content, text string, st stamp, stamped bool) {
	fv := g.files[path]
	if fv == nil {
		if len(g.files) >= maxCachedFiles {
			for p, f := range g.files {
				if v := f.views; len(v) == 0 || v[len(v)-1].epoch != epoch || turn-v[len(v)-1].turn > g.s.readTurns {
					delete(g.files, p)
				}
			}
			if len(g.files) >= maxCachedFiles {
				clear(g.files)
			}
		}
		fv = &fileViews{path: path}
		g.files[path] = fv
	}
	cv := cachedView{view: view, turn: turn, epoch: epoch, text: exactHash(text), chars: len(text), st: st, stamped: stamped}
	if g.s.copyReads {
		cv.content = slices.Clone(content)
	}
	for i := range fv.views {
		if fv.views[i].view == view {
			fv.views = append(fv.views[:i], fv.views[i+1:]...)
			break
		}
	}
	fv.views = append(fv.views, cv)
}

// readKey writes the resolved path of a read call into dst and returns it
// with the view asked for.
func (g *Guard) readKey(dst []byte, args []byte) (readView, []byte, bool) {
	raw, ok := field(args, "path")
	if !ok {
		if raw, ok = field(args, "file_path"); !ok {
			return readView{}, nil, false
		}
	}
	s, ok := stringValue(raw)
	if !ok || s == "" {
		return readView{}, nil, false
	}
	p := []byte(s)
	var v readView
	v.offset, _ = fieldInt(args, "offset")
	v.limit, _ = fieldInt(args, "limit")
	return v, resolvePath(dst, g.opts.Workdir, p), true
}

// viewKey writes into dst the resolved path of the file a call views and
// returns it with the view: a read's path, offset and limit, or a bash
// command that only views one file inside the workspace, keyed by the
// command (key). ok is false for any other call, and for bash views in
// copy mode (pi's cache knows reads only).
func (g *Guard) viewKey(dst []byte, c *Call, bi *bashInfo, key uint64) (v readView, path []byte, ok bool) {
	switch c.Tool {
	case "read":
		return g.readKey(dst, c.Args)
	case "bash":
		if g.s.copyReads || bi == nil || bi.suggest == nil || bi.suggest.tool != "read" || !g.reaches(bi.suggest.paths) {
			return readView{}, nil, false
		}
		return readView{cmd: key | 1}, resolvePath(dst, g.opts.Workdir, []byte(bi.suggest.paths[0])), true
	}
	return readView{}, nil, false
}

// readTarget returns the view and resolved path a read, write or edit
// call names, or "" when it names none.
func (g *Guard) readTarget(args []byte) (readView, string) {
	var buf [512]byte
	v, key, ok := g.readKey(buf[:0], args)
	if !ok {
		return readView{}, ""
	}
	return v, string(key)
}

// resolvePath appends p, made absolute against workdir and cleaned, to
// dst. It does not allocate when dst has room.
func resolvePath(dst []byte, workdir string, p []byte) []byte {
	if filepath.Separator != '/' {
		s := string(p)
		if !filepath.IsAbs(s) && workdir != "" {
			s = filepath.Join(workdir, s)
		}
		return append(dst, filepath.Clean(s)...)
	}
	start := len(dst)
	if p[0] != '/' && workdir != "" {
		dst = append(dst, workdir...)
		dst = append(dst, '/')
	}
	dst = append(dst, p...)
	c := cleanPath(dst[start:])
	return dst[:start+len(c)]
}

// cleanPath cleans a slash-separated path in place, as path.Clean does.
func cleanPath(b []byte) []byte {
	n := len(b)
	if n == 0 {
		return append(b, '.')
	}
	rooted := b[0] == '/'
	r, w, dotdot := 0, 0, 0
	if rooted {
		r, w, dotdot = 1, 1, 1
	}
	for r < n {
		switch {
		case b[r] == '/':
			r++
		case b[r] == '.' && (r+1 == n || b[r+1] == '/'):
			r++
		case b[r] == '.' && b[r+1] == '.' && (r+2 == n || b[r+2] == '/'):
			r += 2
			switch {
			case w > dotdot:
				w--
				for w > dotdot && b[w] != '/' {
					w--
				}
			case !rooted:
				if w > 0 {
					b[w] = '/'
					w++
				}
				b[w], b[w+1] = '.', '.'
				w += 2
				dotdot = w
			}
		default:
			if rooted && w != 1 || !rooted && w != 0 {
				b[w] = '/'
				w++
			}
			for ; r < n && b[r] != '/'; r++ {
				b[w] = b[r]
				w++
			}
		}
	}
	if w == 0 {
		b[0] = '.'
		w = 1
	}
	return b[:w]
}

// exactHash hashes text byte for byte.
func exactHash(s string) uint64 { return maphash.String(seed, s) }
