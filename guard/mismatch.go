package guard

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
func mismatch(s *syntax.Stmt) (tool, hint string) {
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
		return "read", readHint(files, "")
	case "head", "tail":
		n, ok := lineCount(args)
		if !ok {
			return "", ""
		}
		files := operands(args, map[string]bool{"-n": true, "--lines": true})
		if len(files) == 0 || !plainPaths(files) {
			return "", ""
		}
		part := ""
		switch {
		case name == "head" && n > 0:
			part = "limit=" + strconv.Itoa(n)
		case name == "tail" && n > 0:
			part = "offset and limit for its last " + strconv.Itoa(n) + " lines"
		case name == "tail":
			part = "offset and limit for its end"
		}
		return "read", readHint(files, part)
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

// flatten collects the literal words of each stage of a pipeline of
// simple commands. It fails on anything else.
func flatten(cmd syntax.Command, out *[][]string) bool {
	switch x := cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op != syntax.Pipe && x.Op != syntax.PipeAll {
			return false
		}
		return stageOK(x.X) && flatten(x.X.Cmd, out) && stageOK(x.Y) && flatten(x.Y.Cmd, out)
	case *syntax.CallExpr:
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

func stageOK(s *syntax.Stmt) bool {
	return !s.Background && !s.Negated && !s.Coprocess && viewRedirs(s.Redirs)
}

// viewRedirs accepts only redirections that hide or merge error output
// (2>/dev/null, 2>&1).
func viewRedirs(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		if r.N == nil || r.N.Value != "2" {
			return false
		}
		t, ok := wordLit(r.Word)
		if !ok {
			return false
		}
		switch {
		case (r.Op == syntax.RdrOut || r.Op == syntax.AppOut) && t == "/dev/null":
		case r.Op == syntax.DplOut && t == "1":
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

func grepHint(name string, args []string) (string, string) {
	pattern, explicit, recursive := "", false, name != "grep" && name != "egrep" && name != "fgrep"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "--regexp":
			if i+1 < len(args) {
				pattern, explicit = args[i+1], true
			}
		case strings.HasPrefix(a, "--regexp="):
			pattern, explicit = a[len("--regexp="):], true
		case a == "-f" || a == "--file" || strings.HasPrefix(a, "--file="):
			return "", "" // patterns from a file
		case a == "-r" || a == "-R" || a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"):
			recursive = true
		}
	}
	ops := operands(args, grepValued)
	if !explicit {
		if len(ops) == 0 {
			return "", ""
		}
		pattern, ops = ops[0], ops[1:]
	}
	if len(ops) == 0 && !recursive {
		return "", "" // reads its input
	}
	hint := "use the grep tool with pattern=" + strconv.Quote(shorten(pattern, 80))
	if len(ops) == 1 {
		hint += ", path=" + strconv.Quote(ops[0])
	} else if len(ops) > 1 {
		hint += ", one path at a time (" + shorten(strings.Join(ops, ", "), 120) + ")"
	}
	return "grep", hint
}

func findHint(args []string) (string, string) {
	var roots []string
	pattern := ""
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		roots = append(roots, args[i])
		i++
	}
	for ; i < len(args); i++ {
		switch args[i] {
		case "-name", "-iname":
			if i+1 < len(args) {
				pattern = args[i+1]
				i++
			}
		case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
			return "", ""
		}
	}
	if pattern == "" || len(roots) > 1 || !plainPaths(roots) {
		return "", ""
	}
	hint := "use the find tool with pattern=" + strconv.Quote(pattern)
	if len(roots) == 1 {
		hint += ", path=" + strconv.Quote(roots[0])
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
