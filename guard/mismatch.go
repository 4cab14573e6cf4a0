package guard

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	shsyntax "mvdan.cc/sh/v3/syntax"
)

// syntaxParse checks an RE2 pattern as the grep tool will read it.
func syntaxParse(p string) (*syntax.Regexp, error) { return syntax.Parse(p, syntax.Perl) }

// Rule mismatch: bash used to do what a dedicated tool does better (cat
// instead of read, grep instead of the grep tool …) is blocked with the
// call to make instead. The decision rests on a parse of the command: a
// command that does more than view (writes a file, transforms output
// through a pipeline, uses a heredoc, runs in the background) is never
// redirected, and neither is one that does not parse.

// decideMismatch blocks bash calls whose command only views.
func (g *Guard) decideMismatch(c *Call, bi *bashInfo) (Decision, bool) {
	if bi == nil || bi.redirect == "" || !g.hasTool(bi.redirect) {
		return Decision{}, false
	}
	cmd, _ := fieldString(c.Args, "command")
	return Decision{
		Action:  Block,
		Rule:    RuleMismatch,
		Message: "[guard mismatch] bash `" + shorten(strings.TrimSpace(cmd), 80) + "` only views; " + bi.hint + " instead. The command was not run.",
	}, true
}

// mismatch returns the dedicated tool that does what the statement does
// and what to tell the model, or "" when the statement does more than
// view.
func mismatch(s *shsyntax.Stmt) (tool, hint string) {
	if s.Background || s.Negated || s.Coprocess || s.Disown || !viewRedirs(s.Redirs) {
		return "", ""
	}
	var stages [][]string
	if !flatten(s.Cmd, &stages) || len(stages) == 0 {
		return "", ""
	}
	for _, st := range stages[1:] {
		if !pager(st) {
			return "", ""
		}
	}
	words := stages[0]
	name, args := words[0], words[1:]
	switch name {
	case "cat", "less", "more", "bat", "xxd", "hexdump":
		files := operands(args, nil)
		if len(files) == 0 || !plainPaths(files) {
			return "", ""
		}
		part := ""
		if len(stages) == 2 && len(files) == 1 {
			// cat FILE | head -N: the read tool's window.
			n, _ := lineCount(stages[1][1:])
			part = window(stages[1][0], n)
		}
		return "read", readHint(files, part)
	case "head", "tail":
		n, ok := lineCount(args)
		if !ok {
			return "", ""
		}
		files := operands(args, map[string]bool{"-n": true, "--lines": true})
		if len(files) == 0 || !plainPaths(files) {
			return "", ""
		}
		return "read", readHint(files, window(name, n))
	case "grep", "egrep", "fgrep", "rg", "ag":
		return grepHint(name, args)
	case "find":
		return findHint(args)
	case "ls":
		if len(stages) > 1 {
			return "", ""
		}
		for _, a := range args {
			if a == "-R" || a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'R') {
				return "", ""
			}
		}
		dirs := operands(args, nil)
		if !plainPaths(dirs) || len(dirs) > 1 {
			return "", ""
		}
		p := "."
		if len(dirs) == 1 {
			p = dirs[0]
		}
		return "ls", "use the ls tool with path=" + strconv.Quote(p)
	}
	return "", ""
}

// window says which read arguments show what head or tail -n N shows.
func window(name string, n int) string {
	switch {
	case name == "head" && n > 0:
		return "limit=" + strconv.Itoa(n)
	case name == "tail" && n > 0:
		return "offset and limit for its last " + strconv.Itoa(n) + " lines"
	case name == "tail":
		return "offset and limit for its end"
	}
	return ""
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
		if len(x.Args) == 0 {
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
	if _, ok := lineCount(words[1:]); !ok {
		return false
	}
	return len(operands(words[1:], map[string]bool{"-n": true, "--lines": true})) == 0
}

// lineCount reads head/tail's line count; ok is false for byte counts and
// follow mode, which are not views of a file.
func lineCount(args []string) (n int, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "-F" || strings.HasPrefix(a, "--follow") || a == "--retry":
			return 0, false
		case a == "-c" || strings.HasPrefix(a, "--bytes") || strings.HasPrefix(a, "-c"):
			return 0, false
		case a == "-n" || a == "--lines":
			if i+1 < len(args) {
				n, _ = strconv.Atoi(strings.TrimPrefix(args[i+1], "+"))
				i++
			}
		case strings.HasPrefix(a, "--lines="):
			n, _ = strconv.Atoi(strings.TrimPrefix(a[len("--lines="):], "+"))
		case strings.HasPrefix(a, "-n"):
			n, _ = strconv.Atoi(strings.TrimPrefix(a[2:], "+"))
		case len(a) > 1 && a[0] == '-' && isDigit(a[1]):
			n, _ = strconv.Atoi(a[1:])
		case strings.HasPrefix(a, "-") && strings.ContainsAny(a, "fF"):
			return 0, false
		}
	}
	return n, true
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

