package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/tool/builtin"
)

// TestMismatchPrecision covers the classes of commands that were
// redirected wrongly on recorded runs: each is either left alone or
// redirected to a call that shows the same thing.
func TestMismatchPrecision(t *testing.T) {
	tests := []struct {
		class, cmd string
		redirect   string // "" when the command must be left alone
		call       string // the exact call, when redirected
	}{
		// ls with metadata flags: the long listing, or left alone when
		// it sorts.
		{"ls long", "ls -la", "ls", `path=".", long=true`},
		{"ls long", "ls -lh src", "ls", `path="src", long=true`},
		{"ls long", "ls -al", "ls", `path=".", long=true`},
		{"ls sort", "ls -lt", "", ""},
		{"ls sort", "ls -lS", "", ""},
		{"ls sort", "ls -ltr logs", "", ""},
		{"ls other", "ls -i", "", ""},
		{"ls other", "ls --sort=size", "", ""},
		// Binary dumps: read refuses binary files.
		{"binary", "hexdump -C model.pth | head", "", ""},
		{"binary", "xxd model.pth | head", "", ""},
		{"binary", "xxd -l 64 f", "", ""},
		{"binary", "od -c f", "", ""},
		{"binary", "cat model.pth", "", ""},
		{"binary", "head -c 100 data.bin", "", ""},
		{"binary", "head -n 5 weights.pkl", "", ""},
		// Flags that show what read cannot.
		{"cat flags", "cat -A notes.txt", "", ""},
		{"cat flags", "cat -v notes.txt", "", ""},
		{"cat flags", "cat -e notes.txt", "", ""},
		{"cat flags", "cat -s notes.txt", "", ""},
		{"cat flags", "cat -n notes.txt", "read", `path="notes.txt"`},
		// Names that ignore files usually skip.
		{"ignored", "find . -name '*.pyc'", "", ""},
		{"ignored", "find . -name __pycache__ -type d", "", ""},
		{"ignored", "find . -name 'node_modules'", "", ""},
		{"ignored", "find . -name '*'", "", ""},
		{"ignored", `find . -name "*.pth" -o -name "*mnist*"`, "", ""},
		{"ignored", "find . -name '*.go'", "find", `pattern="*.go", path="."`},
		// tail: from line N on, or left alone.
		{"tail", "tail -n +5 f.txt", "read", `path="f.txt", offset=5`},
		{"tail", "tail -n 5 f.txt", "", ""},
		{"tail", "tail f.txt", "", ""},
		{"tail", "tail -5 f.txt", "", ""},
		{"tail", "cat f.txt | tail -n +20", "read", `path="f.txt", offset=20`},
		{"tail", "cat f.txt | tail -n 20", "", ""},
		// head.
		{"head", "head f.txt", "read", `path="f.txt", limit=10`},
		{"head", "head -n 40 f.txt", "read", `path="f.txt", limit=40`},
		{"head", "head -n -5 f.txt", "", ""},
		{"head", "head -q a b", "", ""},
		{"head", "head -n 50 f.txt | tail -n 10", "", ""},
		// Views the tools serve: sed -n ranges, nl -ba.
		{"sed", "sed -n '10,40p' f.py", "read", `path="f.py", offset=10, limit=31`},
		{"sed", "sed -n 25p f.py", "read", `path="f.py", offset=25, limit=1`},
		{"sed", "sed -n '100,$p' f.py", "read", `path="f.py", offset=100`},
		{"sed", "nl -ba f.py | sed -n '10,40p'", "read", `path="f.py", offset=10, limit=31`},
		{"sed", "nl -b a f.py | sed -n '5,6p'", "read", `path="f.py", offset=5, limit=2`},
		{"sed", "nl -ba f.py", "read", `path="f.py"`},
		{"sed", "nl f.py", "", ""},
		{"sed", "sed -n '/def /p' f.py", "", ""},
		{"sed", "sed -n '40,10p' f.py", "", ""},
		{"sed", "sed 's/a/b/' f.py", "", ""},
		{"sed", "sed -n '1,5p' a b", "", ""},
		// grep: one path, context the tool can show.
		{"grep", "grep -n foo a.go b.go", "", ""},
		{"grep", "grep -C 50 foo a.go", "", ""},
		{"grep", "grep -rn foo", "grep", `pattern="foo"`},
		{"grep", `grep -n "lodepng_decode" lodepng.h | head -10`, "grep", `pattern="lodepng_decode", path="lodepng.h", limit=10`},
		{"grep", "grep -n x a.go | tail -5", "", ""},
		{"grep", "grep -n x a.go | less", "", ""},
		{"binary", "cat eps1.1_ones-and-zer0es.mpeg", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.class+"/"+tt.cmd, func(t *testing.T) {
			bi := classify(tt.cmd)
			tool, call := suggestOf(bi)
			if tool != tt.redirect || tt.redirect != "" && call != tt.call {
				t.Fatalf("classify(%q) = %s %s, want %q %s", tt.cmd, tool, call, tt.redirect, tt.call)
			}
		})
	}
}

