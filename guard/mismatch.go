package guard

import (
	"encoding/json"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reinhq/rein/tool"
	shsyntax "mvdan.cc/sh/v3/syntax"
)

// Rule mismatch: bash used to view what a dedicated tool shows as well or
// better (cat instead of read, grep instead of the grep tool …). By
// default the command runs and a short hint naming the call to make is
// appended to its result, once per kind of command in a session; with
// "mismatch": "block" the command is not run and the model is told the
// call to make instead.
//
// The decision rests on a parse of the command. Only a command the tool
// serves without losing anything is recognised: one file or directory,
// inside the workspace, flags the tool can express, no binary dumps. A
// command that does more than view (writes a file, transforms output
// through a pipeline, uses a heredoc, runs in the background) is never
// recognised, and neither is one that does not parse.

// Mismatch modes, the values of Config.Mismatch.
const (
	// MismatchHint runs the command and appends a hint to its result
	// when the output is longer than the dedicated tool's page.
	MismatchHint = "hint"
	// MismatchAlways runs the command and appends a hint to its result.
	MismatchAlways = "always"
	// MismatchBlock does not run the command; the model is told which
	// call to make instead.
	MismatchBlock = "block"
)

// suggestion is the call of a dedicated tool that shows what a bash
// command shows.
type suggestion struct {
	// tool is the dedicated tool: read, grep, find or ls.
	tool string
	// kind names the command for hints, which are given once per kind.
	kind string
	// args are the call's arguments, in the order they are shown.
	args []arg
	// paths are the files and directories the call reaches; a call is
	// only suggested when they are inside the workspace.
	paths []string
	// why says what the tool does better; extra follows the call.
	why, extra string
}

type arg struct {
	name string
	val  any // string, int or bool
}

func (s *suggestion) add(name string, val any) { s.args = append(s.args, arg{name, val}) }

// call writes the arguments as the model would pass them:
// path="a.go", limit=20.
func (s *suggestion) call() string {
	var b strings.Builder
	for i, a := range s.args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.name)
		b.WriteByte('=')
		switch v := a.val.(type) {
		case string:
			b.WriteString(strconv.Quote(shorten(v, 120)))
		case int:
			b.WriteString(strconv.Itoa(v))
		case bool:
			b.WriteString(strconv.FormatBool(v))
		}
	}
	return b.String()
}

// argsJSON returns the arguments as the JSON object of a tool call.
func (s *suggestion) argsJSON() json.RawMessage {
	m := make(map[string]any, len(s.args))
	for _, a := range s.args {
		m[a.name] = a.val
	}
	b, _ := json.Marshal(m)
	return b
}

// decideMismatch hints at, or blocks, bash calls that only view what a
// dedicated tool the model has shows as well or better.
func (g *Guard) decideMismatch(c *Call, bi *bashInfo, binary bool) (Decision, bool) {
	if bi == nil || bi.suggest == nil || binary || !g.hasTool(bi.suggest.tool) || !g.reaches(bi.suggest.paths) {
		return Decision{}, false
	}
	s := bi.suggest
	if !g.s.block {
		if g.hinted[s.kind] {
			return Decision{}, false
		}
		g.hinted[s.kind] = true
		return Decision{
			Action:  Hint,
			Rule:    RuleMismatch,
			Message: "[guard mismatch] Next time use the " + s.tool + " tool for this: " + s.call() + s.extra + " (" + s.why + ").",
		}, true
	}
	cmd, _ := fieldString(c.Args, "command")
	return Decision{
		Action: Block,
		Rule:   RuleMismatch,
		Message: "[guard mismatch] bash `" + shorten(strings.TrimSpace(cmd), 80) + "` only views; use the " + s.tool +
			" tool with " + s.call() + s.extra + " instead (" + s.why + "). The command was not run.",
	}, true
}

