package permission

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// What a command runs besides itself: scripts given to shells, inline
// code given to interpreters and awk, find -exec, git -c values, traps
// and sources. What is static is analysed as commands of the script;
// what is not makes the command unknown.

var shellNames = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "mksh": true, "yash": true, "posh": true, "rbash": true, "fish": true, "tcsh": true, "csh": true}

// interpreter says how an interpreter takes inline code.
type interpreter struct {
	short string          // option letters whose value is code (-c, -e)
	long  map[string]bool // long options whose value is code
	stop  string          // option letters after which the rest are arguments (python -m)
	value string          // option letters whose value follows (perl -MFoo, python -W x)
}

var interpreters = map[string]interpreter{
	"python": {short: "c", stop: "m", value: "WXQ"}, "perl": {short: "eE", value: "MmIxl0iCdD"}, "ruby": {short: "e", value: "IrEUCx"}, "node": {short: "ep", long: set("--eval", "--print")},
	"nodejs": {short: "ep", long: set("--eval", "--print")}, "bun": {short: "ep", long: set("--eval", "--print")}, "php": {short: "rR"},
	"lua": {short: "e"}, "luajit": {short: "e"}, "Rscript": {short: "e"}, "julia": {short: "e", long: set("--eval")}, "osascript": {short: "e"},
	"pwsh": {short: "c", long: set("-Command", "-command")}, "tclsh": {}, "jshell": {}, "groovy": {short: "e"}, "deno": {},
}

// interpreterOf returns the interpreter a program name is (python3.12
// is python).
func interpreterOf(prog string) (string, bool) {
	if _, ok := interpreters[prog]; ok {
		return prog, true
	}
	for _, p := range []string{"python", "perl", "ruby", "php", "lua", "node"} {
		if strings.HasPrefix(prog, p) && strings.Trim(prog[len(p):], "0123456789.") == "" {
			return p, true
		}
	}
	return "", false
}

var awkNames = map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true, "busybox-awk": true}

// nested analyses what the command at index i runs besides itself.
func (a *analyser) nested(i int, redirs []*syntax.Redirect, depth int) {
	c := a.s.cmds[i]
	stdin := a.stdin
	mark := func(why string) {
		if a.s.cmds[i].unknown == "" {
			a.s.cmds[i].unknown = why
		}
	}
	// input is the text the command reads on stdin when it is static.
	input := func() (string, bool, bool) {
		for _, r := range redirs {
			switch {
			case r.Hdoc != nil:
				body, ok := a.word(r.Hdoc)
				return body, ok, true
			case r.Op == syntax.WordHdoc && r.Word != nil:
				body, ok := a.word(r.Word)
				return body, ok, true
			case r.Op == syntax.RdrIn:
				return "", false, true
			}
		}
		if stdin.fed {
			return stdin.text, stdin.known, true
		}
		return "", false, c.xargs
	}
	prog := c.prog
	switch {
	case prog == "alias":
		for _, w := range c.words[1:] {
			if k, v, ok := strings.Cut(w, "="); ok {
				if a.aliases == nil {
					a.aliases = map[string]string{}
				}
				a.aliases[k] = v
			}
		}
	case prog == "eval":
		a.parse(strings.Join(c.words[1:], " "), depth+1)
	case prog == "trap":
		args := c.words[1:]
		lits := c.lit[1:]
		if len(args) > 0 && args[0] == "--" {
			args, lits = args[1:], lits[1:]
		}
		if len(args) >= 2 && !strings.HasPrefix(args[0], "-") {
			if !lits[0] {
				mark("trap runs " + args[0] + ", a command only known at run time")
			} else {
				a.parse(args[0], depth+1)
			}
		}
	case prog == "source" || prog == ".":
		if len(c.words) > 1 && (!c.lit[1] || c.words[1] == "/dev/stdin" || c.words[1] == "-") {
			mark(prog + " runs the commands in " + c.words[1] + ", which are only known at run time")
		}
	case prog == "hash" || prog == "enable":
		for _, w := range c.words[1:] {
			if strings.HasPrefix(w, "-") && strings.ContainsAny(w, "pf") {
				mark(prog + " " + w + " makes a name run another program")
			}
		}
	case shellNames[prog]:
		a.shell(i, input, depth)
	case awkNames[prog]:
		a.awk(i, depth)
	case prog == "find":
		a.find(i, depth)
	case prog == "git":
		a.gitNested(i, depth)
	case prog == "sed":
		for j, w := range c.words[1:] {
			if sedExec().MatchString(w) && (j == 0 || !strings.HasPrefix(w, "-")) {
				mark("sed's e command runs shell commands")
			}
		}
	default:
		if lang, ok := interpreterOf(prog); ok {
			a.interp(i, lang, input, depth)
		}
	}
}

