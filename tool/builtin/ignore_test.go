package builtin

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIgnoreRules(t *testing.T) {
	type check struct {
		path  string
		isDir bool
		want  bool
	}
	tests := []struct {
		name   string
		rules  string
		checks []check
	}{
		{"name at any depth", "*.log", []check{{"a.log", false, true}, {"x/y/a.log", false, true}, {"a.log.txt", false, false}, {"log", false, false}}},
		{"comments and blanks", "# *.go\n\n   \n", []check{{"a.go", false, false}, {"# *.go", false, false}}},
		{"escaped hash", `\#notes`, []check{{"#notes", false, true}}},
		{"negation", "*.log\n!keep.log", []check{{"a.log", false, true}, {"keep.log", false, false}, {"d/keep.log", false, false}}},
		{"last rule wins", "!keep.log\n*.log", []check{{"keep.log", false, true}}},
		{"escaped bang", `\!important`, []check{{"!important", false, true}, {"important", false, false}}},
		{"directory only", "build/", []check{{"build", true, true}, {"build", false, false}, {"src/build", true, true}}},
		{"anchored", "/root.txt", []check{{"root.txt", false, true}, {"sub/root.txt", false, false}}},
		{"middle slash anchors", "docs/*.tmp", []check{{"docs/a.tmp", false, true}, {"x/docs/a.tmp", false, false}, {"docs/sub/a.tmp", false, false}}},
		{"star stops at slash", "a/*", []check{{"a/b", false, true}, {"a/b/c", false, false}}},
		{"question mark", "?.txt", []check{{"a.txt", false, true}, {"ab.txt", false, false}}},
		{"leading double star", "**/gen", []check{{"gen", true, true}, {"a/b/gen", true, true}, {"agen", true, false}}},
		{"trailing double star", "out/**", []check{{"out/a", false, true}, {"out/a/b", false, true}, {"out", true, false}}},
		{"middle double star", "a/**/b", []check{{"a/b", false, true}, {"a/x/b", false, true}, {"a/x/y/b", false, true}, {"ab", false, false}, {"xa/b", false, false}}},
		{"stars inside a name", "a**b", []check{{"axxb", false, true}, {"a/b", false, false}}},
		{"class", "[abc].txt", []check{{"a.txt", false, true}, {"d.txt", false, false}}},
		{"negated class", "[!abc].txt", []check{{"a.txt", false, false}, {"d.txt", false, true}}},
		{"range", "file[0-9].go", []check{{"file7.go", false, true}, {"filex.go", false, false}}},
		{"posix class", "[[:digit:]]x", []check{{"7x", false, true}, {"ax", false, false}}},
		{"unclosed bracket is literal", "[abc", []check{{"[abc", false, true}, {"a", false, false}}},
		{"trailing spaces dropped", "a.txt   ", []check{{"a.txt", false, true}}},
		{"escaped trailing space kept", `a\ `, []check{{"a ", false, true}, {"a", false, false}}},
		{"crlf line", "a.txt\r\nb.txt\r\n", []check{{"a.txt", false, true}, {"b.txt", false, true}}},
		{"regex characters are literal", "a+(b).txt", []check{{"a+(b).txt", false, true}, {"aa(b).txt", false, false}}},
		{"braces are literal", "{a,b}.txt", []check{{"{a,b}.txt", false, true}, {"a.txt", false, false}}},
		{"everything", "**", []check{{"x", false, true}, {"x/y", true, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l ignoreList
			l.rules[kindGitignore] = parseIgnore([]byte(tt.rules))
			g := ignorer{lists: []*ignoreList{&l}}
			for _, c := range tt.checks {
				if got := g.ignored(c.path, c.isDir); got != c.want {
					t.Errorf("rules %q: ignored(%q, dir=%v) = %v, want %v", tt.rules, c.path, c.isDir, got, c.want)
				}
			}
		})
	}
}

func TestIgnoreNesting(t *testing.T) {
	root := ignoreList{dir: ""}
	root.rules[kindGitignore] = parseIgnore([]byte("*.log\n/top.txt\n"))
	root.rules[kindIgnore] = parseIgnore([]byte("secret\n"))
	sub := ignoreList{dir: "sub"}
	sub.rules[kindGitignore] = parseIgnore([]byte("!keep.log\n/local.txt\n!secret\n"))
	g := ignorer{lists: []*ignoreList{&root, &sub}}
	tests := []struct {
		path string
		want bool
	}{
		{"a.log", true},
		{"sub/a.log", true},
		{"sub/keep.log", false}, // a deeper .gitignore overrides a higher one
		{"keep.log", true},      // but only below its directory
		{"top.txt", true},
		{"sub/top.txt", false},
		{"sub/local.txt", true}, // anchored to sub
		{"sub/x/local.txt", false},
		{"local.txt", false},
		{"sub/secret", true}, // .ignore outranks any .gitignore, as in ripgrep
		{"subway/keep.log", true},
	}
	for _, tt := range tests {
		if got := g.ignored(tt.path, false); got != tt.want {
			t.Errorf("ignored(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func FuzzParseIgnore(f *testing.F) {
	for _, s := range []string{"*.log\n!keep.log", "build/", "/a/**/b", "[!a-z]x", "[[:alpha:]", `\!x \ `, "a/**", "**", "[]]", "[\\]]", "a[", "#c\n\\#d"} {
		f.Add(s, "a/b/c.log")
	}
	f.Fuzz(func(t *testing.T, rules, path string) {
		var l ignoreList
		l.rules[kindGitignore] = parseIgnore([]byte(rules))
		g := ignorer{lists: []*ignoreList{&l}}
		g.ignored(path, false)
		g.ignored(path, true)
		// A literal line (no special characters) ignores exactly itself.
		if rules != "" && utf8.ValidString(rules) && !strings.ContainsAny(rules, "*?[]\\!#/ \t\r\n\x00") && !strings.ContainsAny(path, "/") {
			if got := g.ignored(rules, false); !got {
				t.Fatalf("rule %q does not ignore %q", rules, rules)
			}
		}
	})
}
