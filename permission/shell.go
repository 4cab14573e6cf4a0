package permission

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// command is one simple command of a shell script, after quotes are
// removed, known variables and aliases expanded and wrappers (timeout,
// nice, env, sudo, xargs …) looked through.
type command struct {
	// words are the command's words; a word that could not be evaluated
	// (a command substitution, an unknown variable) holds its source text
	// and has lit false.
	words []string
	lit   []bool
	// prog is the program the command runs: the base name of its first
	// word ("/bin/rm" runs rm); "" when it cannot be known statically,
	// and then unknown says why.
	prog    string
	unknown string
	// also are further programs the file named by the first word is (a
	// link to or a copy of a program a rule names), found by the gate.
	also []string
	// pipedFrom names the commands whose output reaches this one through
	// a pipe.
	pipedFrom []string
	// xargs is set when the command's operands come from xargs's input.
	xargs bool
	// writes are the targets of output redirections; reads those of
	// input redirections.
	writes []string
	reads  []string
	// paths are further paths the command may open: string literals of
	// inline code, find's start points.
	paths []string
	// synth marks a command made from another's arguments (find -exec,
	// a deletion or download in inline code).
	synth bool
	// joined is the words joined by spaces.
	joined string
}

// name is the program the command runs, or "" when it is not known.
func (c *command) name() string { return c.prog }

// text is the command as written, its words joined by spaces: what
// allow rules see.
func (c *command) text() string { return c.joined }

// progText is the command with its program by name ("/bin/rm -f x" is
// "rm -f x"): what deny and ask rules see besides text.
func (c *command) progText(prog string) string {
	if len(c.words) < 2 {
		return prog
	}
	return prog + " " + strings.Join(c.words[1:], " ")
}

// script is the analysis of one bash command string.
type script struct {
	// ok is false when the string (or a script nested in it) did not
	// parse; rules then cannot allow it.
	ok   bool
	cmds []command
	// raw is the command string; forkBomb is set when a function runs
	// copies of itself in a pipe or in the background.
	raw      string
	forkBomb bool
	// unknown says why part of what the script runs cannot be known
	// before it runs (empty when all of it can).
	unknown []string
}

// unknownWhy returns why the script cannot be known statically, or "".
func (s *script) unknownWhy() string {
	var why []string
	if !s.ok {
		why = append(why, "the command could not be parsed")
	}
	why = append(why, s.unknown...)
	for i := range s.cmds {
		if s.cmds[i].unknown != "" {
			why = append(why, s.cmds[i].unknown)
		}
	}
	if len(why) == 0 {
		return ""
	}
	if len(why) > 3 {
		why = why[:3]
	}
	return strings.Join(why, "; ")
}

// maxParse bounds the commands that are parsed; maxDepth bounds nested
// scripts (bash -c, eval, heredocs fed to a shell).
const (
	maxParse  = 64 << 10
	maxDepth  = 6
	maxParses = 64
)

// parseScript analyses src. It never fails: what does not parse is
// reported with ok false.
func parseScript(src string) *script {
	s := &script{ok: true, raw: src, cmds: make([]command, 0, 4)}
	a := &analyser{s: s} // its maps are made when first written
	a.parse(src, 0)
	return s
}

// parsers are reused: a parser is large to make and holds no state
// between Parse calls.
var parsers = sync.Pool{New: func() any { return syntax.NewParser() }}

type analyser struct {
	s       *script
	parses  int // nested scripts parsed so far, bounded by maxParses
	vars    map[string]string
	aliases map[string]string
	// ifs and path are set once the script changes IFS or PATH: from
	// then on word splitting and program lookup cannot be known.
	ifs, path bool
	// written holds the paths earlier commands wrote (cleaned, as
	// written), so that running one of them is not taken for the
	// program its name suggests.
	written map[string]bool
	// stdin is what a pipe feeds the command being walked.
	stdin pipeText
}

// pipeText is the output of the left side of a pipe (fed is set when
// there is one): known when it is an echo or printf of literal words.
type pipeText struct {
	text       string
	known, fed bool
}

// setVar records a variable's value.
func (a *analyser) setVar(name, v string) {
	if a.vars == nil {
		a.vars = map[string]string{}
	}
	a.vars[name] = v
}

// markWritten records a path an earlier command wrote.
func (a *analyser) markWritten(p string) {
	if a.written == nil {
		a.written = map[string]bool{}
	}
	a.written[p] = true
}

func (a *analyser) parse(src string, depth int) {
	a.parses++
	if depth > maxDepth || len(src) > maxParse || a.parses > maxParses {
		a.s.ok = false
		return
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		a.s.ok = false
		return
	}
	a.walk(f, depth)
}