func readHint(files []string, part string) string {
	var b strings.Builder
	b.WriteString("use the read tool with path=")
	b.WriteString(strconv.Quote(files[0]))
	if part != "" {
		b.WriteString(", ")
		b.WriteString(part)
	} else {
		b.WriteString(" (offset/limit for a part)")
	}
	if len(files) > 1 {
		b.WriteString(", one call per file (")
		b.WriteString(shorten(strings.Join(files, ", "), 120))
		b.WriteString(")")
	}
	return b.String()
}

// grepValued are grep/rg/ag flags that take the next argument as value.
var grepValued = map[string]bool{
	"-e": true, "-f": true, "-A": true, "-B": true, "-C": true, "-m": true, "-d": true,
	"-D": true, "-g": true, "-t": true, "-T": true, "-M": true, "-j": true, "-E": false,
	"--regexp": true, "--file": true, "--glob": true, "--type": true, "--max-count": true,
	"--max-depth": true, "--context": true, "--after-context": true, "--before-context": true,
	"--include": true, "--exclude": true, "--type-not": true, "--threads": true,
}

// grepCall is what a grep command line asks for, in the grep tool's terms.
type grepCall struct {
	patterns  []string
	fixed     bool // -F, fgrep: plain text
	basic     bool // grep without -E: POSIX basic syntax
	word      bool // -w
	line      bool // -x
	icase     bool
	context   int
	glob      string
	recursive bool
	files     bool // rg/ag --files: list files, no search
}

// grepShort are the single-letter flags a grep command may combine
// ("-rni") that the grep tool can express or that do not change what is
// found; any other letter makes the command pass.
const grepShort = "rRnHhisIEFwxNU"

// grepHint redirects a search to the grep tool when the tool can give
// the same answer, with the arguments that keep its meaning; inverted
// matches, counts, file lists, PCRE and the like pass.
func grepHint(name string, args []string) (string, string) {
	g := grepCall{basic: name == "grep", fixed: name == "fgrep", recursive: name == "rg" || name == "ag"}
	value := func(i *int, a string) (string, bool) {
		if *i+1 >= len(args) {
			return "", false
		}
		*i++
		return args[*i], true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		key, val, hasVal := strings.Cut(a, "=")
		switch key {
		case "-e", "--regexp":
			if !hasVal {
				var ok bool
				if val, ok = value(&i, a); !ok {
					return "", ""
				}
			}
			g.patterns = append(g.patterns, val)
			continue
		case "-A", "-B", "-C", "--context", "--after-context", "--before-context":
			if !hasVal {
				val, _ = value(&i, a)
			}
			n, err := strconv.Atoi(val)
			if err != nil {
				return "", ""
			}
			g.context = max(g.context, n)
			continue
		case "-g", "--glob", "--include":
			if !hasVal {
				val, _ = value(&i, a)
			}
			if g.glob != "" || val == "" {
				return "", "" // several globs
			}
			g.glob = val
			continue
		case "--files":
			g.files = true
			continue
		case "--ignore-case":
			g.icase = true
			continue
		case "--fixed-strings":
			g.fixed = true
			continue
		case "--extended-regexp":
			g.basic = false
			continue
		case "--recursive", "--line-number", "--with-filename", "--no-filename", "--color", "--colour", "--no-heading", "--heading":
			g.recursive = g.recursive || key == "--recursive"
			continue
		}
		if a[1] == '-' {
			return "", "" // a long option the grep tool has no match for
		}
		if len(a) == 2 && grepValued[a] {
			return "", "" // -f, -m, -t …: patterns from a file, counts, types
		}
		for _, f := range a[1:] {
			if !strings.ContainsRune(grepShort, f) {
				return "", ""
			}
			switch f {
			case 'r', 'R':
				g.recursive = true
			case 'i':
				g.icase = true
			case 'E':
				g.basic = false
			case 'F':
				g.fixed = true
			case 'w':
				g.word = true
			case 'x':
				g.line = true
			}
		}
	}
	ops := operands(args, grepValued)
	if g.files {
		if name == "grep" || len(g.patterns) > 0 || len(ops) > 1 || !plainPaths(ops) {
			return "", ""
		}
		hint := "use the find tool with pattern=" + strconv.Quote(cmpGlob(g.glob))
		if len(ops) == 1 {
			hint += ", path=" + strconv.Quote(ops[0])
		}
		return "find", hint
	}
	if len(g.patterns) == 0 {
		if len(ops) == 0 {
			return "", ""
		}
		g.patterns, ops = ops[:1], ops[1:]
	}
	if len(ops) == 0 && !g.recursive {
		return "", "" // reads its input
	}
	pattern, literal, ok := g.pattern()
	if !ok {
		return "", ""
	}
	hint := "use the grep tool with pattern=" + strconv.Quote(shorten(pattern, 80))
	if literal {
		hint += ", literal=true"
	}
	if g.icase {
		hint += ", ignore_case=true"
	}
	if g.context > 0 {
		hint += ", context=" + strconv.Itoa(min(g.context, 20))
	}
	if g.glob != "" {
		hint += ", glob=" + strconv.Quote(g.glob)
	}
	if len(ops) == 1 {
		hint += ", path=" + strconv.Quote(ops[0])
	} else if len(ops) > 1 {
		hint += ", one path at a time (" + shorten(strings.Join(ops, ", "), 120) + ")"
	}
	return "grep", hint
}

