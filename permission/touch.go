package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// One notion of what a call touches, for every rule and every tool: a
// path tool touches its path; a bash command touches the paths its
// commands read and write (operands, redirections, literals of inline
// code) and runs its programs. Deny and ask rules on paths apply to
// bash through these touches; programs are matched by name whatever
// path or wrapper runs them, and as members of their family (unlink is
// an rm, wget a curl).

// families are programs that do the same thing: a deny or ask rule on
// one applies to all.
var families = [][]string{
	{"rm", "unlink", "rmdir", "shred", "srm", "wipe", "trash", "trash-put", "gio-trash"},
	{"curl", "wget", "wget2", "http", "https", "xh", "curlie", "httpie", "aria2c", "axel", "lwp-request", "lwp-download", "GET", "POST", "HEAD", "lynx", "w3m", "links", "elinks", "nc", "ncat", "netcat", "socat", "telnet", "fetch"},
}

var familyOf = func() map[string][]string {
	m := map[string][]string{}
	for _, f := range families {
		for _, p := range f {
			m[p] = f
		}
	}
	return m
}()

// appendDenyTexts appends to out the texts deny and ask rules see for
// c: as written, with the program by name, and with each program of its
// family in its place.
func appendDenyTexts(out []string, c *command) []string {
	out = append(out, c.text())
	add := func(p string) {
		if p == "" {
			return
		}
		if p != c.words[0] { // else progText(p) is text()
			out = append(out, c.progText(p))
		}
		for _, m := range familyOf[p] {
			if m != p {
				out = append(out, c.progText(m))
			}
		}
	}
	add(c.prog)
	for _, p := range c.also {
		add(p)
	}
	return out
}

// touch is one path a bash command may read or write.
type touch struct {
	abs         string // absolute, clean; "" when unknown
	read, write bool
	// recursive: the command works on everything below the path.
	recursive bool
	// maybe: write is set only because the command is not one whose
	// effects are known; parent: changing the path renames or removes
	// what is below it (mv, rm -r).
	maybe, parent bool
	// probed is set once real and info are filled in: where links lead
	// ("" when nowhere else) and the file's info (nil when it is absent).
	probed bool
	// unknown says why the path cannot be known before the command runs.
	unknown string
	real    string
	info    os.FileInfo
}

// probeCache holds what one decision learnt of the file system: a
// path's Lstat info, nil when it is absent. above is the gate's own,
// shared and never written (see Gate.above); the decision's own are in
// few (most decisions look at a handful of paths) and then in more.
type probeCache struct {
	above map[string]os.FileInfo
	few   [8]probed
	n     int
	more  map[string]os.FileInfo
}

type probed struct {
	path string
	info os.FileInfo
}

func (c *probeCache) get(p string) (os.FileInfo, bool) {
	if c == nil {
		return nil, false
	}
	if fi, ok := c.above[p]; ok {
		return fi, true
	}
	for _, e := range c.few[:c.n] {
		if e.path == p {
			return e.info, true
		}
	}
	fi, ok := c.more[p]
	return fi, ok
}

func (c *probeCache) put(p string, fi os.FileInfo) {
	switch {
	case c == nil:
	case c.n < len(c.few):
		c.few[c.n] = probed{p, fi}
		c.n++
	default:
		if c.more == nil {
			c.more = map[string]os.FileInfo{}
		}
		c.more[p] = fi
	}
}

// probe looks at the touched file once, however many rules ask; cache
// holds what this decision already learnt of directories on the way.
func (t *touch) probe(cache *probeCache) {
	if t.probed {
		return
	}
	t.probed = true
	t.real, t.info = probePath(t.abs, cache)
}

