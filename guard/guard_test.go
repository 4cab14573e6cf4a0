package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// step is one call in a scripted run: the call, and what the tool does
// and returns when it runs.
type step struct {
	turn   int
	tool   string
	args   string
	result string
	isErr  bool
	// do runs as the tool, before it returns (to change files).
	do func(t *testing.T)
	// unknown marks a tool that does not exist.
	unknown bool
}

// sim runs steps through the middleware of g with a handler that plays
// the scripted results. The read tool really reads the file (relative to
// dir) when result is empty.
type sim struct {
	t   *testing.T
	g   *Guard
	dir string
	ran int // how many calls reached the handler
}

func newSim(t *testing.T, cfg *Config) *sim {
	dir := t.TempDir()
	return &sim{t: t, g: New(Options{Config: cfg, Workdir: dir}), dir: dir}
}

func (s *sim) run(st step) tool.Result {
	s.t.Helper()
	h := s.g.Middleware()(func(ctx context.Context, call *tool.Call) tool.Result {
		s.ran++
		if st.do != nil {
			st.do(s.t)
		}
		if call.Name == "read" && st.result == "" && !st.isErr {
			var a struct{ Path string }
			if err := json.Unmarshal(call.Args, &a); err != nil {
				return tool.Errorf("bad args: %v", err)
			}
			p := a.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(s.dir, p)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return tool.Errorf("%v", err)
			}
			return tool.Text(string(data))
		}
		if st.isErr {
			return tool.Errorf("%s", st.result)
		}
		return tool.Text(st.result)
	})
	call := &tool.Call{ID: "c", Name: st.tool, Args: json.RawMessage(st.args), Turn: max(st.turn, 1)}
	if !st.unknown {
		call.Tool = &tool.Tool{Name: st.tool}
	}
	return h(context.Background(), call)
}

// verdict names what the middleware did with a call, from its notes:
// "allow", "cached", or "<action>:<rule>".
func verdict(r tool.Result) string {
	for _, n := range r.Notes {
		if n == "guard:cached" {
			return "cached"
		}
		if rest, ok := strings.CutPrefix(n, "guard:"); ok {
			return rest
		}
	}
	return "allow"
}

func (s *sim) write(name, content string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func repeat(n int, st step) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = st
	}
	return out
}

// perTurn gives each step its own turn, so that cascade never fires.
func perTurn(steps []step) []step {
	for i := range steps {
		steps[i].turn = i + 1
	}
	return steps
}

func TestErrorRetry(t *testing.T) {
	fail := step{tool: "bash", args: `{"command":"go test ./..."}`, result: "FAIL: TestX (exit status 1)", isErr: true}
	okSame := step{tool: "bash", args: `{"command":"go test ./..."}`, result: "ok"}
	failOther := step{tool: "bash", args: `{"command":"go test ./pkg"}`, result: "FAIL", isErr: true}
	edit := step{tool: "edit", args: `{"path":"x.go","edits":[]}`, result: "edited"}
	grepFail := step{tool: "grep", args: `{"pattern":"x","path":"notes.txt"}`, result: "notes.txt: no such file", isErr: true}
	tests := []struct {
		name  string
		cfg   *Config
		steps []step
		last  step
		want  string
	}{
		{"third identical failure blocked", nil, []step{fail, fail}, fail, "block:error_retry"},
		{"blocked across turns", nil, perTurn([]step{fail, fail}), step{turn: 5, tool: fail.tool, args: fail.args}, "block:error_retry"},
		{"one failure allowed", nil, []step{fail}, fail, "allow"},
		{"success resets", nil, []step{fail, okSame, fail}, fail, "allow"},
		{"different arguments reset", nil, []step{fail, failOther, fail}, fail, "allow"},
		{"a successful edit in between resets", nil, []step{fail, fail, edit}, fail, "allow"},
		{"a read in between does not reset", nil, []step{fail, {tool: "read", args: `{"path":"x.go"}`, result: "code"}, fail,
			{tool: "read", args: `{"path":"y.go"}`, result: "code"}}, fail, "block:error_retry"},
		{"another tool failing in between does not reset", nil, []step{fail, {tool: "grep", args: `{"pattern":"("}`, result: "bad regex", isErr: true}, fail}, fail, "block:error_retry"},
		{"a failed edit in between does not reset", nil, []step{fail, {tool: "edit", args: `{"path":"x.go"}`, result: "no match", isErr: true}, fail}, fail, "block:error_retry"},
		{"a modifying bash command in between resets", nil, []step{grepFail, grepFail, {tool: "bash", args: `{"command":"touch notes.txt"}`, result: ""}}, grepFail, "allow"},
		{"a read-only bash command in between does not reset", nil, []step{grepFail, grepFail, {tool: "bash", args: `{"command":"ls -la | wc -l"}`, result: "3"}}, grepFail, "block:error_retry"},
		{"different arguments are not blocked", nil, []step{fail, fail}, failOther, "allow"},
		{"keys in another order are the same call", nil, []step{
			{tool: "grep", args: `{"pattern":"x","path":"a"}`, result: "no such file", isErr: true},
			{tool: "grep", args: `{ "path": "a", "pattern": "x" }`, result: "no such file", isErr: true},
		}, step{tool: "grep", args: `{"path":"a","pattern":"x"}`}, "block:error_retry"},
		{"limit from config", &Config{ErrorRetryLimit: 3}, []step{fail, fail}, fail, "allow"},
		{"disabled", &Config{Disable: []string{RuleErrorRetry}}, []step{fail, fail}, fail, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, tt.cfg)
			for _, st := range tt.steps {
				s.run(st)
			}
			res := s.run(tt.last)
			if got := verdict(res); got != tt.want {
				t.Fatalf("verdict = %s, want %s (%q)", got, tt.want, res.Text())
			}
			if tt.want == "block:error_retry" {
				for _, w := range []string{"failed twice in a row", "different approach"} {
					if !strings.Contains(res.Text(), w) {
						t.Errorf("message %q lacks %q", res.Text(), w)
					}
				}
				if !res.IsError {
					t.Error("a blocked call must be an error result")
				}
			}
		})
	}
}