// TestMismatchWritesAreNotViews checks commands that look like views but
// write files: they modify (invalidating the read cache) and are never
// redirected.
func TestMismatchWritesAreNotViews(t *testing.T) {
	for _, cmd := range []string{
		"xxd -r dump.hex out.bin", "xxd -r -p dump.hex out.bin", "xxd in.bin out.hex",
		"sed -n 'w out.txt' in.txt", "sed -n '1,5w out.txt' in.txt", "sed -n -e 's/a/b/w out.txt' in.txt",
		"sed -f script.sed in.txt", "sed -i '1d' a.txt",
	} {
		bi := classify(cmd)
		if !bi.modifies || bi.suggest != nil {
			t.Errorf("%q: modifies=%v suggest=%v", cmd, bi.modifies, bi.suggest)
		}
	}
	for _, cmd := range []string{"xxd -l 64 f.bin", "xxd f.bin", "sed -n '1,5p' in.txt", "sed 's/a/b/' in.txt"} {
		if bi := classify(cmd); bi.modifies {
			t.Errorf("%q: taken for a write", cmd)
		}
	}
}

// TestMismatchReach checks that only paths inside the workspace are
// redirected: the dedicated tools are confined to it.
func TestMismatchReach(t *testing.T) {
	dir := t.TempDir()
	always := Config{Mismatch: MismatchAlways}
	tests := []struct {
		cmd  string
		want string
	}{
		{"cat /etc/nginx/nginx.conf", "allow"},
		{"grep -n def /usr/local/lib/python3/site.py", "allow"},
		{"find / -name nginx.conf", "allow"},
		{"cat ~/.bashrc", "allow"},
		{"ls ~", "allow"},
		{"cat /proc/cpuinfo", "allow"},
		{"cat ../other/a.txt", "allow"},
		{"ls ..", "allow"},
		{"head -n 3 sub/../../x", "allow"},
		{"cat " + filepath.Join(dir, "a.txt"), "hint:mismatch"},
		{"cat sub/../a.txt", "hint:mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			s := &sim{t: t, g: New(Options{Workdir: dir, Config: &always}), dir: dir}
			if v := verdict(s.run(step{turn: 1, tool: "bash", args: fmt.Sprintf(`{"command":%q}`, tt.cmd), result: "x"})); v != tt.want {
				t.Fatalf("verdict %s, want %s", v, tt.want)
			}
		})
	}
	// Without a workspace (replay), absolute paths are never reached.
	g := New(Options{})
	if d := g.Decide(Call{Tool: "bash", Args: json.RawMessage(`{"command":"cat /repo/a.txt"}`), Turn: 1}); d.Action != Allow {
		t.Fatalf("absolute path without a workspace: %+v", d)
	}
}

// TestMismatchHintsAreValidCalls builds the suggested call for each
// redirected command and validates it against the schema of rein's own
// tool: a hint must be a call the tool accepts.
func TestMismatchHintsAreValidCalls(t *testing.T) {
	ws, err := builtin.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*tool.Tool{"read": builtin.Read(ws), "grep": builtin.Grep(ws, builtin.GrepOptions{}), "find": builtin.Find(ws), "ls": builtin.Ls(ws)}
	cmds := []string{
		"cat a.txt", "cat -n a.txt", "less README.md", "cat a.txt | head -5", "cat a.txt | tail -n +3",
		"head -n 20 a.txt", "head a.txt", "tail -n +5 f", "sed -n '10,40p' f.py", "sed -n 3p f",
		"sed -n '100,$p' f", "nl -ba f.py | sed -n '10,40p'", "nl -ba f.py",
		"grep -rn TODO .", "grep -n foo a.go", "grep -e foo -e bar src", "grep -in 'todo' a.go",
		"grep -rw id .", "fgrep 'a.b' f.txt", "grep -C 2 --include='*.go' -r New .", "rg foo",
		"rg -g '*.go' 'func New' internal", "rg --files src", "rg --files -g '*.md'",
		"find . -name '*.go'", "find src -type d -name 'test*'", "find . -name '*.go' -o -name '*.md'",
		"ls", "ls -la src", "ls -lh", "ls -1 docs", "ls -A", "grep -n x a.go | head -3",
	}
	for _, cmd := range cmds {
		bi := classify(cmd)
		if bi.suggest == nil {
			t.Errorf("%q: not redirected", cmd)
			continue
		}
		args := bi.suggest.argsJSON()
		if err := tools[bi.suggest.tool].Validate(args); err != nil {
			t.Errorf("%q: %s %s: %v", cmd, bi.suggest.tool, args, err)
		}
		// The hint shows the same arguments the call carries.
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil || len(m) != len(bi.suggest.args) || !strings.HasPrefix(bi.suggest.call(), bi.suggest.args[0].name+"=") {
			t.Errorf("%q: call %s does not match arguments %s", cmd, bi.suggest.call(), args)
		}
	}
}