// probePath returns where p leads once links are resolved ("" when
// that is p itself) and its info (nil when it does not exist). It
// looks at p's components from the top, each once per decision (see
// probeCache), and stops at the first that does not exist, so paths
// that are not there cost few system calls.
func probePath(p string, cache *probeCache) (string, os.FileInfo) {
	p = filepath.Clean(p)
	const sep = filepath.Separator
	full := p // the components below the root, each cur a prefix of it
	if full == "" || full[0] != sep {
		full = string(sep) + full
	}
	for start := 1; start < len(full); {
		end := len(full)
		if i := strings.IndexByte(full[start:], sep); i >= 0 {
			end = start + i
		}
		cur := full[:end]
		fi, seen := cache.get(cur)
		if !seen {
			if st, err := os.Lstat(cur); err == nil {
				fi = st
			}
			cache.put(cur, fi)
		}
		if fi == nil {
			return "", nil // neither it nor anything below exists
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			info, err := os.Stat(p)
			if err != nil {
				info = nil
			}
			return resolveLinks(p), info
		}
		if end == len(full) {
			return "", fi
		}
		start = end + 1
	}
	fi, _ := os.Lstat(p)
	return "", fi
}

// noFiles are commands whose operands are not files they open.
var noFiles = set("echo", "printf", "true", "false", "test", "[", "[[", "export", "local", "declare", "set", "unset", "shift", "sleep",
	"exit", "return", "kill", "seq", "expr", "date", "whoami", "id", "uname", "pwd", "read", "wait", "jobs", "type", "which", "hash",
	"alias", "unalias", "basename", "dirname", "printenv", "cd", "pushd", "popd", "trap", "eval", "let", "umask", "ulimit", "history",
	"fg", "bg", "disown", "break", "continue", "getopts", "times", "tput", "clear", "tty", "nproc", "arch", "hostname", "uptime", "free",
	"yes", "command", "builtin", "exec", "source", ".", "git")

// gitFileSubs are the git subcommands whose operands may be files.
var gitFileSubs = set("add", "rm", "mv", "checkout", "restore", "show", "log", "diff", "blame", "grep", "cat-file", "apply", "am", "archive", "hash-object", "cp", "stash")

// writesAll are commands that change every operand; writesLast change
// the last operand and read the others.
var (
	writesAll  = set("rm", "rmdir", "unlink", "shred", "touch", "truncate", "chmod", "chown", "chgrp", "mkdir", "tee", "mv", "srm", "wipe", "trash", "trash-put", "setfacl", "chattr", "mkfifo")
	writesLast = set("cp", "ln", "install", "rsync", "scp", "link")
	readsOnly  = set("cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "ack", "wc", "ls", "stat", "file", "du", "tree",
		"diff", "cmp", "md5sum", "sha256sum", "sha1sum", "realpath", "readlink", "nl", "tac", "od", "xxd", "strings", "base64", "sort", "uniq", "cut", "jq")
	searchers  = set("grep", "egrep", "fgrep", "rg", "ag", "ack", "git grep")
	patternArg = set("git grep", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "nawk", "jq", "yq")
	alwaysRec  = set("git grep", "rg", "ag", "ack", "tar", "zip", "7z", "rsync", "du", "mv")
)

// recursive reports whether c works on the whole tree below its
// operands.
func recursive(c *command, prog string) bool {
	if alwaysRec[prog] {
		return true
	}
	for _, w := range c.words[1:] {
		if w == "--recursive" || w == "--archive" || w == "--dereference-recursive" || strings.HasPrefix(w, "--directories=recurse") {
			return true
		}
		if len(w) > 1 && w[0] == '-' && w[1] != '-' {
			switch c.prog {
			case "grep", "egrep", "fgrep", "cp", "scp", "rm", "zip", "chmod", "chown", "chgrp", "setfacl", "ls":
				if strings.ContainsAny(w[1:], "rR") || (c.prog == "cp" && strings.Contains(w[1:], "a")) {
					return true
				}
			}
		}
	}
	return false
}