func TestErrorRetryNamesTheError(t *testing.T) {
	s := newSim(t, nil)
	st := step{tool: "read", args: `{"path":"missing.txt"}`, result: "ENOENT: no such file or directory\nstack…", isErr: true}
	s.run(st)
	s.run(st)
	res := s.run(st)
	if !strings.Contains(res.Text(), "last error: ENOENT: no such file or directory)") || strings.Contains(res.Text(), "stack") {
		t.Fatalf("message = %q", res.Text())
	}
	if s.ran != 2 {
		t.Fatalf("the tool ran %d times, want 2", s.ran)
	}
}

func TestReadCache(t *testing.T) {
	read := func(turn int, args string) step { return step{turn: turn, tool: "read", args: args} }
	a := `{"path":"a.txt"}`
	bash := func(turn int, cmd string, do func(*sim)) func(s *sim) step {
		return func(s *sim) step {
			return step{turn: turn, tool: "bash", args: fmt.Sprintf(`{"command":%q}`, cmd), result: "", do: func(*testing.T) {
				if do != nil {
					do(s)
				}
			}}
		}
	}
	same := func(st step) func(*sim) step { return func(*sim) step { return st } }
	tests := []struct {
		name  string
		cfg   *Config
		steps []func(s *sim) step
		last  step
		want  string
	}{
		{"re-read in the same turn", nil, []func(*sim) step{same(read(1, a))}, read(1, a), "cached"},
		{"re-read six turns later", nil, []func(*sim) step{same(read(1, a))}, read(7, a), "cached"},
		{"re-read seven turns later", nil, []func(*sim) step{same(read(1, a))}, read(8, a), "allow"},
		{"relative and absolute paths are the same file", nil, []func(*sim) step{same(read(1, a))}, read(2, `{"path":"./sub/../a.txt"}`), "cached"},
		{"different offset", nil, []func(*sim) step{same(read(1, a))}, read(2, `{"path":"a.txt","offset":10}`), "allow"},
		{"different limit", nil, []func(*sim) step{same(read(1, `{"path":"a.txt","limit":5}`))}, read(2, `{"path":"a.txt","limit":6}`), "allow"},
		{"write between", nil, []func(*sim) step{same(read(1, a)), func(s *sim) step {
			return step{turn: 2, tool: "write", args: `{"path":"a.txt","content":"new"}`, result: "wrote", do: func(*testing.T) { s.write("a.txt", "new") }}
		}}, read(3, a), "allow"},
		{"edit between", nil, []func(*sim) step{same(read(1, a)), same(step{turn: 2, tool: "edit", args: `{"path":"a.txt","edits":[]}`, result: "ok"})}, read(3, a), "allow"},
		{"edit of another file", nil, []func(*sim) step{same(read(1, a)), same(step{turn: 2, tool: "edit", args: `{"path":"b.txt","edits":[]}`, result: "ok"})}, read(3, a), "cached"},
		{"sed -i between", nil, []func(*sim) step{same(read(1, a)), bash(2, "sed -i s/x/y/ a.txt", nil)}, read(3, a), "allow"},
		{"redirection between", nil, []func(*sim) step{same(read(1, a)), bash(2, "echo hi > b.txt", nil)}, read(3, a), "allow"},
		{"sed -n w between", nil, []func(*sim) step{same(read(1, a)), bash(2, "sed -n 'w a.txt' in.txt", nil)}, read(3, a), "allow"},
		{"sed s///w between", nil, []func(*sim) step{same(read(1, a)), bash(2, "sed -n -e 's/x/y/w a.txt' in.txt", nil)}, read(3, a), "allow"},
		{"xxd -r between", nil, []func(*sim) step{same(read(1, a)), bash(2, "xxd -r dump.hex a.txt", nil)}, read(3, a), "allow"},
		{"sed -n view between", nil, []func(*sim) step{same(read(1, a)), bash(2, "sed -n '1,5p' in.txt", nil)}, read(3, a), "cached"},
		{"xxd view between", nil, []func(*sim) step{same(read(1, a)), bash(2, "xxd -l 64 in.bin", nil)}, read(3, a), "cached"},
		{"mv between", nil, []func(*sim) step{same(read(1, a)), bash(2, "mv b.txt c.txt", nil)}, read(3, a), "allow"},
		{"rm between", nil, []func(*sim) step{same(read(1, a)), bash(2, "rm -f c.txt", nil)}, read(3, a), "allow"},
		{"git checkout between", nil, []func(*sim) step{same(read(1, a)), bash(2, "git checkout -- .", nil)}, read(3, a), "allow"},
		{"a script run between", nil, []func(*sim) step{same(read(1, a)), bash(2, "python fix.py", nil)}, read(3, a), "allow"},
		{"read-only bash between", nil, []func(*sim) step{same(read(1, a)), bash(2, "git status && ls -la | wc -l", nil)}, read(3, a), "cached"},
		{"changed on disk by other means", nil, []func(*sim) step{same(read(1, a)), func(s *sim) step {
			return step{turn: 2, tool: "custom", args: `{}`, result: "done", do: func(*testing.T) { s.write("a.txt", "changed by someone else") }}
		}}, read(3, a), "allow"},
		{"same size, new modification time", nil, []func(*sim) step{same(read(1, a)), func(s *sim) step {
			return step{turn: 2, tool: "custom", args: `{}`, result: "done", do: func(t *testing.T) {
				p := filepath.Join(s.dir, "a.txt")
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				s.write("a.txt", "HELLO")
				later := fi.ModTime().Add(3e9)
				if err := os.Chtimes(p, later, later); err != nil {
					t.Fatal(err)
				}
			}}
		}}, read(3, a), "allow"},
		{"a failed read is not cached", nil, []func(*sim) step{same(read(1, `{"path":"nope.txt"}`))}, read(2, `{"path":"nope.txt"}`), "allow"},
		{"ttl from config", &Config{ReadCacheTurns: 1}, []func(*sim) step{same(read(1, a))}, read(3, a), "allow"},
		{"disabled", &Config{Disable: []string{RuleReadCache}}, []func(*sim) step{same(read(1, a))}, read(1, a), "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, withoutSameOutput(tt.cfg))
			s.write("a.txt", longText)
			for _, f := range tt.steps {
				s.run(f(s))
			}
			ran := s.ran
			res := s.run(tt.last)
			if got := verdict(res); got != tt.want {
				t.Fatalf("verdict = %s, want %s (%q)", got, tt.want, res.Text())
			}
			if tt.want == "cached" {
				if s.ran != ran {
					t.Error("a cached read reached the tool")
				}
				want := " has not changed since you read these lines in turn 1; that result is still current, so it was not read again."
				if !strings.HasPrefix(res.Text(), "[guard read_cache] ") || !strings.HasSuffix(res.Text(), want) {
					t.Errorf("cached result = %q", res.Text())
				}
			}
		})
	}
}

