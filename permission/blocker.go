package permission

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// BlockerMode configures the destructive-command blocker.
type BlockerMode string

// Blocker modes. The zero value blocks.
const (
	BlockerDeny BlockerMode = "deny"
	// BlockerAsk turns a block into a question (so does ModeAsk).
	BlockerAsk BlockerMode = "ask"
	BlockerOff BlockerMode = "off"
)

// finding is one destructive command the blocker found.
type finding struct {
	what    string // a short name: "rm -rf outside the workspace"
	why     string
	instead string
}

func (f *finding) message() string {
	s := "Blocked as destructive (" + f.what + "): " + f.why
	if f.instead != "" {
		s += " Instead: " + f.instead
	}
	return s + " If it really is needed, ask the user to run it themselves."
}

// Block reports why the blocker would stop the bash command cmd run in
// the gate's workspace, or "" when it would not.
func (g *Gate) Block(cmd string) string {
	if f := g.block(parseScript(cmd)); f != nil {
		return f.message()
	}
	return ""
}

var sqlDestructive = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(drop\s+(table|database|schema)|truncate(\s+table)?\s+\w)`)
})

var dbClients = map[string]bool{"psql": true, "mysql": true, "mariadb": true, "sqlite3": true, "sqlcmd": true, "cockroach": true,
	"clickhouse-client": true, "clickhouse": true, "duckdb": true, "mongosh": true, "mongo": true, "redis-cli": true, "pgcli": true, "mycli": true, "litecli": true, "usql": true}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "fish": true,
	"python": true, "python3": true, "perl": true, "ruby": true, "node": true}

// block returns the first destructive command of s.
func (g *Gate) block(s *script) *finding {
	if s.forkBomb {
		return &finding{what: "fork bomb", why: "the command defines a function that starts copies of itself without end, which exhausts the machine."}
	}
	cwd := g.o.Workdir
	hasDB := false
	for i := range s.cmds {
		if dbClients[s.cmds[i].name()] {
			hasDB = true
		}
	}
	for i := range s.cmds {
		c := &s.cmds[i]
		name := c.name()
		if name == "" && len(c.words) > 0 {
			continue
		}
		for _, n := range c.also {
			if n == "rm" || n == "git" || n == "find" || n == "dd" {
				name = n // a copy or link of the program
			}
		}
		for _, w := range c.writes {
			if strings.HasPrefix(w, "/dev/") && !harmlessDev[w] {
				return &finding{what: "write to a device", why: "the redirection writes to " + w + ", which overwrites a disk or device."}
			}
		}
		switch {
		case name == "cd" && len(c.words) > 1:
			if c.lit[1] && cwd != "" {
				cwd = g.resolve(cwd, c.words[1])
			} else if !c.lit[1] {
				cwd = "" // unknown from here on
			}
		case name == "rm":
			if f := g.rm(c, cwd); f != nil {
				return f
			}
		case name == "git":
			if f := g.git(c, cwd); f != nil {
				return f
			}
		case name == "find":
			if f := g.find(c, cwd); f != nil {
				return f
			}
		case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "wipefs":
			return &finding{what: name, why: name + " formats a file system and destroys the data on the device."}
		case name == "dd":
			for _, w := range c.words[1:] {
				if strings.HasPrefix(w, "of=/dev/") && !harmlessDev[strings.TrimPrefix(w, "of=")] {
					return &finding{what: "dd to a device", why: "dd " + w + " overwrites a disk or device."}
				}
			}
		case shells[name]:
			for _, from := range c.pipedFrom {
				if from == "curl" || from == "wget" {
					return &finding{what: from + " piped to " + name, why: "the command runs a script downloaded from the network without anyone reading it.",
						instead: "download the script to a file, read it, and run it only if it is what you expect."}
				}
			}
			for j, w := range c.words[1:] {
				if !c.lit[j+1] && (strings.Contains(w, "curl ") || strings.Contains(w, "wget ")) {
					return &finding{what: "downloaded script run by " + name, why: "the command runs a script downloaded from the network without anyone reading it.",
						instead: "download the script to a file, read it, and run it only if it is what you expect."}
				}
			}
		}
		if hasDB && dbClients[name] && sqlDestructive().MatchString(s.raw) {
			return &finding{what: "DROP/TRUNCATE through " + name, why: "the SQL drops or empties tables, which loses data that may have no backup.",
				instead: "show the statement to the user and let them run it, or work on a copy of the database."}
		}
	}
	return nil
}

var harmlessDev = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/zero": true, "/dev/fd/1": true, "/dev/fd/2": true}

// resolve returns p absolute and clean: ~ is the home directory, and a
// relative path is relative to cwd.
func (g *Gate) resolve(cwd, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if g.o.Home == "" {
			return "~"
		}
		p = filepath.Join(g.o.Home, strings.TrimPrefix(p, "~"))
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(cwd, p) // Join cleans
	}
	return filepath.Clean(p)
}

// rm blocks recursive deletes of /, ~, .git, the workspace itself, paths
// outside it, and targets nobody can know before the command runs.
func (g *Gate) rm(c *command, cwd string) *finding {
	recursive, opts := false, true
	var targets []int
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		switch {
		case opts && w == "--":
			opts = false
		case opts && strings.HasPrefix(w, "--"):
			if w == "--recursive" {
				recursive = true
			}
		case opts && strings.HasPrefix(w, "-") && len(w) > 1:
			if strings.ContainsAny(w[1:], "rR") {
				recursive = true
			}
		default:
			targets = append(targets, i)
		}
	}
	if !recursive {
		return nil
	}
	instead := "delete specific paths inside the workspace, e.g. rm -r ./build."
	if c.xargs {
		return &finding{what: "rm -r through xargs", why: "the paths to delete come from another command's output, so no one can check them first.", instead: "list the paths, check them, then delete them by name."}
	}
	for _, i := range targets {
		t := c.words[i]
		if !c.lit[i] {
			return &finding{what: "rm -r on an unknown path", why: "the path " + t + " is only known when the command runs; if it is empty or wrong, the wrong tree is deleted.", instead: "use a literal path inside the workspace."}
		}
		base := path.Base(strings.TrimRight(t, "/"))
		switch {
		case t == "/" || strings.TrimRight(t, "/*") == "":
			return &finding{what: "rm -r /", why: "it deletes the whole file system.", instead: instead}
		case t == "~" || strings.HasPrefix(t, "~") && strings.TrimRight(strings.TrimPrefix(t, "~"), "/*") == "":
			return &finding{what: "rm -r ~", why: "it deletes the home directory.", instead: instead}
		case base == ".git":
			return &finding{what: "rm -r .git", why: "it deletes the repository's history.", instead: "leave .git alone; use git commands to change history."}
		}
		if cwd == "" && g.o.Workdir != "" && !filepath.IsAbs(t) && !strings.HasPrefix(t, "~") {
			return &finding{what: "rm -r in an unknown directory", why: "an earlier cd goes to a directory only known when the command runs, so " + t + " could be anywhere.", instead: "use a path inside the workspace, relative to it or absolute."}
		}
		abs := g.resolve(cwd, t)
		if g.o.Workdir != "" {
			if abs == g.o.Workdir || strings.TrimSuffix(t, "*") != t && filepath.Dir(abs) == g.o.Workdir && path.Base(t) == "*" {
				return &finding{what: "rm -r of the workspace", why: "it deletes the whole workspace.", instead: instead}
			}
			if !within(g.o.Workdir, abs) {
				return &finding{what: "rm -r outside the workspace", why: abs + " is outside the workspace " + g.o.Workdir + ".", instead: instead}
			}
		}
	}
	return nil
}

// gitArgs returns the subcommand and its operands, past git's own
// options.
func gitArgs(c *command) (sub string, args []string, dir string) {
	w := c.words[1:]
	for len(w) > 0 && strings.HasPrefix(w[0], "-") {
		switch w[0] {
		case "-C":
			if len(w) > 1 {
				dir = w[1]
			}
			w = w[1:]
		case "-c", "--git-dir", "--work-tree", "--namespace":
			w = w[1:]
		}
		if len(w) > 0 {
			w = w[1:]
		}
	}
	if len(w) == 0 {
		return "", nil, dir
	}
	return w[0], w[1:], dir
}

func (g *Gate) git(c *command, cwd string) *finding {
	sub, args, dir := gitArgs(c)
	if dir != "" && cwd != "" {
		cwd = g.resolve(cwd, dir)
	}
	has := func(short byte, long ...string) bool {
		for _, a := range args {
			if a == "--" {
				return false
			}
			for _, l := range long {
				if a == l {
					return true
				}
			}
			if short != 0 && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], short) >= 0 {
				return true
			}
		}
		return false
	}
	switch sub {
	case "push":
		force := has('f', "--force")
		for _, a := range args {
			if strings.HasPrefix(a, "+") && len(a) > 1 {
				force = true
			}
			if a == "--mirror" || a == "--delete" {
				force = force || a == "--mirror"
			}
		}
		if force {
			return &finding{what: "git push --force", why: "a forced push overwrites the remote branch and can throw away others' commits.",
				instead: "git push --force-with-lease, which refuses when the remote has commits you have not seen."}
		}
	case "reset":
		if has(0, "--hard") {
			return &finding{what: "git reset --hard", why: "it discards uncommitted changes in the working tree for good.",
				instead: "git stash (recoverable), or git reset --keep, or commit the work first."}
		}
	case "clean":
		if has('f', "--force") && has('d') && !has('n', "--dry-run") {
			return &finding{what: "git clean -fd", why: "it deletes untracked files and directories, which git cannot bring back.",
				instead: "git clean -nd to see what would go, then delete specific paths, or git stash -u."}
		}
	case "checkout", "restore":
		all := false
		for i, a := range args {
			if (a == "." || a == ":/" || a == "*") && (sub == "restore" || i > 0 && args[i-1] == "--" || len(args) == 1) {
				all = true
			}
		}
		if all && dirty(cwd) {
			return &finding{what: "git " + sub + " of the whole tree", why: "the working tree has uncommitted changes, and this overwrites them for good.",
				instead: "git stash (recoverable), or restore the specific files you mean."}
		}
	}
	return nil
}

// find blocks find -delete and find -exec rm on start points the rm
// rule would refuse (the workspace itself is fine: find picks inside it).
func (g *Gate) find(c *command, cwd string) *finding {
	expr := len(c.words)
	for i := 1; i < len(c.words); i++ {
		if w := c.words[i]; strings.HasPrefix(w, "-") || w == "(" || w == "!" {
			expr = i
			break
		}
	}
	deletes := false
	for i := expr; i < len(c.words); i++ {
		w := c.words[i]
		if w == "-delete" || (w == "-exec" || w == "-execdir") && i+1 < len(c.words) && path.Base(c.words[i+1]) == "rm" {
			deletes = true
		}
	}
	if !deletes {
		return nil
	}
	starts, lits := c.words[1:expr], c.lit[1:expr]
	if len(starts) == 0 {
		starts, lits = []string{"."}, []bool{true}
	}
	for i, t := range starts {
		probe := &command{words: []string{"rm", "-r", t}, lit: []bool{true, true, lits[i]}}
		if f := g.rm(probe, cwd); f != nil && f.what != "rm -r of the workspace" {
			f.what = "find deleting under " + t
			return f
		}
	}
	return nil
}