// reaches reports whether every path is inside the workspace: relative
// and not climbing out of it, or absolute below Workdir. Paths starting
// with ~ are the shell's and never reached.
func (g *Guard) reaches(paths []string) bool {
	for _, p := range paths {
		switch {
		case p == "" || p[0] == '~' || p[0] == '-':
			return false
		case filepath.IsAbs(p):
			if g.opts.Workdir == "" {
				return false
			}
			rel, err := filepath.Rel(g.opts.Workdir, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return false
			}
		default:
			if c := path.Clean(p); c == ".." || strings.HasPrefix(c, "../") {
				return false
			}
		}
	}
	return true
}

// mismatch returns the dedicated tool call that shows what the statement
// shows, or nil when the statement does more than view or the tool could
// not show all of it.
func mismatch(s *shsyntax.Stmt) *suggestion {
	if s.Background || s.Negated || s.Coprocess || s.Disown || !viewRedirs(s.Redirs) {
		return nil
	}
	var stages [][]string
	if !flatten(s.Cmd, &stages) || len(stages) == 0 {
		return nil
	}
	words := stages[0]
	name, args := words[0], words[1:]
	rest := stages[1:]
	if name == "nl" || name == "sed" {
		return lineView(name, args, rest)
	}
	for _, st := range rest {
		if !pager(st) {
			return nil
		}
	}
	switch name {
	case "cat", "less", "more", "bat":
		allowed := ""
		if name == "cat" {
			allowed = "-n" // read numbers lines too
		}
		if !noFlags(args, allowed) {
			return nil // cat -A, -v, -s …: shown differently from the file
		}
		var w window
		if len(rest) == 1 {
			var ok bool
			if w, ok = pagerWindow(rest[0]); !ok {
				return nil
			}
		}
		return readSuggest(name, operands(args, nil), w)
	case "head", "tail":
		w, ok := headTail(name, args)
		if !ok {
			return nil
		}
		if len(rest) > 0 && !pagerOnly(rest) {
			return nil
		}
		return readSuggest(name, operands(args, map[string]bool{"-n": true, "--lines": true}), w)
	case "grep", "egrep", "fgrep", "rg", "ag":
		s := grepHint(name, args)
		if s == nil || len(rest) == 0 {
			return s
		}
		// grep … | head -n N: the first N matches, the tool's limit.
		if len(rest) > 1 || rest[0][0] != "head" || s.tool != "grep" {
			return nil
		}
		w, ok := headTail("head", rest[0][1:])
		if !ok {
			return nil
		}
		s.add("limit", w.limit)
		return s
	case "find":
		if len(rest) > 0 {
			return nil
		}
		return findHint(args)
	case "ls":
		if len(rest) > 0 {
			return nil
		}
		return lsHint(args)
	}
	return nil
}

// lsShort are the flags of ls the ls tool can show: long listing (l),
// every entry including dotfiles (a, A: the tool always lists them),
// human sizes (h), one per line (1), type marks (F, p), colour (G).
const lsShort = "laAh1FpG"

// lsHint redirects ls of one directory to the ls tool; with -l to its
// long listing. Sorting (-t, -S, -r), recursion and other flags pass.
func lsHint(args []string) *suggestion {
	long := false
	for _, a := range args {
		switch {
		case a == "--":
		case strings.HasPrefix(a, "--color"), a == "--all", a == "--almost-all", a == "--human-readable":
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			for _, f := range a[1:] {
				if !strings.ContainsRune(lsShort, f) {
					return nil
				}
				long = long || f == 'l'
			}
		case strings.HasPrefix(a, "--"):
			return nil
		}
	}
	dirs := operands(args, nil)
	if !plainPaths(dirs) || len(dirs) > 1 {
		return nil
	}
	p := "."
	if len(dirs) == 1 {
		p = dirs[0]
	}
	s := &suggestion{tool: "ls", kind: "ls", why: "sorted entries, directories marked with /", paths: []string{p}}
	s.add("path", p)
	if long {
		s.kind = "ls -l"
		s.why = "size, mode and modification time of each entry"
		s.add("long", true)
	}
	return s
}

