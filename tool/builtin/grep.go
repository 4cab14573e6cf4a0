package builtin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/reinhq/rein/tool"
)

// Limits of the grep tool.
const (
	GrepDefaultLimit = 100
	// grepMaxLine is the length past which a shown line is cut.
	grepMaxLine = 400
	// grepMaxContext bounds the context lines around a match.
	grepMaxContext = 20
)

// GrepOptions configures the grep tool.
type GrepOptions struct {
	// RipgrepPath is the rg executable; empty looks up rg on PATH. When
	// none is found the pure-Go search is used.
	RipgrepPath string
	// NoRipgrep forces the pure-Go search even when rg is installed.
	NoRipgrep bool
}

type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"Regular expression (RE2 syntax) matched against each line; see literal."`
	Path       string `json:"path,omitempty" jsonschema:"File or folder to search. Default: the workspace."`
	Glob       string `json:"glob,omitempty" jsonschema:"Only files matching this glob (*.go names, src/**/*.ts paths; a leading ! excludes)."`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"Match letters in either case."`
	Literal    bool   `json:"literal,omitempty" jsonschema:"Treat pattern as plain text."`
	Context    int    `json:"context,omitempty" jsonschema:"Lines of context around each match (at most 20)."`
	Limit      int    `json:"limit,omitempty" jsonschema:"Maximum matching lines. Default 100."`
}

// GrepDetails is the Details of a grep result.
type GrepDetails struct {
	Matches int    `json:"matches"` // matching lines, shown or not
	Shown   int    `json:"shown"`
	Backend string `json:"backend"` // "ripgrep" or "go"
}

const grepDescription = `Search file contents for a regular expression; lists path:line:text. Searches the workspace or path, skipping .gitignored, hidden and binary files unless path names them. Shows at most limit matches and 15 KB, then a count of the rest; lines over 400 bytes are cut.`

// Grep returns the grep tool: ripgrep when installed, a pure-Go search
// with the same rules and output otherwise.
func Grep(w Workspace, opts GrepOptions) *tool.Tool {
	rg := ""
	if !opts.NoRipgrep {
		rg = opts.RipgrepPath
		if rg == "" {
			rg, _ = exec.LookPath("rg")
		}
	}
	t := tool.MustNew("grep", grepDescription, func(ctx context.Context, call *tool.Call, in grepArgs) (tool.Result, error) {
		return grep(ctx, w, rg, in, tool.Hidden(ctx))
	})
	t.ReadOnly = true
	t.Idempotent = true
	return t
}

// grepQuery is a validated grep call.
type grepQuery struct {
	root    string
	start   string // absolute
	rel     string // start relative to root, "." for the root
	isFile  bool
	re      *regexp.Regexp // line regexp (Go syntax)
	glob    string         // without the leading "!"
	negGlob bool
	in      grepArgs
	// hide reports paths a deny rule covers (see tool.Hidden); hidden
	// counts those left out.
	hide   func(abs string) bool
	hidden *hiddenPaths
}

