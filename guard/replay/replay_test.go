package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/trajectory"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The recordings the tests replay.
const (
	samples = "../../trajectory/testdata/"
	piDir   = "../../testdata/sessions/pi/"
	sweDir  = "../../testdata/trajectories/swe-agent/"
)

func readFile(t testing.TB, path string) *trajectory.Session {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := trajectory.Read(f, path)
	if err != nil {
		t.Fatalf("Read(%s): %v", path, err)
	}
	return s
}

// verdicts returns the decisions that are not a plain allow, as
// "index decision rule".
func verdicts(s *trajectory.Session, opts Options) ([]string, Summary) {
	var out []string
	sum := Run(s, "f", opts, func(e Entry) {
		if e.Decision != "allow" || e.Rule != "" {
			out = append(out, strings.TrimSpace(fmt.Sprintf("%d %s %s", e.I, e.Decision, e.Rule)))
		}
	})
	return out, sum
}

func TestReplayDecisions(t *testing.T) {
	disableMismatch := &guard.Config{Disable: []string{guard.RuleMismatch}}
	copies := &guard.Config{ReadCache: guard.ReadCacheCopy}
	tests := []struct {
		file      string
		opts      Options
		want      []string
		decisions map[string]int
	}{
		{file: piDir + "session-read-tool-then-followup.jsonl", want: nil, decisions: map[string]int{"allow": 1}},
		{file: piDir + "session-read-tool-error.jsonl", want: nil, decisions: map[string]int{"allow": 1}},
		{file: piDir + "events-sample.jsonl", want: nil, decisions: map[string]int{"allow": 1}},
		{file: piDir + "events-sample.session.jsonl", want: nil, decisions: map[string]int{"allow": 1}},
		{file: sweDir + "gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/swe-agent__test-repo-i1.traj", decisions: map[string]int{"allow": 5}},
		{file: sweDir + "gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj", decisions: map[string]int{"allow": 5}},
		{file: sweDir + "gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj", want: []string{"7 cached same_output"},
			decisions: map[string]int{"allow": 11, "cached": 1}}, // the same failed edit, again
		// The re-reads in these recordings are short: answering them with a
		// reference would cost about as much as the output, so they run.
		{file: samples + "rein-session.jsonl", want: nil,
			decisions: map[string]int{"allow": 6}},
		{file: samples + "rein-session.jsonl", opts: Options{Config: copies}, want: []string{"3 cached read_cache"},
			decisions: map[string]int{"allow": 5, "cached": 1}},
		{file: samples + "rein-session.jsonl", opts: Options{Config: disableMismatch}, want: nil,
			decisions: map[string]int{"allow": 6}},
		{file: samples + "claude-code-session.jsonl", want: []string{"9 block error_retry"},
			decisions: map[string]int{"allow": 12, "block": 1}},
		{file: samples + "claude-code-session.jsonl", opts: Options{Config: copies}, want: []string{"2 cached read_cache", "9 block error_retry"},
			decisions: map[string]int{"allow": 11, "block": 1, "cached": 1}},
		// A loop warning is given once per streak.
		{file: samples + "claude-stream.jsonl", want: []string{"11 warn loop.poll_no_progress"},
			decisions: map[string]int{"allow": 15, "warn": 1}},
		{file: samples + "neutral.jsonl", want: []string{"5 block error_retry", "16 block cascade", "27 block loop.unknown_tool", "28 allow passthrough"},
			decisions: map[string]int{"allow": 26, "block": 3}},
		{file: samples + "neutral.jsonl", opts: Options{Config: copies}, want: []string{"2 cached read_cache", "5 block error_retry", "16 block cascade", "27 block loop.unknown_tool", "28 allow passthrough"},
			decisions: map[string]int{"allow": 25, "block": 3, "cached": 1}},
		{file: samples + "neutral.jsonl", opts: Options{Config: &guard.Config{Disable: []string{"loop", "cascade"}, ReadCacheTurns: 0}},
			want:      []string{"5 block error_retry", "28 allow passthrough"},
			decisions: map[string]int{"allow": 28, "block": 1}},
		{file: samples + "malformed.jsonl", want: nil, decisions: map[string]int{"allow": 9}},
		{file: samples + "malformed.jsonl", opts: Options{Config: &guard.Config{Mismatch: guard.MismatchBlock, ReadCache: guard.ReadCacheCopy}}, want: []string{"1 cached read_cache", "2 block mismatch"},
			decisions: map[string]int{"allow": 7, "block": 1, "cached": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.file[strings.LastIndex(tt.file, "/")+1:], func(t *testing.T) {
			s := readFile(t, tt.file)
			got, sum := verdicts(s, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.decisions, sum.Decisions); diff != "" {
				t.Errorf("summary decisions (-want +got):\n%s", diff)
			}
			if sum.Calls != len(s.Calls) || sum.Files != 1 || sum.Formats[string(s.Format)] != 1 || sum.Malformed != len(s.Problems) {
				t.Errorf("summary = %+v", sum)
			}
		})
	}
}

func TestReplayTokens(t *testing.T) {
	result := strings.Repeat("x", 400) // 100 tokens
	var lines []string
	add := func(turn int, tool, args, res string, extra ...any) {
		m := map[string]any{"turn": turn, "tool": tool, "args": json.RawMessage(args), "result": res}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	catArgs := `{"command":"cat a.txt"}`
	long := strings.Repeat("line\n", 2001)     // longer than read's page: worth a hint
	add(1, "bash", catArgs, long)              // hint (or block)
	add(1, "read", `{"path":"a.txt"}`, result) // allowed
	add(2, "read", `{"path":"a.txt"}`, result) // cached: 100 saved (or re-served as a copy)
	add(2, "bash", `{"command":"cat b.txt"}`, result, "prefix_tokens", 5000)
	for i := range 30 { // 30 identical polls: 10 warnings, 10 blocks, the 30th stops
		add(3+i, "check_status", `{}`, "pending")
	}
	add(40, "read", `{"path":"b.txt"}`, result) // after the stop: skipped
	s, err := trajectory.Read(strings.NewReader(strings.Join(lines, "\n")), "t")
	if err != nil {
		t.Fatal(err)
	}
	pollSaved := 10 * trajectory.Tokens(len("pending")) // the blocked polls repeat their output
	wantSkipped := trajectory.Tokens(len(`{"path":"b.txt"}`) + 400)
	stopSaved := trajectory.Tokens(len("pending")) + wantSkipped

	t.Run("hint", func(t *testing.T) {
		var entries []Entry
		sum := Run(s, "t", Options{}, func(e Entry) { entries = append(entries, e) })
		if e := entries[0]; e.Decision != "hint" || e.TokensSaved != 0 || e.TokensCost != trajectory.Tokens(len(e.Message)) {
			t.Errorf("hinted entry = %+v", e)
		}
		if e := entries[3]; e.Decision != "allow" {
			t.Errorf("second cat (hinted once per kind) = %+v", e)
		}
		mm := sum.ByRule[guard.RuleMismatch]
		if mm.Saved != 0 || mm.RoundTrip != 0 || mm.Added != entries[0].TokensCost || mm.Net != -mm.Added {
			t.Errorf("mismatch account = %+v", mm)
		}
		if p := sum.ByRule[guard.RulePollNoProgress]; p.Saved != pollSaved || p.RoundTrip != 0 || p.Net != p.Saved-p.Added {
			t.Errorf("poll account = %+v, want %d saved", p, pollSaved)
		}
		if st := sum.ByRule[guard.RuleCircuitBreaker]; st.Saved != trajectory.Tokens(len("pending")) {
			t.Errorf("stop account = %+v", st)
		}
		if sk := sum.ByRule[Skipped]; sk.Saved != wantSkipped || entries[len(entries)-1].Decision != Skipped {
			t.Errorf("skipped account = %+v", sk)
		}
		// The re-read is answered with a reference: its output is saved,
		// the note added.
		if rc := sum.ByRule[guard.RuleReadCache]; sum.TokensCached != 0 || rc.Saved != 100 || rc.Added != trajectory.Tokens(len(entries[2].Message)) || rc.Net <= 0 {
			t.Errorf("cached = %d, read cache account %+v", sum.TokensCached, rc)
		}
		tot := sum.Tokens
		if tot.Saved != pollSaved+stopSaved+100 || tot.RoundTrip != 0 || tot.Net != tot.Saved-tot.Added-tot.RoundTrip {
			t.Errorf("total = %+v, want %d saved", tot, pollSaved+stopSaved+100)
		}
		var byRule Account
		for _, a := range sum.ByRule {
			byRule.add(a)
		}
		if byRule != tot {
			t.Errorf("rules add up to %+v, total %+v", byRule, tot)
		}
	})

	t.Run("copy", func(t *testing.T) {
		sum := Run(s, "t", Options{Config: &guard.Config{ReadCache: guard.ReadCacheCopy}}, nil)
		// A copy is sent again: it saves the tool run, not tokens.
		if rc := sum.ByRule[guard.RuleReadCache]; sum.TokensCached != 100 || rc.Saved != 0 || rc.Net >= 0 {
			t.Errorf("cached = %d, read cache account %+v", sum.TokensCached, rc)
		}
	})

	t.Run("block", func(t *testing.T) {
		var entries []Entry
		sum := Run(s, "t", Options{Config: &guard.Config{Mismatch: guard.MismatchBlock}}, func(e Entry) { entries = append(entries, e) })
		// A redirect saves nothing (the model reads the file instead) and
		// costs a round trip: the estimated prefix at the start of the
		// session, then the recorded one.
		first := EstimatedBase + trajectory.Tokens(len(catArgs))
		if e := entries[0]; e.Decision != "block" || e.TokensSaved != 0 || e.TokensCost != first+trajectory.Tokens(len(e.Message)) {
			t.Errorf("first block = %+v, want round trip %d", e, first)
		}
		second := 5000 + trajectory.Tokens(len(`{"command":"cat b.txt"}`))
		if e := entries[3]; e.Decision != "block" || e.TokensCost != second+trajectory.Tokens(len(e.Message)) {
			t.Errorf("second block = %+v, want round trip %d", e, second)
		}
		if mm := sum.ByRule[guard.RuleMismatch]; mm.RoundTrip != first+second || mm.Saved != 0 || mm.Net >= 0 {
			t.Errorf("mismatch account = %+v", mm)
		}
	})
}

func TestSummaryAdd(t *testing.T) {
	var total Summary
	for _, f := range []string{samples + "neutral.jsonl", samples + "claude-stream.jsonl"} {
		total.Add(Run(readFile(t, f), f, Options{}, nil))
	}
	if total.Files != 2 || total.Calls != 45 || total.Decisions["warn"] != 1 || total.Rules[guard.RulePollNoProgress]["warn"] != 1 ||
		total.Formats["neutral"] != 1 || total.Formats["claude-stream-json"] != 1 {
		t.Fatalf("total = %+v", total)
	}
}

// FuzzNeutral feeds arbitrary input to the reader (which detects the
// format, so every decoder is reached) and replays what it reads.
func FuzzNeutral(f *testing.F) {
	for _, s := range []string{
		`{"turn": 1, "tool": "bash", "args": {"command": "cat a.txt"}, "result": "x", "is_error": false}`,
		`{"tool":"read","args":{"path":"a"}}` + "\n" + `{"tool":"read","args":{"path":"a"},"result":{"a":1}}`,
		`{"tool":"x","args":[1]}` + "\n" + `nope` + "\n" + `{"turn":-1,"tool":"y"}`,
		`{"type":"session","version":3}` + "\n" + `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"read","arguments":{}}]}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"a"}}]}}`,
		`{"trajectory":[{"action":"open a.py 3","observation":"x"}]}`,
		"{\n\"trajectory\": [{\"action\": \"search_dir 'x y'\"}]}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := trajectory.Read(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		for _, c := range s.Calls {
			if c.Turn < 1 || len(c.Args) == 0 {
				t.Fatalf("call %+v", c)
			}
		}
		for _, p := range s.Problems {
			if p.Line < 1 || p.File != "fuzz" {
				t.Fatalf("problem %+v", p)
			}
		}
		sum := Run(s, "fuzz", Options{}, nil)
		n := 0
		for _, v := range sum.Decisions {
			n += v
		}
		if n != len(s.Calls) {
			t.Fatalf("%d decisions for %d calls", n, len(s.Calls))
		}
	})
}