// walk collects the simple commands of n in source order.
func (a *analyser) walk(n syntax.Node, depth int) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				before := len(a.s.cmds)
				a.walk(x.X, depth)
				var from []string
				for i := before; i < len(a.s.cmds); i++ {
					if nm := a.s.cmds[i].name(); nm != "" {
						from = append(from, nm)
					}
				}
				from = slices.Clip(from) // shared by the commands below
				out := a.output(x.X)
				out.fed = true
				mid := len(a.s.cmds)
				saved := a.stdin
				a.stdin = out
				a.walk(x.Y, depth)
				a.stdin = saved
				for i := mid; i < len(a.s.cmds); i++ {
					if a.s.cmds[i].pipedFrom == nil {
						a.s.cmds[i].pipedFrom = from
					} else {
						a.s.cmds[i].pipedFrom = append(a.s.cmds[i].pipedFrom, from...)
					}
				}
				return false
			}
		case *syntax.Stmt:
			if call, ok := x.Cmd.(*syntax.CallExpr); ok {
				// Nested nodes (command substitutions in the words) first,
				// so that they appear before the command that uses them.
				for _, w := range call.Args {
					if !plainWord(w) {
						a.walk(w, depth)
					}
				}
				for _, as := range call.Assigns {
					if as.Value != nil {
						a.walk(as.Value, depth)
					}
				}
				for _, r := range x.Redirs {
					if r.Word != nil {
						a.walk(r.Word, depth)
					}
				}
				a.call(call, x.Redirs, depth)
				for _, r := range x.Redirs {
					if r.Hdoc != nil {
						a.walk(r.Hdoc, depth)
					}
				}
				return false
			}
			if len(x.Redirs) > 0 {
				// Redirections of a compound command ({ …; } > f) or of
				// none (> f) write and read like any other.
				c := command{}
				a.redirects(&c, x.Redirs)
				a.s.cmds = append(a.s.cmds, c)
			}
		case *syntax.FuncDecl:
			if selfSpawning(x) {
				a.s.forkBomb = true
			}
		case *syntax.DeclClause:
			for _, as := range x.Args {
				if as.Name == nil {
					continue
				}
				a.assign(as.Name.Value)
				if as.Value != nil {
					if v, ok := a.word(as.Value); ok {
						a.setVar(as.Name.Value, v)
					}
				}
			}
		}
		return true
	})
}

// assign notes an assignment to a variable that steers the shell.
func (a *analyser) assign(name string) {
	switch name {
	case "IFS":
		a.ifs = true
	case "PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "BASHOPTS", "SHELLOPTS", "LD_PRELOAD", "LD_LIBRARY_PATH":
		a.path = true
	}
}

// output is what stmt writes to its standard output, when that is known
// statically: echo or printf of literal words, or cat of a here-document.
func (a *analyser) output(n syntax.Node) pipeText {
	st, ok := n.(*syntax.Stmt)
	if !ok {
		return pipeText{}
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return pipeText{}
	}
	if first, ok := a.word(call.Args[0]); !ok {
		return pipeText{}
	} else if b := path.Base(first); b != "echo" && b != "printf" && b != "cat" {
		return pipeText{} // the only programs whose output is known
	}
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		v, ok := a.word(w)
		if !ok {
			return pipeText{}
		}
		words = append(words, v)
	}
	switch path.Base(words[0]) {
	case "echo":
		args := words[1:]
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E") {
			args = args[1:]
		}
		return pipeText{text: strings.Join(args, " "), known: true}
	case "printf":
		if len(words) < 2 {
			return pipeText{}
		}
		f := strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(words[1])
		if len(words) > 2 {
			f += "\n" + strings.Join(words[2:], "\n")
		}
		return pipeText{text: f, known: true}
	case "cat":
		if len(words) == 1 {
			for _, r := range st.Redirs {
				if r.Hdoc != nil {
					if body, ok := a.word(r.Hdoc); ok {
						return pipeText{text: body, known: true}
					}
				}
			}
		}
	}
	return pipeText{}
}

// call records one simple command, following aliases, eval, shells given
// a script with -c or on a heredoc, and xargs.
func (a *analyser) call(call *syntax.CallExpr, redirs []*syntax.Redirect, depth int) {
	if len(call.Args) == 0 {
		for _, as := range call.Assigns {
			a.assign(as.Name.Value)
			if as.Value == nil {
				a.setVar(as.Name.Value, "")
				continue
			}
			if v, ok := a.word(as.Value); ok {
				a.setVar(as.Name.Value, v)
			} else {
				delete(a.vars, as.Name.Value)
			}
		}
		return
	}
	c := command{words: make([]string, 0, len(call.Args)), lit: make([]bool, 0, len(call.Args))}
	for _, as := range call.Assigns {
		switch as.Name.Value {
		case "PATH", "BASH_ENV", "ENV", "LD_PRELOAD", "LD_LIBRARY_PATH", "IFS":
			c.unknown = "the command sets " + as.Name.Value + ", so what it runs is only known at run time"
		}
	}
	for _, w := range call.Args {
		a.fields(&c, w)
	}
	a.redirects(&c, redirs)
	a.expand(c, redirs, depth)
}