var sedExec = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[;{}\n])\s*[0-9,$!]*\s*e(\s|;|$)|s/(?:[^/\\]|\\.)*/(?:[^/\\]|\\.)*/[gpiImM0-9w]*e|s\|(?:[^|\\]|\\.)*\|(?:[^|\\]|\\.)*\|[gpiImM0-9w]*e|s#(?:[^#\\]|\\.)*#(?:[^#\\]|\\.)*#[gpiImM0-9w]*e`)
})

// shell analyses sh -c 'script', sh script, and sh reading its input.
func (a *analyser) shell(i int, input func() (string, bool, bool), depth int) {
	c := a.s.cmds[i]
	cflag := false
	for j := 1; j < len(c.words); j++ {
		w := c.words[j]
		switch {
		case w == "--" || w == "-":
			if w == "--" && j+1 < len(c.words) {
				continue // the next word is the command string or the script
			}
			j = len(c.words)
		case w == "-o" || w == "+o" || w == "-O" || w == "+O" || w == "--rcfile" || w == "--init-file":
			j++
		case strings.HasPrefix(w, "--"):
		case len(w) > 1 && (w[0] == '-' || w[0] == '+'):
			if w[0] == '-' && strings.ContainsRune(w[1:], 'c') {
				cflag = true
			}
		default:
			if cflag {
				if !c.lit[j] {
					a.markAt(i, c.prog+" -c runs "+w+", a command only known at run time")
					return
				}
				a.parse(w, depth+1)
				return
			}
			if !c.lit[j] || w == "/dev/stdin" {
				a.markAt(i, c.prog+" runs the script "+w+", which is only known at run time")
			}
			return
		}
	}
	text, known, fed := input()
	switch {
	case !fed:
	case known:
		a.parse(text, depth+1)
	default:
		a.markAt(i, c.prog+" reads commands from a pipe or file only known at run time")
	}
}

func (a *analyser) markAt(i int, why string) {
	if a.s.cmds[i].unknown == "" {
		a.s.cmds[i].unknown = why
	}
}

// interp analyses an interpreter's inline code (python -c, perl -e …)
// or the code it reads on its input.
func (a *analyser) interp(i int, lang string, input func() (string, bool, bool), depth int) {
	c := a.s.cmds[i]
	spec := interpreters[lang]
	var code []string
	known, script := true, false
	next := false
	for j := 1; j < len(c.words) && !script; j++ {
		w := c.words[j]
		if next {
			code, known, next = append(code, w), known && c.lit[j], false
			continue
		}
		switch {
		case spec.long[w] || strings.HasPrefix(w, "--") && spec.long[strings.SplitN(w, "=", 2)[0]]:
			if _, v, ok := strings.Cut(w, "="); ok {
				code, known = append(code, v), known && c.lit[j]
			} else {
				next = true
			}
		case w == "--":
			script = true
		case strings.HasPrefix(w, "-") && len(w) > 1 && !strings.HasPrefix(w, "--"):
			for k := 1; k < len(w); k++ {
				if strings.IndexByte(spec.stop, w[k]) >= 0 {
					script = true
					break
				}
				if strings.IndexByte(spec.value, w[k]) >= 0 {
					if k+1 == len(w) && strings.ContainsRune("WXQ", rune(w[k])) {
						j++ // python -W arg
					}
					break
				}
				if strings.IndexByte(spec.short, w[k]) >= 0 {
					if k+1 < len(w) {
						code, known = append(code, w[k+1:]), known && c.lit[j]
					} else {
						next = true
					}
					break
				}
			}
		case w == "-":
		default:
			if lang == "deno" && w == "eval" {
				next = true
				continue
			}
			if len(code) == 0 {
				script = true // a script file: it runs as written
			}
			j = len(c.words)
		}
	}
	if len(code) == 0 && !script {
		text, ok, fed := input()
		if !fed {
			return
		}
		code, known = []string{text}, ok
	}
	if len(code) == 0 {
		return
	}
	if !known {
		a.markAt(i, c.prog+" runs inline code only known at run time")
		return
	}
	a.code(i, lang, strings.Join(code, "\n"), depth)
}