// touches returns what the commands of s read and write, resolved from
// the workspace through the script's cd commands.
func (g *Gate) touches(s *script) []touch {
	n := 0
	for i := range s.cmds {
		c := &s.cmds[i]
		n += len(c.words) + len(c.writes) + len(c.reads) + len(c.paths)
	}
	out := make([]touch, 0, n) // about one a word
	cwd := g.o.Workdir
	add := func(w string, lit, read, write, rec bool) {
		if strings.HasPrefix(w, "/dev/") || w == "-" || strings.Contains(w, "://") {
			return
		}
		t := touch{read: read, write: write, recursive: rec}
		switch {
		case !lit:
			t.unknown = "the path " + w + " is only known at run time"
		case cwd == "" && !filepath.IsAbs(w) && !strings.HasPrefix(w, "~"):
			t.unknown = "the path " + w + " is relative to a directory only known at run time"
		default:
			t.abs = g.resolve(cwd, w)
			if strings.ContainsAny(w, "*?[") {
				// A pattern: the files it matches now are touched too.
				ms, _ := filepath.Glob(t.abs)
				for _, m := range ms[:min(len(ms), 256)] {
					mt := t
					mt.abs = m
					out = append(out, mt)
				}
			}
		}
		out = append(out, t)
	}
	for i := range s.cmds {
		c := &s.cmds[i]
		for _, w := range c.writes {
			add(w, !strings.Contains(w, "$") && !strings.Contains(w, "`"), false, true, false)
		}
		for _, w := range c.reads {
			add(w, !strings.Contains(w, "$") && !strings.Contains(w, "`"), true, false, false)
		}
		for _, w := range c.paths {
			w = strings.TrimLeft(w, "<>+|& ") // open's mode prefixes (">file")
			if w != "" && len(w) < 4096 && !strings.ContainsAny(w, "\n") {
				add(w, true, true, true, false)
			}
		}
		if len(c.words) == 0 || c.prog == "" {
			continue
		}
		if c.prog == "cd" || c.prog == "pushd" {
			switch {
			case len(c.words) < 2:
				cwd = g.o.Home
			case !c.lit[1]:
				cwd = ""
			case cwd != "" || filepath.IsAbs(c.words[1]):
				cwd = g.resolve(cwd, c.words[1])
			}
			continue
		}
		prog := c.prog
		args, lits := c.words[1:], c.lit[1:]
		if prog == "git" {
			sub, rest, _ := gitArgs(c)
			if !gitFileSubs[sub] {
				continue
			}
			args = append([]string(nil), rest...)
			lits = make([]bool, len(rest))
			for j := range lits {
				lits[j] = !strings.Contains(rest[j], "$(") && !strings.Contains(rest[j], "`")
			}
			prog = "git " + sub
			for j, w := range args {
				if _, p, ok := strings.Cut(w, ":"); ok && !strings.HasPrefix(w, "-") {
					args[j] = p // rev:path names a file
				}
			}
		}
		if noFiles[prog] && !strings.HasPrefix(prog, "git ") {
			continue
		}
		rec := recursive(c, prog)
		var ops []int
		skipPattern := patternArg[prog]
		for j, w := range args {
			if strings.HasPrefix(w, "-") && w != "-" {
				if w == "-e" || w == "-f" || w == "--regexp" || w == "--file" || w == "--expression" {
					skipPattern = false
				}
				if k, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(k, "--") && v != "" {
					add(v, lits[j], true, true, rec)
				}
				continue
			}
			if skipPattern {
				skipPattern = false
				continue
			}
			if k, v, ok := strings.Cut(w, "="); ok && (prog == "dd" || !strings.Contains(k, "/")) && k != "" && !strings.ContainsAny(k, ".") {
				if prog == "dd" {
					add(v, lits[j], k == "if", k == "of", false)
				} else if v != "" {
					add(strings.TrimPrefix(v, "@"), lits[j], true, true, false)
				}
				continue
			}
			if strings.HasPrefix(w, "@") && len(w) > 1 {
				add(w[1:], lits[j], true, false, false) // curl -d @file
			}
			ops = append(ops, j)
		}
		if len(ops) == 0 && rec && searchers[prog] {
			add(".", true, true, false, true) // searches the current directory
		}
		if c.xargs {
			out = append(out, touch{read: true, write: true, unknown: "the operands of " + prog + " come from xargs's input"})
		}
		for n, j := range ops {
			read, write, maybe := true, true, false
			switch {
			case writesAll[prog]:
			case writesLast[prog]:
				write = n == len(ops)-1
				read = !write || len(ops) == 1
			case prog == "sed":
				write = hasFlag(c, 'i', "--in-place")
			case readsOnly[prog]:
				write = false
			default:
				maybe = true
			}
			from := len(out)
			add(args[j], lits[j], read, write, rec)
			for k := from; k < len(out); k++ {
				out[k].maybe = maybe
				out[k].parent = prog == "mv" || writesAll[prog] && rec
			}
		}
	}
	return out
}