// longText is a file long enough for the read cache to answer a re-read
// with a reference (MinReferenceChars).
var longText = strings.Repeat("hello, world\n", 40)

func TestReadCacheNeverStale(t *testing.T) {
	s := newSim(t, nil)
	base := time.Now().Add(-time.Hour)
	for i, want := range []string{"one", "two", "six", "three"} {
		s.write("a.txt", want)
		// Give every version its own modification time, as a coarse
		// file-system clock might not.
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(s.dir, "a.txt"), mt, mt); err != nil {
			t.Fatal(err)
		}
		res := s.run(step{turn: 1, tool: "read", args: `{"path":"a.txt"}`})
		if got := res.Text(); !strings.HasSuffix(got, want) {
			t.Fatalf("read %d = %q, want %q", i, got, want)
		}
	}
}

// TestSeveralRuns checks a guard serving several runs in sequence, as a
// harness does: a new run (the turn number going back) does not reuse
// the read copies of the previous one, and cascade counts restart.
func TestSeveralRuns(t *testing.T) {
	s := newSim(t, nil)
	s.write("a.txt", longText)
	read := step{turn: 3, tool: "read", args: `{"path":"a.txt"}`}
	s.run(read)
	if v := verdict(s.run(read)); v != "cached" {
		t.Fatalf("same run: %s", v)
	}
	read.turn = 1 // the next run
	if v := verdict(s.run(read)); v != "allow" {
		t.Fatalf("next run: %s, want a fresh read", v)
	}
	if v := verdict(s.run(read)); v != "cached" {
		t.Fatalf("next run, re-read: %s", v)
	}
}