// flatten collects the literal words of each stage of a pipeline of
// simple commands. It fails on anything else.
func flatten(cmd shsyntax.Command, out *[][]string) bool {
	switch x := cmd.(type) {
	case *shsyntax.BinaryCmd:
		if x.Op != shsyntax.Pipe && x.Op != shsyntax.PipeAll {
			return false
		}
		return stageOK(x.X) && flatten(x.X.Cmd, out) && stageOK(x.Y) && flatten(x.Y.Cmd, out)
	case *shsyntax.CallExpr:
		if len(x.Args) == 0 || len(x.Assigns) > 0 {
			return false
		}
		words := make([]string, 0, len(x.Args))
		for _, w := range x.Args {
			s, ok := wordLit(w)
			if !ok {
				return false
			}
			words = append(words, s)
		}
		*out = append(*out, words)
		return true
	}
	return false
}

func stageOK(s *shsyntax.Stmt) bool {
	return !s.Background && !s.Negated && !s.Coprocess && viewRedirs(s.Redirs)
}

// viewRedirs accepts only redirections that hide or merge error output
// (2>/dev/null, 2>&1).
func viewRedirs(rs []*shsyntax.Redirect) bool {
	for _, r := range rs {
		if r.N == nil || r.N.Value != "2" {
			return false
		}
		t, ok := wordLit(r.Word)
		if !ok {
			return false
		}
		switch {
		case (r.Op == shsyntax.RdrOut || r.Op == shsyntax.AppOut) && t == "/dev/null":
		case r.Op == shsyntax.DplOut && t == "1":
		default:
			return false
		}
	}
	return true
}

// pager reports whether a later pipeline stage only pages or cuts what
// comes in (head, tail, less, more without files).
func pager(words []string) bool {
	switch words[0] {
	case "head", "tail", "less", "more":
	default:
		return false
	}
	return len(operands(words[1:], map[string]bool{"-n": true, "--lines": true})) == 0
}

// operands returns the arguments that are not flags, skipping the value
// of each flag in valued.
func operands(args []string, valued map[string]bool) []string {
	var out []string
	flags := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if flags && a == "--" {
			flags = false
			continue
		}
		if flags && len(a) > 1 && a[0] == '-' {
			if valued[a] {
				i++
			}
			continue
		}
		if a == "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// plainPaths reports whether the paths are ordinary (no globs).
func plainPaths(ps []string) bool {
	for _, p := range ps {
		if p == "" || strings.ContainsAny(p, "*?[{\x00") {
			return false
		}
	}
	return true
}

// shorten cuts s to at most n bytes on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// The default pages of rein's tools (package tool/builtin): how many
// lines read, grep, find and ls return when the call sets no limit.
const (
	readPage = 2000
	grepPage = 100
	findPage = 1000
	lsPage   = 500
)

// worthHint reports whether a hinted command's output was longer than
// the suggested tool's page, so that the tool would have sent less: more
// lines than the page, or an output that the output limit (tool.Limit,
// which notes "truncated") had to cut. A shorter output is what the tool
// would have shown: a hint would cost tokens and save none.
func worthHint(bi *bashInfo, res *tool.Result) bool {
	if bi == nil || bi.suggest == nil {
		return false
	}
	if slices.Contains(res.Notes, "truncated") {
		return true
	}
	text := res.Text()
	page := 0
	switch bi.suggest.tool {
	case "read":
		page = readPage
	case "grep":
		// The grep tool's page counts matches; with context each match
		// may bring 2×context+1 lines.
		page = grepPage
		for _, a := range bi.suggest.args {
			if n, ok := a.val.(int); ok && a.name == "context" {
				page *= 2*n + 1
			}
		}
	case "find":
		page = findPage
	case "ls":
		page = lsPage
	}
	// bash's closing status line ("exit code: 0") is not output.
	if i := strings.LastIndex(strings.TrimRight(text, "\n"), "\n"); i >= 0 && strings.HasPrefix(text[i+1:], "exit code: ") {
		text = text[:i+1]
	}
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	return lines > page
}

// unhint takes back the hint of d, so that a later command of its kind
// may still be hinted. Called without g.mu held.
func (g *Guard) unhint(d Decision) {
	if d.bash == nil || d.bash.suggest == nil {
		return
	}
	g.mu.Lock()
	delete(g.hinted, d.bash.suggest.kind)
	g.mu.Unlock()
}
