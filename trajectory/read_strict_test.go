package trajectory

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const demoDir = "../testdata/trajectories/swe-agent/demonstrations/"

// TestReadHistoryOnlyTrajectory reads a real .traj that has a history and
// no trajectory: one call per assistant action, the observation after it,
// and the request prefix from the messages before it.
func TestReadHistoryOnlyTrajectory(t *testing.T) {
	s := readFile(t, demoDir+"function_calling_simple.traj")
	want := []brief{
		{1, "find", `{"path":".","pattern":"missing_colon.py"}`, false, false, `Found 1 matches for "missing_colon.py"`},
		{2, "read", `{"path":"tests/missing_colon.py"}`, false, false, "[File: tests/missing_colon.py (10 lines total)]"},
		{3, "edit", "", false, false, "Text replaced."},
		{4, "bash", `{"command":"python tests/missing_colon.py"}`, false, false, "8.2"},
		{5, "submit", `{}`, false, false, "\r\ndiff --git"},
	}
	got := briefs(s)
	if len(got) != len(want) || s.Format != FormatSWEAgent {
		t.Fatalf("format %s, %d calls: %+v", s.Format, len(got), got)
	}
	prev := 0
	for i := range want {
		if want[i].Args == "" {
			want[i].Args = got[i].Args
		}
		if !strings.HasPrefix(got[i].Result, want[i].Result) {
			t.Errorf("call %d result %.60q, want prefix %q", i, got[i].Result, want[i].Result)
		}
		got[i].Result = want[i].Result
		if got[i] != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, got[i], want[i])
		}
		if p := s.Calls[i].Prefix; p <= prev {
			t.Errorf("call %d: prefix %d not after the previous %d", i, p, prev)
		}
		prev = s.Calls[i].Prefix
	}
}

// TestReadTrajectoryPrefixes checks that a .traj with both parts takes
// its calls from the trajectory and its prefixes from the history.
func TestReadTrajectoryPrefixes(t *testing.T) {
	s := readFile(t, demoDir+"ctf/warmup.traj")
	if len(s.Calls) != 7 {
		t.Fatalf("%d calls", len(s.Calls))
	}
	for i, c := range s.Calls {
		if c.Prefix < 1000 {
			t.Errorf("call %d: prefix %d; the history before it holds the system prompt and the demonstration", i, c.Prefix)
		}
	}
}

// TestReadRefusesMisparse covers files that look like one format but are
// not: lines with "tool" but without "args", or with members the format
// does not have, are reported with file and line, and a file made mostly
// of them is refused with the reason instead of being replayed as a few
// empty calls.
func TestReadRefusesMisparse(t *testing.T) {
	in := strings.Join([]string{
		`{"tool": "bash", "command": "ls -la", "output": "total 0"}`,
		`{"tool": "bash", "command": "cat a.txt", "output": "hello"}`,
		`{"tool": "bash", "command": "grep -rn x .", "output": "a:1:x"}`,
		`{"turn": 2, "tool": "read", "args": {"path": "a.txt"}, "result": "hello"}`,
	}, "\n")
	_, err := Read(strings.NewReader(in), "calls.jsonl")
	if err == nil || !errors.Is(err, ErrMostlyUnrecognised) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	for _, want := range []string{"calls.jsonl: ", "3 of 4 lines are not neutral lines", "line 1", `unknown member "command", "output"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	// Lines without args only.
	_, err = Read(strings.NewReader(`{"tool":"bash"}`+"\n"+`{"tool":"read"}`), "noargs.jsonl")
	if err == nil || !strings.Contains(err.Error(), `a call needs "args"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestReadReportsUnknownLineTypes checks that a Claude Code recording's
// lines of an unknown type are reported, not skipped in silence, while
// the known non-call types are skipped quietly.
func TestReadReportsUnknownLineTypes(t *testing.T) {
	lines := []string{
		`{"type":"summary","summary":"x"}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":10,"cache_read_input_tokens":9000,"cache_creation_input_tokens":500}}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}]}}`,
		`{"type":"hologram","data":1}`,
		`{"type":"queue-operation","operation":"dequeue"}`,
		`{"type":"assistant","message":{"id":"m2","content":"done"}}`,
	}
	s, err := Read(strings.NewReader(strings.Join(lines, "\n")), "cc.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Problems) != 1 || s.Problems[0].Line != 4 || !strings.Contains(s.Problems[0].Error(), `cc.jsonl:4: a line of type "hologram"`) {
		t.Fatalf("problems = %v", s.Problems)
	}
	if len(s.Calls) != 1 || s.Calls[0].Prefix != 9510 || s.Calls[0].Result != "a.txt" {
		t.Fatalf("calls = %+v", s.Calls)
	}
}

// TestReadBrokenDocument checks that a pretty-printed recording with a
// syntax error is refused with the line of the error, not read line by
// line into a misleading message.
func TestReadBrokenDocument(t *testing.T) {
	in := "{\n  \"trajectory\": [\n    {\"action\": \"ls\", \"observation\": \"a\"},,\n  ]\n}\n"
	_, err := Read(strings.NewReader(in), "broken.traj")
	if err == nil || !strings.Contains(err.Error(), "broken.traj: not valid JSON: line 3, column") {
		t.Fatalf("err = %v", err)
	}
}

// TestReadClaudeSubagentFile checks that a Claude Code subagent's own
// transcript file (every line isSidechain) is read as a session, while
// subagent lines inside a main session's file are still skipped.
func TestReadClaudeSubagentFile(t *testing.T) {
	use := `{"type":"assistant","isSidechain":%v,"sessionId":"s","message":{"id":"m%d","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"ls"}}]}}`
	res := `{"type":"user","isSidechain":%v,"sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t%d","content":"a.go"}]}}`
	line := func(f string, args ...any) string { return fmt.Sprintf(f, args...) }
	sub := strings.Join([]string{line(use, true, 1, 1), line(res, true, 1), line(use, true, 2, 2), line(res, true, 2)}, "\n")
	s, err := Read(strings.NewReader(sub), "agent-1.jsonl")
	if err != nil || len(s.Calls) != 2 || s.Calls[1].Result != "a.go" {
		t.Fatalf("subagent file: %+v, %v", s, err)
	}
	mixed := strings.Join([]string{line(use, false, 1, 1), line(res, false, 1), line(use, true, 2, 2), line(res, true, 2)}, "\n")
	s, err = Read(strings.NewReader(mixed), "main.jsonl")
	if err != nil || len(s.Calls) != 1 {
		t.Fatalf("main file: %+v, %v", s, err)
	}
}
