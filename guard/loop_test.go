package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
)

// feed decides and records each step as replay does (every call runs with
// its scripted result) and returns the decision on the last.
func feed(g *Guard, steps []step) Decision {
	var d Decision
	for i, st := range steps {
		turn := st.turn
		if turn == 0 {
			turn = i + 1
		}
		res := tool.Text(st.result)
		res.IsError = st.isErr
		c := Call{Tool: st.tool, Args: json.RawMessage(st.args), Turn: turn, Unknown: st.unknown, Recorded: &res}
		d = g.Decide(c)
		g.Record(c, Decision{}, res)
	}
	return d
}

func TestLoopDetectors(t *testing.T) {
	same := step{tool: "grep", args: `{"pattern":"x","path":"."}`, result: "a.go:3: x"}
	changing := func(n int) []step {
		out := repeat(n, same)
		for i := range out {
			out[i].result = fmt.Sprintf("a.go:%d: x", i)
		}
		return out
	}
	status := step{tool: "check_status", args: `{"job":"build"}`, result: "running"}
	ping := step{tool: "read", args: `{"path":"a.go"}`, result: "package a"}
	pong := step{tool: "grep", args: `{"pattern":"b"}`, result: "no matches"}
	alternate := func(n int, a, b step) []step {
		var out []step
		for i := range n {
			if i%2 == 0 {
				out = append(out, a)
			} else {
				out = append(out, b)
			}
		}
		return out
	}
	unknown := step{tool: "web_search", args: `{"q":"x"}`, result: `Unknown tool "web_search". Available tools: read, bash.`, isErr: true, unknown: true}
	unknownArgs := func(n int) []step {
		out := repeat(n, unknown)
		for i := range out {
			out[i].args = fmt.Sprintf(`{"q":"%d"}`, i)
		}
		return out
	}
	timed := func(n int) []step {
		out := repeat(n, step{tool: "bash", args: `{"command":"make test"}`})
		for i := range out {
			out[i].result = fmt.Sprintf("ok\tpkg\t0.%02ds\nfinished at 2026-01-02T10:%02d:%02dZ (pid %d)", i, i%60, i%60, 1000+i)
		}
		return out
	}
	noBreaker := &Config{Disable: []string{RuleCircuitBreaker}}
	tests := []struct {
		name     string
		cfg      *Config
		steps    []step
		want     Action
		rule     string
		contains string
	}{
		{"repeat: ninth call allowed", nil, repeat(9, same), Allow, "", ""},
		{"repeat: warn at 10", nil, repeat(10, same), Warn, RuleGenericRepeat, "called 10 times with these exact arguments"},
		{"repeat: block at 20 with identical results", nil, repeat(20, same), Block, RuleGenericRepeat, "same result every time"},
		{"repeat: never block when results change (warned once at 10)", nil, changing(20), Allow, "", ""},
		{"repeat: volatile fields ignored", nil, timed(20), Block, RuleGenericRepeat, ""},
		{"repeat: arguments in another order", nil, append(repeat(9, same), step{tool: "grep", args: `{"path":".","pattern":"x"}`}), Warn, RuleGenericRepeat, ""},
		{"repeat: different arguments", nil, append(repeat(9, same), step{tool: "grep", args: `{"pattern":"y","path":"."}`}), Allow, "", ""},
		{"repeat: window slides", nil, append(append(repeat(15, same), perTurnOthers(30)...), same), Allow, "", ""},
		{"repeat: thresholds from config", &Config{LoopDetection: LoopConfig{WarningThreshold: 3, CriticalThreshold: 5}}, repeat(5, same), Block, RuleGenericRepeat, ""},
		{"repeat: disabled", &Config{Disable: []string{RuleGenericRepeat}}, repeat(20, same), Allow, "", ""},
		{"unknown: ninth allowed", nil, unknownArgs(9), Allow, "", ""},
		{"unknown: blocked at 10", nil, unknownArgs(10), Block, RuleUnknownTool, "Available tools: read, bash."},
		{"unknown: known tools not counted", nil, append(unknownArgs(9), step{tool: "grep", args: `{}`}), Allow, "", ""},
		{"unknown: disabled by group", &Config{Disable: []string{"loop"}}, unknownArgs(12), Allow, "", ""},
		{"poll: warn at 10", nil, repeat(10, status), Warn, RulePollNoProgress, "same result 9 times"},
		{"poll: block at 20", nil, repeat(20, status), Block, RulePollNoProgress, "not run"},
		{"poll: progress resets", nil, append(repeat(12, status), step{tool: "check_status", args: status.args, result: "done"}, status), Warn, RuleGenericRepeat, ""},
		{"poll: bash status command", nil, repeat(20, step{tool: "bash", args: `{"command":"sleep 5 && kubectl get pods"}`, result: "pod-1 Pending"}), Block, RulePollNoProgress, ""},
		{"ping-pong: warn at 10", nil, alternate(10, ping, pong), Warn, RulePingPong, "10 calls alternating"},
		{"ping-pong: block at 20", nil, alternate(20, ping, pong), Block, RulePingPong, ""},
		{"ping-pong: changing results are progress", nil, func() []step {
			s := alternate(20, ping, pong)
			for i := range s {
				if i%2 == 1 {
					s[i].result = fmt.Sprint(i)
				}
			}
			return s
		}(), Warn, RuleGenericRepeat, ""},
		{"ping-pong: three calls are not a loop", nil, alternate(3, ping, pong), Allow, "", ""},
		{"breaker: stop at 30 identical", nil, repeat(30, same), Stop, RuleCircuitBreaker, "the run was stopped"},
		{"breaker: 29 only block", nil, repeat(29, same), Block, RuleGenericRepeat, ""},
		{"breaker: alternating counts", nil, alternate(30, ping, pong), Stop, RuleCircuitBreaker, ""},
		{"breaker: changing results never stop", nil, changing(40), Allow, "", ""},
		{"breaker: disabled leaves the block", noBreaker, repeat(35, same), Block, RuleGenericRepeat, ""},
		{"breaker: threshold from config", &Config{LoopDetection: LoopConfig{CircuitBreakerThreshold: 25}}, repeat(25, same), Stop, RuleCircuitBreaker, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New(Options{Config: tt.cfg, Offline: true, Tools: []string{"read", "bash", "grep"}})
			steps := append([]step(nil), tt.steps...)
			for i := range steps {
				steps[i].turn = i + 1 // one call per turn: cascade stays out of it
				if steps[i].tool == "read" {
					steps[i].turn = 100 * (i + 1) // and the read cache too
				}
			}
			d := feed(g, steps)
			if d.Action != tt.want || d.Rule != tt.rule {
				t.Fatalf("decision = %s %s (%q), want %s %s", d.Action, d.Rule, d.Message, tt.want, tt.rule)
			}
			if !strings.Contains(d.Message, tt.contains) {
				t.Fatalf("message %q lacks %q", d.Message, tt.contains)
			}
		})
	}
}