func TestCascade(t *testing.T) {
	readN := func(turn, i int) step {
		return step{turn: turn, tool: "read", args: fmt.Sprintf(`{"path":"f%d.txt"}`, i), result: "x"}
	}
	reads := func(turn, n int) []step {
		var out []step
		for i := range n {
			out = append(out, readN(turn, i))
		}
		return out
	}
	bash := func(cmd string) step {
		return step{turn: 1, tool: "bash", args: fmt.Sprintf(`{"command":%q}`, cmd), result: fmt.Sprint(len(cmd))}
	}
	statusN := func(i int) step { return bash(fmt.Sprintf("git status %d", i)) }
	var statuses []step
	for i := range 8 {
		statuses = append(statuses, statusN(i))
	}
	three := 3
	tests := []struct {
		name  string
		cfg   *Config
		steps []step
		last  step
		want  string
	}{
		{"ninth call in a turn blocked", nil, reads(1, 8), readN(1, 99), "block:cascade"},
		{"eighth call allowed", nil, reads(1, 7), readN(1, 99), "allow"},
		{"new turn resets", nil, reads(1, 8), readN(2, 99), "allow"},
		{"another tool in between resets", nil, append(reads(1, 8), step{turn: 1, tool: "grep", args: `{"pattern":"x"}`, result: "x"}), readN(1, 99), "allow"},
		{"bash counted by command", nil, statuses, bash("git diff"), "allow"},
		{"same bash command blocked", nil, statuses, statusN(99), "block:cascade"},
		{"per-tool threshold", &Config{Tools: map[string]ToolConfig{"read": {CascadeThreshold: three}}}, reads(1, 3), readN(1, 99), "block:cascade"},
		{"default for every tool", &Config{Tools: map[string]ToolConfig{"*": {CascadeThreshold: 12}}}, reads(1, 8), readN(1, 99), "allow"},
		{"disabled", &Config{Disable: []string{RuleCascade}}, reads(1, 8), readN(1, 99), "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, tt.cfg)
			for _, st := range tt.steps {
				if v := verdict(s.run(st)); v != "allow" {
					t.Fatalf("setup call %s was %s", st.args, v)
				}
			}
			res := s.run(tt.last)
			if got := verdict(res); got != tt.want {
				t.Fatalf("verdict = %s, want %s (%q)", got, tt.want, res.Text())
			}
			if tt.want == "block:cascade" && !strings.Contains(res.Text(), "consecutive") {
				t.Errorf("message = %q", res.Text())
			}
		})
	}
}

func TestPassthrough(t *testing.T) {
	no := false
	yes := true
	ask := step{tool: "ask_user", args: `{"question":"ok?"}`, result: "yes"}
	cat := step{tool: "bash", args: `{"command":"cat a.txt"}`, result: "hello"}
	tests := []struct {
		name  string
		cfg   *Config
		steps []step
		last  step
		want  string
	}{
		{"ask_user is never blocked", nil, repeat(40, ask), ask, "allow"},
		{"ask_user failing is never blocked", nil, repeat(5, step{tool: "ask_user", args: `{}`, result: "no", isErr: true}), step{tool: "ask_user", args: `{}`}, "allow"},
		{"configured tool passes", &Config{Tools: map[string]ToolConfig{"bash": {PassThrough: &yes}}}, nil, cat, "allow"},
		{"exemption can be removed", &Config{Tools: map[string]ToolConfig{"ask_user": {PassThrough: &no}}}, repeat(8, ask), ask, "block:cascade"},
		{"rule can be disabled", &Config{Disable: []string{RulePassthrough}}, repeat(8, ask), ask, "block:cascade"},
		{"a passthrough call does not break a streak", nil, []step{
			{tool: "read", args: `{"path":"x"}`, result: "e", isErr: true}, ask,
			{tool: "read", args: `{"path":"x"}`, result: "e", isErr: true}, ask,
		}, step{tool: "read", args: `{"path":"x"}`}, "block:error_retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, tt.cfg)
			for _, st := range tt.steps {
				s.run(st)
			}
			res := s.run(tt.last)
			if got := verdict(res); got != tt.want {
				t.Fatalf("verdict = %s, want %s (%q)", got, tt.want, res.Text())
			}
		})
	}
}

