package builtin

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ignoreRule is one compiled line of an ignore file.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool // "!pattern" re-includes
	dirOnly bool // "pattern/" matches directories only
	base    bool // no slash: matched against the name at any depth
}

// ignoreList is the rules of the ignore files of one directory, which is
// dir relative to the walk root ("" for the root itself), by kind.
type ignoreList struct {
	dir   string
	rules [numKinds][]ignoreRule
}

// parseIgnore compiles the lines of an ignore file in gitignore syntax:
// blank lines and # comments skipped, trailing spaces dropped unless
// escaped, ! negates, a trailing / matches directories only, a slash at
// the start or in the middle anchors the pattern to the file's
// directory, * and ? do not match /, [...] classes, and ** matches any
// number of directories ("**/x", "x/**", "a/**/b"). Lines that cannot be
// compiled are skipped, as git does.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text()); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	var r ignoreRule
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return r, false
	}
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	if strings.HasPrefix(line, "/") {
		line = strings.TrimLeft(line, "/")
	} else if !strings.Contains(line, "/") {
		r.base = true
	}
	expr, ok := globRegexp(line)
	if !ok {
		return r, false
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return r, false
	}
	r.re = re
	return r, true
}

// trimTrailingSpaces drops trailing spaces that are not escaped with a
// backslash.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// count the backslashes before this space
		bs := 0
		for k := end - 2; k >= 0 && s[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}

// globRegexp translates a gitignore glob to an anchored regular
// expression over slash-separated paths.
func globRegexp(p string) (string, bool) {
	var b strings.Builder
	b.WriteString("^")
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "**" {
			switch {
			case len(segs) == 1:
				b.WriteString(".*")
			case i == 0:
				b.WriteString("(?:.*/)?")
			case last:
				b.WriteString(".*")
			default:
				b.WriteString("(?:.*/)?")
			}
			continue
		}
		if !globSegment(&b, seg) {
			return "", false
		}
		if !last {
			b.WriteString("/")
		}
	}
	b.WriteString("$")
	return b.String(), true
}

// globSegment writes one path segment of a glob as a regular expression.
func globSegment(b *strings.Builder, seg string) bool {
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch c {
		case '*':
			for i+1 < len(seg) && seg[i+1] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '\\':
			if i+1 < len(seg) {
				i++
				b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
			}
		case '[':
			j, class, ok := globClass(seg, i)
			if !ok {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(class)
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
		}
	}
	return true
}

// globClass translates the bracket expression starting at seg[i] and
// returns the index of its closing bracket.
func globClass(seg string, i int) (int, string, bool) {
	j := i + 1
	var b strings.Builder
	b.WriteString("[")
	if j < len(seg) && (seg[j] == '!' || seg[j] == '^') {
		b.WriteString("^/")
		j++
	}
	first := true
	for ; j < len(seg); j++ {
		c := seg[j]
		if c == ']' && !first {
			b.WriteString("]")
			return j, b.String(), true
		}
		first = false
		switch {
		case c == '\\' && j+1 < len(seg):
			j++
			b.WriteString(regexp.QuoteMeta(seg[j : j+1]))
		case c == '-':
			b.WriteString("-")
		case c == '[' && strings.HasPrefix(seg[j:], "[:"):
			end := strings.Index(seg[j+2:], ":]")
			if end < 0 {
				return 0, "", false
			}
			b.WriteString(seg[j : j+2+end+2])
			j += 2 + end + 1
		default:
			if strings.ContainsRune(`\]^[`, rune(c)) {
				b.WriteString(`\`)
			}
			b.WriteByte(c)
		}
	}
	return 0, "", false
}

// matches reports whether the rule matches path (relative to the list's
// directory, slash-separated).
func (r *ignoreRule) matches(path string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.base {
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			path = path[i+1:]
		}
	}
	return r.re.MatchString(path)
}

// Kinds of ignore files, in rising precedence. As in ripgrep, a match in
// a higher kind (anywhere from the directory up to the root) beats any
// match in a lower kind; within a kind the deepest file that matches
// decides, and within a file the last matching rule.
const (
	kindExclude   = iota // .git/info/exclude, root only
	kindGitignore        // .gitignore
	kindIgnore           // .ignore
	kindRgignore         // .rgignore
	numKinds
)

// ignoreFileNames maps file names to their kinds.
var ignoreFileNames = [...]struct {
	name string
	kind int
}{{".gitignore", kindGitignore}, {".ignore", kindIgnore}, {".rgignore", kindRgignore}}

// ignorer holds the ignore lists in force for one directory of a walk,
// from the root down. Its methods do not modify it, so one ignorer may
// be shared by the walks of sibling directories.
type ignorer struct {
	lists []*ignoreList
}

// enter returns the ignorer for directory dir (relative to the root,
// slash-separated, "" for the root), adding the rules of its ignore
// files. abs is its absolute path; has reports whether the directory
// holds an entry of the given name (nil means look on disk).
func (g ignorer) enter(abs, dir string, has func(name string) bool) ignorer {
	l := &ignoreList{dir: dir}
	n := 0
	for _, f := range ignoreFileNames {
		if has != nil && !has(f.name) {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(abs, f.name)); err == nil {
			l.rules[f.kind] = parseIgnore(data)
			n += len(l.rules[f.kind])
		}
	}
	if dir == "" && (has == nil || has(".git")) {
		if data, err := os.ReadFile(filepath.Join(abs, ".git", "info", "exclude")); err == nil {
			l.rules[kindExclude] = parseIgnore(data)
			n += len(l.rules[kindExclude])
		}
	}
	if n == 0 {
		return g
	}
	lists := make([]*ignoreList, len(g.lists), len(g.lists)+1)
	copy(lists, g.lists)
	return ignorer{lists: append(lists, l)}
}

// ignored reports whether path (relative to the root, slash-separated)
// is ignored.
func (g ignorer) ignored(path string, isDir bool) bool {
	for kind := numKinds - 1; kind >= 0; kind-- {
		for i := len(g.lists) - 1; i >= 0; i-- {
			l := g.lists[i]
			rules := l.rules[kind]
			if len(rules) == 0 {
				continue
			}
			sub := path
			if l.dir != "" {
				if !strings.HasPrefix(path, l.dir+"/") {
					continue
				}
				sub = path[len(l.dir)+1:]
			}
			for k := len(rules) - 1; k >= 0; k-- {
				if rules[k].matches(sub, isDir) {
					return !rules[k].negate
				}
			}
		}
	}
	return false
}
