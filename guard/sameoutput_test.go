package guard

import (
	"strings"
	"testing"
)

func TestSameOutput(t *testing.T) {
	long := strings.Repeat("FAIL: TestParse (0.00s)\n", 30)
	test := func(turn int, out string, isErr bool) step {
		return step{turn: turn, tool: "bash", args: `{"command":"go test ./..."}`, result: out, isErr: isErr}
	}
	tests := []struct {
		name  string
		cfg   *Config
		steps []step
		want  string
	}{
		{"the same failure again", nil, []step{test(1, long, true), test(2, long, true)}, "cached:same_output"},
		{"the same success again", nil, []step{test(1, long, false), test(3, long, false)}, "cached:same_output"},
		{"another output", nil, []step{test(1, long, true), test(2, long+"ok\n", true)}, "allow"},
		{"the same text, but one failed", nil, []step{test(1, long, false), test(2, long, true)}, "allow"},
		{"short output", nil, []step{test(1, "FAIL\n", true), test(2, "FAIL\n", true)}, "allow"},
		{"seven turns later", nil, []step{test(1, long, true), test(8, long, true)}, "allow"},
		{"other arguments", nil, []step{test(1, long, true), {turn: 2, tool: "bash", args: `{"command":"go test ./a"}`, result: long, isErr: true}}, "allow"},
		{"third time refers to the first", nil, []step{test(1, long, false), test(2, long, false), test(3, long, false)}, "cached:same_output"},
		{"disabled", &Config{Disable: []string{RuleSameOutput}}, []step{test(1, long, true), test(2, long, true)}, "allow"},
		{"off in copy mode", &Config{ReadCache: ReadCacheCopy}, []step{test(1, long, true), test(2, long, true)}, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, tt.cfg)
			for _, st := range tt.steps[:len(tt.steps)-1] {
				s.run(st)
			}
			ran := s.ran
			last := tt.steps[len(tt.steps)-1]
			res := s.run(last)
			if got := verdict(res); got != tt.want {
				t.Fatalf("verdict = %s, want %s (%q)", got, tt.want, shorten(res.Text(), 120))
			}
			if s.ran != ran+1 {
				t.Fatal("the call did not run: same_output must not keep it from running")
			}
			if tt.want == "allow" {
				return
			}
			if res.IsError != last.isErr {
				t.Errorf("error flag %v, want %v", res.IsError, last.isErr)
			}
			if txt := res.Text(); !strings.HasPrefix(txt, "[guard same_output] bash `go test ./...` ") ||
				!strings.Contains(txt, "with the same output as in turn 1, word for word") || len(txt) > 200 {
				t.Errorf("note = %q", txt)
			}
		})
	}
}

// TestSameOutputForgotten checks that ForgetReads drops the remembered
// outputs: the earlier copy may have left the conversation.
func TestSameOutputForgotten(t *testing.T) {
	s := newSim(t, nil)
	long := strings.Repeat("x", 500)
	st := step{turn: 1, tool: "grep", args: `{"pattern":"x"}`, result: long}
	s.run(st)
	s.g.ForgetReads()
	st.turn = 2
	if v := verdict(s.run(st)); v != "allow" {
		t.Fatalf("after ForgetReads: %s", v)
	}
}

// TestSameOutputKeepsWarning checks that a loop warning given to a call
// whose output is replaced still reaches the model, before the note.
func TestSameOutputKeepsWarning(t *testing.T) {
	s := newSim(t, nil)
	long := strings.Repeat("x", 500)
	var res = s.run(step{turn: 1, tool: "grep", args: `{"pattern":"x"}`, result: long})
	for turn := 2; turn <= 10; turn++ {
		res = s.run(step{turn: turn, tool: "grep", args: `{"pattern":"x"}`, result: long})
	}
	txt := res.Text()
	// Turn 8 is more than six turns after turn 1: its output was sent in
	// full, and the 10th refers to it.
	if !strings.HasPrefix(txt, "[guard loop.generic_repeat]") || !strings.HasSuffix(txt, "\n\n[guard same_output] grep succeeded with the same output as in turn 8, word for word; that output is still above, so it is not repeated.") {
		t.Fatalf("10th result = %q", txt)
	}
	if s.ran != 10 {
		t.Fatalf("ran %d calls, want 10", s.ran)
	}
}