// TestReplayWorkdir checks that absolute paths count as inside the
// workspace only below the recorded agent's directory.
func TestReplayWorkdir(t *testing.T) {
	in := `{"tool":"bash","args":{"command":"cat /app/a.txt"},"result":"hello"}` + "\n" +
		`{"tool":"bash","args":{"command":"grep -n x /etc/hosts"},"result":"1:x"}`
	s, err := trajectory.Read(strings.NewReader(in), "w")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		workdir string
		want    []string
	}{{"", nil}, {"/app", []string{"0 hint mismatch"}}} {
		got, _ := verdicts(s, Options{Workdir: tt.workdir, Config: &guard.Config{Mismatch: guard.MismatchAlways}})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("workdir %q (-want +got):\n%s", tt.workdir, diff)
		}
	}
}

// TestReplayWorkdirFromRecording checks that a Claude Code session's
// "cwd" is the workspace when no Workdir is given, so that its absolute
// paths count as inside it.
func TestReplayWorkdirFromRecording(t *testing.T) {
	lines := []string{
		`{"type":"assistant","cwd":"/repo","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat /repo/main.go"}}]}}`,
		`{"type":"user","cwd":"/repo","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"package main"}]}}`,
	}
	s, err := trajectory.Read(strings.NewReader(strings.Join(lines, "\n")), "c")
	if err != nil || s.Workdir != "/repo" {
		t.Fatalf("workdir %q, %v", s.Workdir, err)
	}
	always := &guard.Config{Mismatch: guard.MismatchAlways}
	if got, _ := verdicts(s, Options{Config: always}); !slices.Equal(got, []string{"0 hint mismatch"}) {
		t.Fatalf("with the recording's cwd: %v", got)
	}
	if got, _ := verdicts(s, Options{Config: always, Workdir: "/elsewhere"}); got != nil {
		t.Fatalf("with another workdir: %v", got)
	}
}