var (
	// codeDynamic finds code that builds what it runs or imports.
	codeDynamic = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(eval|exec|compile|__import__|importlib|getattr|globals|locals|Function|instance_eval|class_eval|send|public_send|const_get|create_function|chr|fromCharCode|b64decode|decode64|unpack|pack|codecs|marshal|pickle|loadstring|dofile|require_relative)\s*[\(\s'"]|\bqx\s*[\W]|%x[\W]|\$\{|\binterp\b`)
	})
	// codeShell finds calls that run a command.
	codeShell = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(system|popen|popen2|popen3|subprocess|spawn|spawnSync|execSync|execFileSync|execFile|exec[lv]p?e?|Popen|call|check_call|check_output|run|getoutput|getstatusoutput|shell_exec|passthru|proc_open|pcntl_exec|Open3|capture2|capture3|capture2e|pty|child_process|execute|os\.execute|io\.popen|Process|ProcessBuilder|Runtime)\b|` + "`")
	})
	// codeDelete finds calls that delete files.
	codeDelete = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(remove|unlink|unlinkSync|rmtree|rmdir|rmdirSync|removedirs|rm_rf|rm_r|rm_f|rmSync|rm|delete|deleteSync|truncate|shred|remove_dir_all|remove_file|RemoveAll|Remove)\b`)
	})
	// codeNet finds network access.
	codeNet = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(urllib|urllib2|urllib3|urlopen|urlretrieve|requests|httpx|aiohttp|http\.client|httplib|socket|fetch|XMLHttpRequest|https?\.(get|request)|net/http|Net::HTTP|open-uri|URI\.open|LWP|HTTP::Tiny|IO::Socket|curl_init|curl_exec|file_get_contents|fsockopen|ftplib|smtplib|telnetlib|websocket|Socket|wget|curl)\b|/dev/(tcp|udp)/|https?://`)
	})
	// codeCall finds a shell-out call given only string literals, its
	// arguments captured.
	codeCallArgs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\(\s*\[?\s*((?:(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*,?\s*)+)\]?\s*[,)]`)
	})
	codeLiteral = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|` + "`([^`]*)`")
	})
)

// literals returns the string literals of code.
func literals(code string) []string {
	var out []string
	for _, m := range codeLiteral().FindAllStringSubmatch(code, 64) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\\`, `\`).Replace(g))
				break
			}
		}
	}
	return out
}

// code analyses inline code: commands it runs from literals, deletions
// and downloads as the rm and curl they amount to, and its literals as
// paths it may open. Code that builds what it runs is unknown.
func (a *analyser) code(i int, lang, code string, depth int) {
	prog := a.s.cmds[i].prog
	if m := codeDynamic().FindString(code); m != "" {
		a.markAt(i, prog+"'s inline code builds what it runs at run time ("+strings.TrimSpace(m)+")")
	}
	lits := literals(code)
	a.s.cmds[i].paths = append(a.s.cmds[i].paths, lits...)
	if locs := codeShell().FindAllStringIndex(code, -1); len(locs) > 0 {
		for _, loc := range locs {
			if code[loc[0]] == '`' {
				end := strings.IndexByte(code[loc[1]:], '`')
				if end < 0 {
					a.markAt(i, prog+"'s inline code runs a command only known at run time")
					continue
				}
				a.parseQuiet(code[loc[1]:loc[1]+end], depth+1)
				continue
			}
			rest := strings.TrimLeft(code[loc[1]:], " \t")
			m := codeCallArgs().FindStringSubmatchIndex(rest)
			if m == nil || m[0] != 0 {
				switch {
				case rest == "" || strings.IndexByte(".,;\n)]}:=", rest[0]) >= 0:
					// a name only: an import, an attribute, an assignment
				case rest[0] == '"' || rest[0] == '\'':
					if l := literals(rest); len(l) > 0 && strings.HasPrefix(rest[1:], l[0]) {
						a.parseQuiet(l[0], depth+1)
					} else {
						a.markAt(i, prog+"'s inline code runs a command only known at run time")
					}
				default:
					a.markAt(i, prog+"'s inline code runs a command only known at run time")
				}
				continue
			}
			args := literals(rest[m[2]:m[3]])
			if len(args) == 1 {
				a.parseQuiet(args[0], depth+1)
			} else {
				a.parseQuiet(strings.Join(quoteAll(args), " "), depth+1)
			}
		}
	}
	if codeDelete().MatchString(code) {
		a.synth("rm", append([]string{"-r"}, lits...), depth)
	}
	if codeNet().MatchString(code) {
		a.synth("curl", lits, depth)
	}
}

