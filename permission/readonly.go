package permission

import "strings"

// What the modes let bash run without a rule, as Claude Code's modes do:
// default (auto_read), dontAsk and plan run commands that only read files
// inside the workspace (ls, cat, git status …); acceptEdits (auto_edit)
// also runs the file-changing commands mkdir, touch, mv, cp, rm and rmdir
// when every path they touch is inside the workspace. Anything else —
// other programs, redirections into files, paths outside the workspace or
// only known at run time — is left to the rules and the mode's default
// answer.

// readOnlyProgs are programs that read files and change none (with the
// flags checked by readOnlyCommand).
var readOnlyProgs = set("cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "wc", "ls", "stat", "file", "du", "tree",
	"diff", "cmp", "md5sum", "sha256sum", "sha1sum", "sha512sum", "realpath", "readlink", "nl", "tac", "od", "xxd", "strings", "base64",
	"sort", "uniq", "cut", "jq", "find", "echo", "printf", "true", "false", "test", "[", "pwd", "date", "whoami", "id", "uname",
	"basename", "dirname", "which", "type", "nproc", "arch", "hostname", "df")

// readOnlyGit are git subcommands that change nothing; branchLike list
// their objects when given no operands.
var (
	readOnlyGit = set("status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "blame", "describe", "shortlog", "grep", "cat-file")
	branchLike  = set("branch", "tag", "remote")
)

// editProgs are the file-changing programs acceptEdits runs inside the
// workspace.
var editProgs = set("mkdir", "touch", "mv", "cp", "rm", "rmdir")

// findActions are find's primaries that run programs or write files.
var findActions = set("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls")

// readOnlyCommand reports whether c reads at most and runs nothing else.
func readOnlyCommand(c *command) bool {
	switch {
	case c.prog == "git":
		if len(c.words) < 2 {
			return false
		}
		sub, rest := c.words[1], c.words[2:] // global options (-c, -C) are not vouched for
		for _, w := range rest {
			if strings.HasPrefix(w, "--output") || strings.HasPrefix(w, "--ext-diff") || strings.HasPrefix(w, "--textconv") {
				return false
			}
		}
		if readOnlyGit[sub] {
			return true
		}
		if branchLike[sub] {
			for _, w := range rest {
				switch w {
				case "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list", "--show-current":
				default:
					return false
				}
			}
			return true
		}
		return false
	case !readOnlyProgs[c.prog]:
		return false
	}
	for _, w := range c.words[1:] {
		switch {
		case c.prog == "sort" && (strings.HasPrefix(w, "-o") || strings.HasPrefix(w, "--output")):
			return false
		case c.prog == "find" && (findActions[w] || strings.HasPrefix(w, "-fprint")):
			return false
		case (c.prog == "rg" || c.prog == "grep") && (w == "--pre" || strings.HasPrefix(w, "--pre=")):
			return false
		}
	}
	return true
}

// modeAllowsBash reports whether the bash command of s runs in a mode
// without a rule: every simple command reads only (or, with edits, is
// one of editProgs), nothing is redirected into a file, and every path
// touched is known and inside the workspace, links resolved.
func (g *Gate) modeAllowsBash(s *subject, edits bool) bool {
	b := s.bash
	if b == nil || !b.ok || len(b.cmds) == 0 || b.unknownWhy() != "" || g.o.Workdir == "" {
		return false
	}
	for i := range b.cmds {
		c := &b.cmds[i]
		if len(c.words) == 0 || c.synth || c.xargs {
			return false
		}
		for _, l := range c.lit {
			if !l {
				return false
			}
		}
		for _, w := range c.writes {
			if w != "/dev/null" {
				return false
			}
		}
		// cd is not vouched for: a later command's paths would be
		// relative to a directory the touches cannot pin down here.
		switch {
		case c.prog == ":":
		case readOnlyCommand(c):
		case edits && editProgs[c.prog]:
		default:
			return false
		}
	}
	for i := range s.touches {
		t := &s.touches[i]
		if t.abs == "" || t.unknown != "" || t.maybe && edits {
			return false
		}
		t.probe(&s.probes)
		if !g.insideWork(t.abs) || t.real != "" && !g.insideWork(t.real) {
			return false
		}
	}
	return true
}

// insideWork reports whether p is inside the workspace as written or
// with the workspace's links resolved.
func (g *Gate) insideWork(p string) bool {
	return within(g.o.Workdir, p) || g.realWork != "" && within(g.realWork, p)
}
