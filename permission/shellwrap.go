package permission

import (
	"path"
	"strings"
)

// wrapper describes a command that runs its operands as a command.
type wrapper struct {
	// value are the options that take a value as the next word.
	value map[string]bool
	// skip is how many operands come before the command (timeout's
	// duration, chroot's directory).
	skip int
	// cflag is the option whose value is a shell command string (su -c).
	cflag string
}

var wrappers = map[string]wrapper{
	"sudo":     {value: set("-u", "-g", "-p", "-C", "-D", "-U", "-r", "-t", "-h", "-R", "-T", "--user", "--group")},
	"doas":     {value: set("-u", "-C")},
	"pkexec":   {value: set("--user")},
	"run0":     {value: set("-u", "--user")},
	"nohup":    {},
	"time":     {value: set("-f", "-o", "--format", "--output")},
	"command":  {},
	"exec":     {value: set("-a")},
	"builtin":  {},
	"setsid":   {},
	"unbuffer": {}, "catchsegv": {}, "fakeroot": {}, "eatmydata": {}, "nocache": {}, "chronic": {},
	"torsocks": {}, "proxychains": {value: set("-f")}, "proxychains4": {value: set("-f")}, "dbus-run-session": {},
	"xvfb-run": {value: set("-n", "-s", "-f", "-e")}, "firejail": {}, "systemd-run": {value: set("-p", "-u", "--unit", "--property", "-E", "--setenv")},
	"busybox": {}, "toybox": {},
	"nice":     {value: set("-n", "--adjustment")},
	"ionice":   {value: set("-c", "-n", "-p", "-t", "--class", "--classdata")},
	"chrt":     {skip: 1},
	"taskset":  {value: set("-c", "--cpu-list"), skip: 1},
	"stdbuf":   {value: set("-i", "-o", "-e")},
	"timeout":  {value: set("-s", "-k", "--signal", "--kill-after"), skip: 1},
	"flock":    {value: set("-w", "-E", "--timeout", "--conflict-exit-code"), skip: 1, cflag: "-c"},
	"strace":   {value: set("-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X")},
	"ltrace":   {value: set("-o", "-e", "-p", "-s", "-u", "-n", "-a")},
	"valgrind": {}, "unshare": {}, "nsenter": {value: set("-t", "--target")},
	"chroot":   {skip: 1},
	"su":       {cflag: "-c"},
	"runuser":  {value: set("-u", "-g", "-G", "--user", "--group"), cflag: "-c"},
	"script":   {cflag: "-c"},
	"sg":       {skip: 1, cflag: "-c"},
	"xargs":    {value: set("-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "-i", "--max-args", "--max-procs", "--delimiter", "--arg-file", "--replace")},
	"env":      {value: set("-u", "-C", "-S", "-P", "--unset", "--chdir", "--split-string")},
	"watch":    {value: set("-n", "-d", "--interval", "-g", "-c", "-e", "-x")},
	"parallel": {value: set("-j", "-S", "--jobs")},
}

func set(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, x := range s {
		m[x] = true
	}
	return m
}

// unwrap drops wrapper commands that run their operands as a command.
// inner is a shell command string a wrapper was given (su -c, env -S,
// watch …) to be parsed on its own; why says what cannot be known.
func unwrap(words []string, lit []bool) (w []string, l []bool, xargs bool, inner, why string) {
	for len(words) > 0 && lit[0] {
		name := path.Base(words[0])
		spec, ok := wrappers[name]
		if !ok {
			break
		}
		if name == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
			return nil, nil, xargs, "", "" // only looks the name up
		}
		if name == "busybox" || name == "toybox" {
			if len(words) > 1 && strings.HasPrefix(words[1], "-") {
				break
			}
		}
		words, lit = words[1:], lit[1:]
		// Options, with their values.
		for len(words) > 0 && strings.HasPrefix(words[0], "-") && words[0] != "-" {
			f := words[0]
			words, lit = words[1:], lit[1:]
			if f == "--" {
				break
			}
			flag, val, hasVal := strings.Cut(f, "=")
			if name == "env" && (flag == "-S" || flag == "--split-string" || strings.HasPrefix(f, "-S") && len(f) > 2) {
				s := val
				switch {
				case hasVal:
				case strings.HasPrefix(f, "-S") && len(f) > 2:
					s = f[2:]
				case len(words) > 0:
					if !lit[0] {
						return nil, nil, xargs, "", "env -S runs " + words[0] + ", a command only known at run time"
					}
					s = words[0]
					words, lit = words[1:], lit[1:]
				}
				rest := quoteAll(words)
				return nil, nil, xargs, strings.TrimSpace(s + " " + strings.Join(rest, " ")), ""
			}
			if spec.cflag != "" && flag == spec.cflag {
				if len(words) == 0 {
					return nil, nil, xargs, "", ""
				}
				if !lit[0] {
					return nil, nil, xargs, "", name + " " + f + " runs " + words[0] + ", a command only known at run time"
				}
				return nil, nil, xargs, words[0], ""
			}
			if spec.value[flag] && !hasVal && len(words) > 0 {
				words, lit = words[1:], lit[1:]
			}
		}
		if name == "env" {
			for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "=") {
				if k, _, _ := strings.Cut(words[0], "="); k == "PATH" || k == "LD_PRELOAD" || k == "BASH_ENV" {
					why = "env sets " + k + ", so what it runs is only known at run time"
				}
				words, lit = words[1:], lit[1:]
			}
		}
		if name == "nice" && len(words) > 0 && strings.HasPrefix(words[0], "-") {
			words, lit = words[1:], lit[1:]
		}
		for i := 0; i < spec.skip && len(words) > 0; i++ {
			words, lit = words[1:], lit[1:]
		}
		if spec.cflag != "" && len(words) > 1 && words[0] == spec.cflag {
			if !lit[1] {
				return nil, nil, xargs, "", name + " " + spec.cflag + " runs " + words[1] + ", a command only known at run time"
			}
			return nil, nil, xargs, words[1], ""
		}
		if name == "xargs" {
			xargs = true
		}
		if name == "watch" || name == "parallel" {
			if name == "parallel" {
				for i, w := range words {
					if w == ":::" || w == "::::" {
						words, lit = words[:i], lit[:i]
						break
					}
				}
			}
			for _, ok := range lit {
				if !ok {
					return nil, nil, xargs, "", name + " runs a command only known at run time"
				}
			}
			return nil, nil, xargs, strings.Join(words, " "), why
		}
	}
	return words, lit, xargs, "", why
}