// synth adds a command standing for what code does (rm, curl).
func (a *analyser) synth(prog string, args []string, depth int) {
	c := command{words: append([]string{prog}, args...), prog: prog, synth: true}
	for range c.words {
		c.lit = append(c.lit, true)
	}
	c.joined = strings.Join(c.words, " ")
	a.s.cmds = append(a.s.cmds, c)
}

// parseQuiet parses a string that may be a command; a string that does
// not parse is not one.
func (a *analyser) parseQuiet(src string, depth int) {
	ok := a.s.ok
	from := len(a.s.cmds)
	a.parse(src, depth)
	a.s.ok = ok
	for j := from; j < len(a.s.cmds); j++ {
		a.s.cmds[j].synth = true
	}
}

var (
	awkSystem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bsystem\s*\(`) })
	awkLitSys = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bsystem\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)`) })
	awkPipe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\|\s*getline|\|&|print[f]?[^;}|]*\|[^|]`) })
	awkLitIn  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"\s*\|\s*getline`) })
	awkLitOut = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`print[f]?[^;}|]*\|\s*"((?:[^"\\]|\\.)*)"`) })
)

// awk analyses an awk program's system() calls and pipes.
func (a *analyser) awk(i int, depth int) {
	c := a.s.cmds[i]
	prog, known := "", true
	for j := 1; j < len(c.words); j++ {
		w := c.words[j]
		if w == "-f" || strings.HasPrefix(w, "--file") {
			return // the program is in a file
		}
		if w == "-F" || w == "-v" {
			j++
			continue
		}
		if strings.HasPrefix(w, "-") {
			continue
		}
		prog, known = w, c.lit[j]
		break
	}
	if prog == "" {
		return
	}
	if !known {
		a.markAt(i, "awk runs a program only known at run time")
		return
	}
	a.s.cmds[i].paths = append(a.s.cmds[i].paths, literals(prog)...)
	sys := len(awkSystem().FindAllString(prog, -1))
	lit := awkLitSys().FindAllStringSubmatch(prog, -1)
	for _, m := range lit {
		a.parseQuiet(m[1], depth+1)
	}
	pipes := len(awkPipe().FindAllString(prog, -1))
	ins, outs := awkLitIn().FindAllStringSubmatch(prog, -1), awkLitOut().FindAllStringSubmatch(prog, -1)
	for _, m := range append(ins, outs...) {
		if f := strings.Fields(m[1]); len(f) > 0 {
			if _, interp := interpreterOf(f[0]); shellNames[f[0]] || interp {
				a.markAt(i, "awk prints into "+f[0]+", which runs what it reads")
			}
		}
		a.parseQuiet(m[1], depth+1)
	}
	if sys > len(lit) || pipes > len(ins)+len(outs) {
		a.markAt(i, "awk runs a command only known at run time")
	}
}