func hasFlag(c *command, short byte, long string) bool {
	for _, w := range c.words[1:] {
		if w == long || strings.HasPrefix(w, long+"=") || len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], short) >= 0 {
			return true
		}
	}
	return false
}

// maxWalk bounds the entries one look below a directory visits.
const maxWalk = 20000

var errWalkDone = errors.New("done")

// unknown returns why the bash command of s cannot be vouched for, or
// "" when it can. Unknown matters when the blocker is on or a rule
// could deny or ask about it: programs only known at run time, and
// paths only known at run time when path rules are in force.
func (g *Gate) unknown(s *subject, rules []Rule) string {
	bashRules, pathRules := false, false
	for i := range rules {
		r := &rules[i]
		if r.Effect == Allow {
			continue
		}
		if r.globs != nil {
			pathRules = true
		} else if r.bashKind() {
			bashRules = true
		}
	}
	if why := s.bash.unknownWhy(); why != "" && (g.o.Blocker != BlockerOff || bashRules || pathRules) {
		return why
	}
	if pathRules {
		for _, t := range s.touches {
			if t.unknown != "" {
				return t.unknown
			}
		}
	}
	return ""
}

// linkedPrograms notes, for commands that run a file by path (./x),
// which programs named by the rules' families that file is.
func (g *Gate) linkedPrograms(s *script) {
	for i := range s.cmds {
		c := &s.cmds[i]
		if c.prog == "" || !strings.Contains(c.words[0], "/") || systemDir(c.words[0]) {
			continue
		}
		var progs []string
		for _, f := range families {
			progs = append(progs, f[0])
		}
		progs = append(progs, "rm", "curl", "wget", "git", "sh", "bash", "python3", "perl")
		c.also = sameProgram(c.words[0], g.o.Workdir, progs)
	}
}

// systemDir reports whether p names a file in a system program
// directory, whose name says what it is.
func systemDir(p string) bool {
	d := filepath.Dir(p)
	switch d {
	case "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin":
		return true
	}
	return false
}

// hider returns the test of paths a call of the named tool must leave
// out as it walks a tree (grep and find with no path, or a glob): what a
// deny or ask rule on paths covers for that tool, by name, where links
// lead, or as a hard link of a covered file. nil when no rule applies.
func (g *Gate) hider(name string) func(abs string) bool {
	g.mu.RLock()
	all := g.rules
	g.mu.RUnlock()
	var rs []*Rule
	for i := range all {
		r := &all[i]
		if r.Effect != Allow && r.globs != nil && r.matchesTool(name) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	return func(abs string) bool {
		p := abs
		if g.realWork != "" && within(g.realWork, abs) {
			if rel, err := filepath.Rel(g.realWork, abs); err == nil {
				p = filepath.Join(g.o.Workdir, rel)
			}
		}
		for _, r := range rs {
			if r.matchPath(p) || r.matchPath(abs) || r.linked(abs) {
				return true
			}
		}
		return false
	}
}