// TestMismatchBinaryFiles checks that a file without a telling name is
// still recognised as binary: from its bytes in a live run, from the
// recorded output in replay. read would refuse it.
func TestMismatchBinaryFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "release"), []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes"), []byte("plain text\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ cmd, want string }{{"cat release", "allow"}, {"head -n 5 release", "allow"}, {"cat notes", "hint:mismatch"}} {
		s := &sim{t: t, g: New(Options{Workdir: dir, Config: &Config{Mismatch: MismatchAlways}}), dir: dir}
		if v := verdict(s.run(step{turn: 1, tool: "bash", args: fmt.Sprintf(`{"command":%q}`, tt.cmd), result: "x"})); v != tt.want {
			t.Errorf("%s: verdict %s, want %s", tt.cmd, v, tt.want)
		}
	}
	g := New(Options{Offline: true})
	elf := tool.Text("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01\x00")
	if d := g.Decide(Call{Tool: "bash", Args: json.RawMessage(`{"command":"cat release"}`), Turn: 1, Recorded: &elf}); d.Action != Allow {
		t.Errorf("replay of cat on a binary: %+v", d)
	}
	txt := tool.Text("hello\nworld\n")
	if d := g.Decide(Call{Tool: "bash", Args: json.RawMessage(`{"command":"cat notes"}`), Turn: 2, Recorded: &txt}); d.Action != Hint {
		t.Errorf("replay of cat on text: %+v", d)
	}
}

func TestMismatchBlockMessages(t *testing.T) {
	tests := []struct {
		cmd  string
		want string // substring of the message, or "" for allow
	}{
		{"cat a.txt", `use the read tool with path="a.txt" instead`},
		{"head -n 20 src/main.go", `use the read tool with path="src/main.go", limit=20 instead`},
		{"grep -rn TODO src", `use the grep tool with pattern="TODO", path="src" instead`},
		{"rg 'func main'", `use the grep tool with pattern="func main" instead`},
		{"find . -name '*.go'", `use the find tool with pattern="*.go", path="." instead`},
		{"ls -la internal", `use the ls tool with path="internal", long=true instead`},
		{"xxd blob.bin", ""},
		{"cat a b > c", ""},
		{"grep x f > out.txt", ""},
		{"go test ./...", ""},
	}
	block := Config{Mismatch: MismatchBlock}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			s := newSim(t, &block)
			res := s.run(step{tool: "bash", args: fmt.Sprintf(`{"command":%q}`, tt.cmd), result: "out"})
			if tt.want == "" {
				if v := verdict(res); v != "allow" {
					t.Fatalf("verdict = %s (%q)", v, res.Text())
				}
				return
			}
			if v := verdict(res); v != "block:mismatch" {
				t.Fatalf("verdict = %s, want block:mismatch", v)
			}
			if !strings.Contains(res.Text(), tt.want) || !strings.Contains(res.Text(), "`"+tt.cmd+"`") || !strings.Contains(res.Text(), "not run") {
				t.Fatalf("message = %q, want it to name the command and contain %q", res.Text(), tt.want)
			}
			if s.ran != 0 {
				t.Fatal("a blocked command ran")
			}
		})
	}
}