// maxBraces bounds the words one brace expansion may give.
const maxBraces = 256

// program returns the program c runs, or why it cannot be known.
func (a *analyser) program(c *command) (string, string) {
	w := c.words[0]
	switch {
	case !c.lit[0]:
		return "", "the program name " + w + " is only known at run time"
	case strings.ContainsAny(w, "*?[") && w != "[" && w != "[[":
		return "", "the program name " + w + " is a pattern"
	case a.path:
		return "", "the command changed PATH or the shell's start-up files, so " + w + " may run another file"
	case strings.Contains(w, "/") && a.written[filepath.Clean(w)]:
		return "", "it runs " + w + ", which an earlier part of the command wrote (a copied or linked program)"
	}
	base := path.Base(strings.TrimRight(w, "/"))
	if w != "" && strings.Trim(w, "/") == "" || base == "." || base == ".." || base == "" {
		return "", "the program " + w + " is not a file name"
	}
	return base, ""
}

// expand unwraps c and appends it (and what it runs) to the script.
func (a *analyser) expand(c command, redirs []*syntax.Redirect, depth int) {
	var inner string
	var why string
	c.words, c.lit, c.xargs, inner, why = unwrap(c.words, c.lit)
	if why != "" && c.unknown == "" {
		c.unknown = why
	}
	if inner != "" {
		a.parse(inner, depth+1)
	}
	if len(c.words) == 0 {
		if len(c.writes)+len(c.reads) > 0 || c.unknown != "" {
			a.s.cmds = append(a.s.cmds, c)
		}
		return
	}
	c.joined = strings.Join(c.words, " ")
	prog, why := a.program(&c)
	c.prog = prog
	if c.unknown == "" {
		c.unknown = why
	}
	if v, ok := a.aliases[prog]; ok && prog != "" && depth < maxDepth && c.lit[0] && !strings.Contains(c.words[0], "/") {
		a.parse(v+" "+strings.Join(quoteAll(c.words[1:]), " "), depth+1)
		return
	}
	a.s.cmds = append(a.s.cmds, c)
	a.noteWrites(&c)
	a.nested(len(a.s.cmds)-1, redirs, depth)
}

// noteWrites remembers the files c creates, for program().
func (a *analyser) noteWrites(c *command) {
	for _, w := range c.writes {
		a.markWritten(filepath.Clean(w))
	}
	var ops []string
	switch c.prog {
	case "cp", "mv", "ln", "install", "rsync", "scp", "tee", "touch", "chmod", "dd", "curl", "wget", "gcc", "cc", "go", "tar", "unzip":
		ops = operands(c.words[1:])
	}
	switch c.prog {
	case "cp", "mv", "ln", "install", "rsync", "scp":
		if len(ops) > 0 {
			a.markWritten(filepath.Clean(ops[len(ops)-1]))
		}
		if len(ops) == 1 && c.prog == "ln" {
			a.markWritten(path.Base(ops[0]))
		}
	case "tee", "touch", "chmod", "dd", "curl", "wget", "gcc", "cc", "go", "tar", "unzip":
		for _, o := range ops {
			a.markWritten(filepath.Clean(strings.TrimPrefix(o, "of=")))
		}
	}
}

func (a *analyser) redirects(c *command, redirs []*syntax.Redirect) {
	for _, r := range redirs {
		if r.Word == nil {
			continue
		}
		v, ok := a.word(r.Word)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.ClbOut:
			if !ok && c.unknown == "" && !isProcSubst(r.Word) {
				c.unknown = "output goes to " + v + ", a file only known at run time"
			}
			c.writes = append(c.writes, v)
			a.socket(v)
		case syntax.RdrIn:
			a.socket(v)
			if !ok && c.unknown == "" && !isProcSubst(r.Word) {
				c.unknown = "input comes from " + v + ", a file only known at run time"
			}
			c.reads = append(c.reads, v)
		}
	}
}

// socket adds a curl for a redirection to bash's /dev/tcp and /dev/udp,
// which open network connections.
func (a *analyser) socket(target string) {
	if strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/") {
		a.synth("curl", []string{target}, 0)
	}
}

// selfSpawning reports whether f calls itself in a pipe or in the
// background, the shape of a fork bomb.
func selfSpawning(f *syntax.FuncDecl) bool {
	if f.Name == nil || f.Body == nil {
		return false
	}
	name := f.Name.Value
	found := false
	var visit func(n syntax.Node, spawned bool)
	visit = func(n syntax.Node, spawned bool) {
		syntax.Walk(n, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.Stmt:
				if x.Background && !spawned && x.Cmd != nil {
					visit(x.Cmd, true)
					return false
				}
			case *syntax.BinaryCmd:
				if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
					visit(x.X, true)
					visit(x.Y, true)
					return false
				}
			case *syntax.CallExpr:
				if spawned && len(x.Args) > 0 && x.Args[0].Lit() == name {
					found = true
				}
			}
			return true
		})
	}
	visit(f.Body, false)
	return found
}
