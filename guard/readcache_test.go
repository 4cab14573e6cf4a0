package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// catStep is a bash view of a file whose output the test scripts as the
// file's content (the sim does not run bash).
func catStep(s *sim, turn int, cmd, file string) step {
	data := readFile(s, file)
	return step{turn: turn, tool: "bash", args: `{"command":` + strconv.Quote(cmd) + `}`, result: data}
}

func TestReadCacheBashViews(t *testing.T) {
	cat := `cat a.txt`
	tests := []struct {
		name  string
		cfg   *Config
		steps func(s *sim) []step
		want  string
	}{
		{"cat again", nil, func(s *sim) []step { return []step{catStep(s, 1, cat, "a.txt"), catStep(s, 3, cat, "a.txt")} }, "cached"},
		{"sed -n range again", nil, func(s *sim) []step {
			return []step{catStep(s, 1, "sed -n '1,30p' a.txt", "a.txt"), catStep(s, 2, "sed -n '1,30p' a.txt", "a.txt")}
		}, "cached"},
		{"another view of the same file", nil, func(s *sim) []step {
			return []step{catStep(s, 1, cat, "a.txt"), catStep(s, 2, "head -n 30 a.txt", "a.txt")}
		}, "allow"},
		{"seven turns later", nil, func(s *sim) []step { return []step{catStep(s, 1, cat, "a.txt"), catStep(s, 8, cat, "a.txt")} }, "allow"},
		{"an edit between", nil, func(s *sim) []step {
			return []step{catStep(s, 1, cat, "a.txt"), {turn: 2, tool: "edit", args: `{"path":"a.txt","edits":[]}`, result: "ok"}, catStep(s, 3, cat, "a.txt")}
		}, "allow"},
		{"a modifying command between", nil, func(s *sim) []step {
			return []step{catStep(s, 1, cat, "a.txt"), {turn: 2, tool: "bash", args: `{"command":"python fix.py"}`, result: "done"}, catStep(s, 3, cat, "a.txt")}
		}, "allow"},
		{"a file outside the workspace", nil, func(s *sim) []step {
			return []step{{turn: 1, tool: "bash", args: `{"command":"cat /etc/hosts"}`, result: longText}, {turn: 2, tool: "bash", args: `{"command":"cat /etc/hosts"}`, result: longText}}
		}, "allow"},
		{"a short file runs again", nil, func(s *sim) []step {
			s.write("b.txt", "short")
			return []step{catStep(s, 1, "cat b.txt", "b.txt"), catStep(s, 2, "cat b.txt", "b.txt")}
		}, "allow"},
		{"copy mode caches reads only", &Config{ReadCache: ReadCacheCopy}, func(s *sim) []step {
			return []step{catStep(s, 1, cat, "a.txt"), catStep(s, 2, cat, "a.txt")}
		}, "allow"},
		{"a failed view is not cached", nil, func(s *sim) []step {
			return []step{{turn: 1, tool: "bash", args: `{"command":"cat a.txt"}`, result: longText, isErr: true}, catStep(s, 2, cat, "a.txt")}
		}, "allow"}, // the first call had the hint
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, withoutSameOutput(tt.cfg))
			s.write("a.txt", longText)
			steps := tt.steps(s)
			for _, st := range steps[:len(steps)-1] {
				s.run(st)
			}
			ran := s.ran
			res := s.run(steps[len(steps)-1])
			if got := verdict(res); got != tt.want {
				t.Fatalf("verdict = %s, want %s (%q)", got, tt.want, shorten(res.Text(), 200))
			}
			if tt.want != "cached" {
				return
			}
			if s.ran != ran {
				t.Error("a cached view reached the tool")
			}
			if txt := res.Text(); !strings.HasPrefix(txt, "[guard read_cache] The file has not changed since bash `") ||
				!strings.HasSuffix(txt, "that output is still current, so the command was not run again.") || len(txt) > 250 {
				t.Errorf("cached result = %q", txt)
			}
		})
	}
}

// TestReadCacheBashViewChangedOnDisk checks that a bash view of a file
// changed by other means runs again.
func TestReadCacheBashViewChangedOnDisk(t *testing.T) {
	s := newSim(t, nil)
	s.write("a.txt", longText)
	s.run(catStep(s, 1, "cat a.txt", "a.txt"))
	s.write("a.txt", longText+"one more line\n")
	if v := verdict(s.run(catStep(s, 2, "cat a.txt", "a.txt"))); v != "allow" && v != "hint:mismatch" {
		t.Fatalf("verdict = %s, want the command run", v)
	}
}

func TestReadCacheCopyMode(t *testing.T) {
	s := newSim(t, &Config{ReadCache: ReadCacheCopy})
	s.write("a.txt", "hello")
	read := step{turn: 1, tool: "read", args: `{"path":"a.txt"}`}
	s.run(read)
	read.turn = 2
	res := s.run(read)
	if verdict(res) != "cached" || !strings.HasPrefix(res.Text(), "[guard read_cache] Unchanged since you read it in turn 1; this is the cached copy.\n") ||
		!strings.HasSuffix(res.Text(), "\nhello") {
		t.Fatalf("copy mode: %s %q", verdict(res), res.Text())
	}
}

func TestForgetReads(t *testing.T) {
	s := newSim(t, nil)
	s.write("a.txt", longText)
	read := step{turn: 1, tool: "read", args: `{"path":"a.txt"}`}
	s.run(read)
	s.g.ForgetReads()
	if v := verdict(s.run(read)); v != "allow" {
		t.Fatalf("after ForgetReads: %s, want a fresh read", v)
	}
	if v := verdict(s.run(read)); v != "cached" {
		t.Fatalf("the fresh read is cached again: %s", v)
	}
}

func TestReadCacheModeConfig(t *testing.T) {
	if err := (Config{ReadCache: "sometimes"}).Check(); err == nil || !strings.Contains(err.Error(), `readCache: unknown mode "sometimes"`) {
		t.Fatalf("Check = %v", err)
	}
	if s := resolve(Config{ReadCache: "sometimes"}); s.copyReads {
		t.Fatal("an unknown mode was taken for copy")
	}
	if s := resolve(Config{ReadCache: ReadCacheCopy}); !s.copyReads {
		t.Fatal("copy mode not resolved")
	}
}

func readFile(s *sim, name string) string {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(data)
}

// withoutSameOutput turns same_output off in cfg, so that a call the read
// cache lets run is seen running (its scripted output does not change).
func withoutSameOutput(cfg *Config) *Config {
	c := Config{}
	if cfg != nil {
		c = *cfg
	}
	c.Disable = append(c.Disable, RuleSameOutput)
	return &c
}