func grep(ctx context.Context, w Workspace, rg string, in grepArgs, hide func(string) bool) (tool.Result, error) {
	if in.Pattern == "" {
		return tool.Result{}, errors.New("pattern is empty; give a regular expression to search for")
	}
	if in.Context < 0 || in.Limit < 0 {
		return tool.Result{}, errors.New("context and limit must not be negative")
	}
	in.Context = min(in.Context, grepMaxContext)
	if in.Limit == 0 {
		in.Limit = GrepDefaultLimit
	}
	expr := in.Pattern
	if in.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return tool.Result{}, fmt.Errorf("invalid regular expression %q: %v. Escape special characters with a backslash, or set literal to true to search for the text as is", in.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	q := grepQuery{re: re, in: in, hide: hide, hidden: &hiddenPaths{}}
	if q.root, err = w.root(); err != nil {
		return tool.Result{}, err
	}
	if q.start, err = w.Resolve(in.Path); err != nil {
		return tool.Result{}, err
	}
	q.rel = rel(q.root, q.start)
	fi, err := os.Stat(q.start)
	if errors.Is(err, fs.ErrNotExist) {
		return tool.Result{}, errors.New(w.notFound(q.start))
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot search %s: %v", q.rel, err)
	}
	q.isFile = !fi.IsDir()
	if hide != nil && hide(q.start) {
		return tool.Result{}, fmt.Errorf("%s cannot be searched: a permission rule denies reading it", q.rel)
	}
	if g := strings.TrimSpace(in.Glob); g != "" {
		q.glob, q.negGlob = strings.CutPrefix(g, "!")
		q.glob = strings.TrimPrefix(q.glob, "/")
		if !doublestar.ValidatePattern(q.glob) {
			return tool.Result{}, fmt.Errorf("invalid glob %q", in.Glob)
		}
	}
	f := &grepFormatter{limit: in.Limit, context: in.Context}
	backend := "go"
	var warn string
	if rg != "" {
		backend = "ripgrep"
		warn, err = searchRipgrep(ctx, rg, q, f)
	} else {
		err = searchGo(ctx, q, f)
	}
	if err != nil {
		return tool.Result{}, err
	}
	d := GrepDetails{Matches: f.shown + f.more, Shown: f.shown, Backend: backend}
	var b strings.Builder
	if f.shown == 0 {
		where := q.rel
		if where == "." {
			where = "the workspace"
		}
		fmt.Fprintf(&b, "No matches for %q in %s", in.Pattern, where)
		if in.Glob != "" {
			fmt.Fprintf(&b, " (files matching %q)", in.Glob)
		}
		b.WriteString(".")
		if !q.isFile {
			b.WriteString(" Ignored, hidden and binary files were not searched.")
		}
	} else {
		b.WriteString(strings.TrimSuffix(f.out.String(), "\n"))
		switch {
		case f.more > 0 && f.capped:
			fmt.Fprintf(&b, "\n[%d matching lines shown (the output is capped at about %d KB); %d more matched. Narrow the pattern, path or glob.]", f.shown, MaxResultBytes/1000, f.more)
		case f.more > 0:
			fmt.Fprintf(&b, "\n[%d matching lines shown; %d more matched. Narrow the pattern, path or glob, or raise limit.]", f.shown, f.more)
		}
	}
	if warn != "" {
		b.WriteString("\n[" + warn + "]")
	}
	if note := q.hidden.note(); note != "" {
		b.WriteString("\n" + note)
	}
	return tool.Result{Content: tool.Text(b.String()).Content, Details: d}, nil
}

// grepEvent is one line found by a search backend: a match or a line of
// context around one.
type grepEvent struct {
	path  string // relative to the root, slash-separated
	line  int
	text  string // without the line break
	match bool
}

// grepFormatter turns the events of either backend into the same text:
// the first limit matches with their context, and a count of the rest.
type grepFormatter struct {
	limit, context int
	out            strings.Builder
	shown, more    int
	lastPath       string
	lastLine       int
	lastMatch      int
	closed         bool // past the limit, no more context can be shown
	capped         bool // the output budget ran out before the limit
}

// wantsContext reports whether a context event could still be shown.
func (f *grepFormatter) wantsContext() bool { return f.context > 0 && !f.closed }

// full reports whether no more matches can be shown: the limit or the
// output budget is reached.
func (f *grepFormatter) full() bool { return f.shown >= f.limit || f.capped }

func (f *grepFormatter) add(ev grepEvent) {
	if !f.full() && f.shown > 0 && f.out.Len()+len(ev.path)+min(len(ev.text), grepMaxLine)+32 > MaxResultBytes {
		f.capped = true
		if !ev.match {
			f.closed = true
			return
		}
	}
	if ev.match {
		if f.full() {
			f.more++
			f.closed = true
			return
		}
		f.shown++
	} else if f.full() {
		if f.closed || ev.path != f.lastPath || ev.line != f.lastLine+1 || ev.line-f.lastMatch > f.context {
			f.closed = true
			return
		}
	}
	if f.context > 0 && f.out.Len() > 0 && (ev.path != f.lastPath || ev.line != f.lastLine+1) {
		f.out.WriteString("--\n")
	}
	sep := "-"
	if ev.match {
		sep = ":"
		f.lastMatch = ev.line
	}
	text := visible(strings.TrimSuffix(ev.text, "\r"))
	if len(text) > grepMaxLine {
		text = cutString(text, grepMaxLine) + " [line cut]"
	}
	fmt.Fprintf(&f.out, "%s%s%d%s%s\n", ev.path, sep, ev.line, sep, strings.ToValidUTF8(text, "\uFFFD"))
	f.lastPath, f.lastLine = ev.path, ev.line
}

// visible writes the control characters of a line, other than tab, as
// escapes (\0 for NUL, \x01 …), so that a match in a binary file shows
// as text a model can read and quote.
func visible(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, c := range []byte(s[i:]) {
		switch {
		case c == 0:
			b.WriteString(`\0`)
		case c < 0x20 && c != '\t' || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// override applies the query's glob as ripgrep applies --glob: a match
// of a plain glob keeps an entry even when it is ignored or hidden, a
// file it does not match is dropped, and a match of a ! glob drops the
// entry (a directory with all it holds).
func (q *grepQuery) override(rel string, isDir bool) int {
	hit := globHit(q.glob, rel)
	switch {
	case q.negGlob && hit:
		return overrideExclude
	case q.negGlob:
		return overrideNone
	case hit:
		return overrideInclude
	case !isDir:
		return overrideExclude
	}
	return overrideNone
}

// globHit matches glob against the name of rel when glob has no slash,
// else against rel itself.
func globHit(glob, rel string) bool {
	target := rel
	if !strings.Contains(glob, "/") {
		target = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	ok, _ := doublestar.Match(glob, target)
	return ok
}