// cmpGlob is the find pattern listing what rg --files lists.
func cmpGlob(glob string) string {
	if glob == "" {
		return "*"
	}
	return glob
}

// pattern returns the grep tool's pattern for the command's patterns,
// and whether it is plain text. ok is false when the tool cannot say the
// same thing.
func (g *grepCall) pattern() (p string, literal, ok bool) {
	if len(g.patterns) == 1 && g.fixed && !g.word && !g.line {
		return g.patterns[0], true, true
	}
	alts := make([]string, len(g.patterns))
	for i, q := range g.patterns {
		switch {
		case g.fixed:
			q = regexp.QuoteMeta(q)
		case g.basic:
			q = basicToRE2(q)
		}
		if _, err := syntaxParse(q); err != nil {
			return "", false, false // PCRE or a back-reference: RE2 cannot
		}
		alts[i] = q
	}
	p = strings.Join(alts, "|")
	if len(alts) > 1 && (g.word || g.line) {
		p = "(?:" + p + ")"
	}
	if g.word {
		p = `\b` + p + `\b`
	}
	if g.line {
		p = "^" + p + "$"
	}
	return p, false, true
}

// basicToRE2 rewrites a POSIX basic regular expression, where \| \( \)
// \{ \} \+ \? are operators and the bare characters are literal, into
// RE2 syntax, where it is the other way round.
func basicToRE2(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && strings.IndexByte("|(){}+?", p[i+1]) >= 0:
			b.WriteByte(p[i+1])
			i++
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case strings.IndexByte("|(){}+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// findOK are the find predicates the find tool can express.
var findOK = map[string]bool{"-name": true, "-o": true, "-or": true, "-print": true, "-type": true, "(": true, ")": true}

// findHint redirects find to the find tool when it only matches names
// (several -name joined by -o become one {a,b} pattern); predicates the
// tool has no equivalent for (sizes, times, depth, case-insensitive
// names, actions) make the command pass.
func findHint(args []string) (string, string) {
	var roots []string
	var names []string
	typ := ""
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		roots = append(roots, args[i])
		i++
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !findOK[a] {
			return "", ""
		}
		switch a {
		case "-name":
			if i+1 >= len(args) || strings.ContainsAny(args[i+1], "{},/") {
				return "", ""
			}
			names = append(names, args[i+1])
			i++
		case "-type":
			if i+1 >= len(args) || typ != "" || (args[i+1] != "f" && args[i+1] != "d") {
				return "", ""
			}
			typ = args[i+1]
			i++
		}
	}
	if len(names) == 0 || len(roots) > 1 || !plainPaths(roots) {
		return "", ""
	}
	pattern := names[0]
	if len(names) > 1 {
		pattern = "{" + strings.Join(names, ",") + "}"
	}
	hint := "use the find tool with pattern=" + strconv.Quote(pattern)
	if len(roots) == 1 {
		hint += ", path=" + strconv.Quote(roots[0])
	}
	switch typ {
	case "d":
		hint += " (directories are the entries ending in /)"
	case "f":
		hint += " (files are the entries not ending in /)"
	}
	return "find", hint
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