func perTurnOthers(n int) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = step{tool: "ls", args: fmt.Sprintf(`{"path":"d%d"}`, i), result: "x"}
	}
	return out
}

// TestBlockedCallsReachTheBreaker checks that a model ignoring a block
// forever is stopped: the blocked calls did not run, so they count as
// calls without progress.
func TestBlockedCallsReachTheBreaker(t *testing.T) {
	s := newSim(t, &Config{Mismatch: MismatchBlock})
	st := step{tool: "bash", args: `{"command":"cat a.txt"}`}
	var res tool.Result
	for i := range 30 {
		st.turn = i + 1
		res = s.run(st)
		if i < 29 && verdict(res) != "block:mismatch" {
			t.Fatalf("call %d: %s", i+1, verdict(res))
		}
	}
	if verdict(res) != "stop:loop.circuit_breaker" || res.Stop == "" {
		t.Fatalf("30th call: %s, stop %q", verdict(res), res.Stop)
	}
	if s.ran != 0 {
		t.Fatalf("blocked commands ran %d times", s.ran)
	}
}

// TestBreakerEndsAgentRun runs the real loop with a model that keeps
// making the same call: the run must end with the guard's stop reason.
func TestBreakerEndsAgentRun(t *testing.T) {
	var replies []faux.Reply
	for range 40 {
		replies = append(replies, faux.Calls("", faux.Call("status", `{"job":"1"}`)))
	}
	replies = append(replies, faux.Text("done"))
	status, err := tool.New("status", "Job status.", func(ctx context.Context, call *tool.Call, in struct {
		Job string `json:"job"`
	}) (tool.Result, error) {
		return tool.Text("job " + in.Job + ": pending"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(status)
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Tools: reg.Names()})
	cfg := agent.Config{Settings: agent.Settings{Provider: faux.New(replies...), Model: faux.Model(), Tools: reg, Middleware: []tool.Middleware{g.Middleware()}}}
	var end agent.Event
	warned := 0
	for ev := range agent.Run(context.Background(), cfg, []llm.Message{llm.UserText("wait for job 1")}) {
		if ev.Type == agent.EventToolEnd && strings.Contains(ev.Result.Text(), "[guard loop.") && !strings.Contains(ev.Result.Text(), "[guard loop.circuit_breaker]") {
			warned++
		}
		if ev.Type == agent.EventAgentEnd {
			end = ev
		}
	}
	if end.Stop != agent.StopToolStop || !strings.Contains(end.Detail, "loop.circuit_breaker") {
		t.Fatalf("run ended with %s %q", end.Stop, end.Detail)
	}
	if end.Turn != 30 {
		t.Fatalf("run ended at turn %d, want 30", end.Turn)
	}
	if warned != 11 {
		t.Fatalf("%d warned or blocked results, want 11 (a warning at turn 10, blocks at 20 to 29)", warned)
	}
}

// TestWarnOncePerStreak checks that a loop warning is given once per
// streak of the same call, not at every call of it, and again when a new
// streak reaches the threshold.
func TestWarnOncePerStreak(t *testing.T) {
	g := New(Options{Offline: true, Tools: []string{"grep", "read"}})
	var warns []int
	turn := 0
	call := func(args, result string) {
		turn++
		res := tool.Text(result)
		c := Call{Tool: "grep", Args: json.RawMessage(args), Turn: turn, Recorded: &res}
		d := g.Decide(c)
		if d.Action == Warn {
			warns = append(warns, turn)
		}
		if d.Action == Block || d.Action == Stop {
			t.Fatalf("call %d: %s %s", turn, d.Action, d.Rule)
		}
		g.Record(c, Decision{}, res)
	}
	same := `{"pattern":"x"}`
	for i := range 19 { // results change: never more than a warning
		call(same, fmt.Sprint("match ", i))
	}
	for i := range 30 { // the streak leaves the window
		call(fmt.Sprintf(`{"pattern":"y%d"}`, i), "none")
	}
	for i := range 10 {
		call(same, fmt.Sprint("again ", i))
	}
	if want := []int{10, 59}; !slices.Equal(warns, want) {
		t.Fatalf("warnings at calls %v, want %v", warns, want)
	}
}