// TestMismatchHintsOncePerKind checks the default mode: the command runs,
// its output comes first and untouched, the hint follows when the output
// is longer than the tool's page, and a kind of command is hinted at once
// per guard (per session).
func TestMismatchHintsOncePerKind(t *testing.T) {
	s := newSim(t, &Config{Disable: []string{RuleSameOutput}})
	long := strings.Repeat("line\n", readPage+1)
	cat := func(turn int, file, out string) step {
		return step{turn: turn, tool: "bash", args: fmt.Sprintf(`{"command":"cat %s"}`, file), result: out}
	}
	// A file the read tool would show whole: no hint, none spent.
	if res := s.run(cat(1, "small.txt", "hello")); verdict(res) != "allow" || res.Text() != "hello" {
		t.Fatalf("short cat: %s %q", verdict(res), res.Text())
	}
	res := s.run(cat(1, "a.txt", long))
	if v := verdict(res); v != "hint:mismatch" || s.ran != 2 {
		t.Fatalf("first long cat: verdict %s, ran %d", v, s.ran)
	}
	want := long + "\n\n[guard mismatch] Next time use the read tool for this: path=\"a.txt\" (numbered lines, paged output)."
	if res.Text() != want {
		t.Fatalf("result ends %q", res.Text()[len(long)-10:])
	}
	if res.IsError {
		t.Fatal("a hinted result is an error")
	}
	if res := s.run(cat(2, "b.txt", long)); verdict(res) != "allow" || res.Text() != long {
		t.Fatalf("second cat: %s", verdict(res))
	}
	if res := s.run(step{turn: 3, tool: "bash", args: `{"command":"grep -n x a.go"}`, result: "1:x"}); verdict(res) != "allow" {
		t.Fatalf("grep with one match: %s", verdict(res))
	}
	// With context, a match brings up to 2×context+1 lines: 150 lines of
	// -C 2 output may be 30 matches, which the tool shows whole.
	if res := s.run(step{turn: 3, tool: "bash", args: `{"command":"grep -n -C 2 x a.go"}`, result: strings.Repeat("1:x\n", 150)}); verdict(res) != "allow" {
		t.Fatalf("grep with context under the page: %s", verdict(res))
	}
	// Exactly a page of matches, and bash's status line: the tool shows it all.
	if res := s.run(step{turn: 3, tool: "bash", args: `{"command":"grep -n y a.go"}`, result: strings.Repeat("1:y\n", grepPage) + "exit code: 0"}); verdict(res) != "allow" {
		t.Fatalf("grep with a page of matches: %s", verdict(res))
	}
	if res := s.run(step{turn: 3, tool: "bash", args: `{"command":"grep -n x a.go"}`, result: strings.Repeat("1:x\n", grepPage+1) + "exit code: 0"}); verdict(res) != "hint:mismatch" {
		t.Fatalf("grep with more matches than the tool's page: %s", verdict(res))
	}
	// A later run of the same session (the turn number goes back) is not
	// hinted again: the hint is still in the conversation.
	if res := s.run(cat(1, "c.txt", long)); verdict(res) != "allow" {
		t.Fatalf("cat in a later run: %s", verdict(res))
	}
	if s.ran != 8 {
		t.Fatalf("ran %d of 8 commands", s.ran)
	}
	// "always" hints whatever the output's length.
	s = newSim(t, &Config{Mismatch: MismatchAlways})
	if res := s.run(cat(1, "small.txt", "hello")); verdict(res) != "hint:mismatch" {
		t.Fatalf("always: %s", verdict(res))
	}
}

// TestMismatchPiConfigBlocks checks that a .pi/harness-config.json that
// asks for blocking gets it, and one that does not gets hints.
func TestMismatchPiConfigBlocks(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{`{"mismatch": "block", "tools": {"bash": {"cascadeThreshold": 4}}}`, "block:mismatch"},
		{`{"tools": {"bash": {"cascadeThreshold": 4}}}`, "hint:mismatch"},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".pi"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".pi", "harness-config.json"), []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		var warned []string
		cfg := (&Loader{Warn: func(m string) { warned = append(warned, m) }}).Load(dir)
		if len(warned) > 0 {
			t.Fatalf("warnings: %v", warned)
		}
		s := &sim{t: t, g: New(Options{Config: &cfg, Workdir: dir}), dir: dir}
		if v := verdict(s.run(step{turn: 1, tool: "bash", args: `{"command":"cat a.txt"}`, result: strings.Repeat("x\n", readPage+1)})); v != tt.want {
			t.Fatalf("%s: verdict %s, want %s", tt.file, v, tt.want)
		}
	}
}

// TestMismatchHintsCutOutput checks that an output the output limit cut
// is worth a hint, however few lines are left of it.
func TestMismatchHintsCutOutput(t *testing.T) {
	g := New(Options{Workdir: t.TempDir()})
	h := g.Middleware()(tool.Limit(tool.LimitOptions{MaxChars: 2000})(func(ctx context.Context, call *tool.Call) tool.Result {
		return tool.Text(strings.Repeat(strings.Repeat("x", 199)+"\n", 50)) // 50 lines, 10,000 characters
	}))
	call := &tool.Call{Name: "bash", Args: json.RawMessage(`{"command":"cat big.txt"}`), Turn: 1, Tool: &tool.Tool{Name: "bash"}}
	res := h(context.Background(), call)
	if v := verdict(res); v != "hint:mismatch" {
		t.Fatalf("verdict %s, notes %v", v, res.Notes)
	}
}