func TestMismatchOnlyToToolsThatExist(t *testing.T) {
	g := New(Options{Tools: []string{"bash", "read"}, Config: &Config{Mismatch: MismatchBlock}})
	if d := g.Decide(Call{Tool: "bash", Args: json.RawMessage(`{"command":"grep -r x ."}`), Turn: 1}); d.Action != Allow {
		t.Fatalf("grep redirected without a grep tool: %+v", d)
	}
	if d := g.Decide(Call{Tool: "bash", Args: json.RawMessage(`{"command":"cat x"}`), Turn: 2}); d.Rule != RuleMismatch {
		t.Fatalf("cat not redirected to read: %+v", d)
	}
}

func TestWarnIsPrependedAndSuccessIsSilent(t *testing.T) {
	s := newSim(t, nil)
	st := step{tool: "grep", args: `{"pattern":"x"}`, result: "a.go:1:x"}
	for i := range 9 {
		st.turn = i + 1
		res := s.run(st)
		if res.Text() != "a.go:1:x" || len(res.Notes) != 0 {
			t.Fatalf("call %d: allowed result changed: %q %v", i+1, res.Text(), res.Notes)
		}
	}
	st.turn = 10
	res := s.run(st)
	if verdict(res) != "warn:loop.generic_repeat" {
		t.Fatalf("verdict = %s", verdict(res))
	}
	if len(res.Content) != 2 || !strings.HasPrefix(res.Text(), "[guard loop.generic_repeat]") || !strings.HasSuffix(res.Text(), "\n\na.go:1:x") {
		t.Fatalf("warned result = %q", res.Text())
	}
	if s.ran != 10 {
		t.Fatalf("warned call did not run")
	}
}

func TestBadInputNeverPanics(t *testing.T) {
	huge := strings.Repeat("a", 2<<20)
	args := []string{
		``, `null`, `[]`, `"str"`, `{`, `{"path":`, `{"path":5}`, `{"command":["x"]}`,
		`{"command":"` + huge + `"}`, `{"path":"` + huge + `"}`, `{"command":"if then fi ((("}`,
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		`{"path":"\u00e9\/x.txt","offset":"7","limit":1e2}`,
	}
	s := newSim(t, nil)
	for _, name := range []string{"read", "bash", "write", "edit", "nope"} {
		for i, a := range args {
			res := s.run(step{turn: i + 1, tool: name, args: a, result: "{not json", unknown: name == "nope"})
			if res.Text() == "" {
				t.Fatalf("%s %.40q: empty result", name, a)
			}
		}
	}
}

func TestUnknownToolMessageListsTools(t *testing.T) {
	g := New(Options{Tools: []string{"read", "bash"}})
	var d Decision
	for i := range 10 {
		c := Call{Tool: "search_web", Args: json.RawMessage(fmt.Sprintf(`{"q":%d}`, i)), Turn: i + 1, Unknown: true}
		d = g.Decide(c)
		g.Record(c, d, tool.Errorf("Unknown tool %q. Available tools: read, bash.", c.Tool))
	}
	if d.Rule != RuleUnknownTool || d.Action != Block {
		t.Fatalf("decision = %+v", d)
	}
	if !strings.Contains(d.Message, `no tool named "search_web" (called 10 times). Available tools: read, bash.`) {
		t.Fatalf("message = %q", d.Message)
	}
}

func TestCachedResultIsNotShared(t *testing.T) {
	s := newSim(t, &Config{ReadCache: ReadCacheCopy})
	s.write("a.txt", "hello")
	s.run(step{turn: 1, tool: "read", args: `{"path":"a.txt"}`})
	r1 := s.run(step{turn: 1, tool: "read", args: `{"path":"a.txt"}`})
	r1.Content[0] = llm.Text("mutated")
	r2 := s.run(step{turn: 1, tool: "read", args: `{"path":"a.txt"}`})
	if !strings.HasPrefix(r2.Text(), "[guard read_cache]") {
		t.Fatalf("second cached result = %q", r2.Text())
	}
}