// find adds what find -exec runs and what find -delete removes.
func (a *analyser) find(i int, depth int) {
	c := a.s.cmds[i]
	expr := len(c.words)
	for j := 1; j < len(c.words); j++ {
		if w := c.words[j]; strings.HasPrefix(w, "-") && w != "-" || w == "(" || w == "!" {
			if w == "-H" || w == "-L" || w == "-P" || strings.HasPrefix(w, "-O") || w == "-D" {
				continue
			}
			expr = j
			break
		}
	}
	var starts []string
	for j := 1; j < expr; j++ {
		if w := c.words[j]; !strings.HasPrefix(w, "-") {
			starts = append(starts, w)
		}
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for j := expr; j < len(c.words); j++ {
		switch c.words[j] {
		case "-exec", "-execdir", "-ok", "-okdir":
			sub := command{}
			k := j + 1
			for ; k < len(c.words) && c.words[k] != ";" && c.words[k] != "+"; k++ {
				sub.words = append(sub.words, c.words[k])
				sub.lit = append(sub.lit, c.lit[k] && !strings.Contains(c.words[k], "{}"))
			}
			j = k
			if len(sub.words) == 0 {
				continue
			}
			from := len(a.s.cmds)
			a.expand(sub, nil, depth+1)
			for m := from; m < len(a.s.cmds); m++ {
				a.s.cmds[m].synth = true
			}
		case "-delete":
			a.synth("rm", starts, depth)
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if j+1 < len(c.words) {
				a.s.cmds[i].writes = append(a.s.cmds[i].writes, c.words[j+1])
			}
		}
	}
}

// gitNested analyses git -c values that run programs (aliases, pagers,
// fsmonitor …) and notes git config writes as writes of the config file.
func (a *analyser) gitNested(i int, depth int) {
	c := a.s.cmds[i]
	j := 1
	for ; j < len(c.words); j++ {
		w := c.words[j]
		switch {
		case w == "-c" && j+1 < len(c.words):
			j++
			kv := c.words[j]
			if !c.lit[j] {
				a.markAt(i, "git -c sets "+kv+", only known at run time")
				continue
			}
			k, v, _ := strings.Cut(kv, "=")
			k = strings.ToLower(k)
			switch {
			case strings.HasPrefix(k, "alias."):
				if s, ok := strings.CutPrefix(v, "!"); ok {
					a.parse(s, depth+1)
				}
			case strings.HasPrefix(k, "include"):
				a.markAt(i, "git -c "+k+" reads config only known at run time")
			case execKey(k) && v != "" && k != "core.hookspath":
				a.parse(v, depth+1)
			case k == "core.hookspath" && v != "/dev/null":
				a.markAt(i, "git -c core.hooksPath runs hooks from "+v)
			}
		case strings.HasPrefix(w, "--config-env") || strings.HasPrefix(w, "--exec-path") && (strings.Contains(w, "=") || j+1 < len(c.words)):
			a.markAt(i, "git "+w+" runs programs only known at run time")
		case w == "-C" || w == "--git-dir" || w == "--work-tree" || w == "--namespace":
			j++
		case strings.HasPrefix(w, "-"):
		default:
			if w == "config" {
				a.gitConfig(i, j)
			}
			return
		}
	}
}

// gitConfig notes a git config command that changes a config file as a
// write of that file.
func (a *analyser) gitConfig(i, at int) {
	c := a.s.cmds[i]
	file := ".git/config"
	if _, _, dir := gitArgs(&c); dir != "" {
		file = strings.TrimSuffix(dir, "/") + "/.git/config"
	}
	write, n := false, 0
	args := c.words[at+1:]
	for j := 0; j < len(args); j++ {
		w := args[j]
		switch w {
		case "--global":
			file = "~/.gitconfig"
		case "--system":
			file = "/etc/gitconfig"
		case "--file", "-f":
			if j+1 < len(args) {
				file = args[j+1]
				j++
			}
		case "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit", "set", "unset", "edit", "rename-section", "remove-section":
			write = true
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list":
			return
		default:
			if !strings.HasPrefix(w, "-") {
				n++
			}
		}
	}
	if write || n >= 2 {
		a.s.cmds[i].writes = append(a.s.cmds[i].writes, file)
	}
}
