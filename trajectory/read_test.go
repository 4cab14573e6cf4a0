package trajectory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func readFile(t testing.TB, path string) *Session {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Read(f, path)
	if err != nil {
		t.Fatalf("Read(%s): %v", path, err)
	}
	return s
}

// brief is a call as the tests compare it.
type brief struct {
	Turn    int
	Tool    string
	Args    string
	IsError bool
	Unknown bool
	Result  string // a prefix of the result
}

func briefs(s *Session) []brief {
	var out []brief
	for _, c := range s.Calls {
		out = append(out, brief{c.Turn, c.Tool, string(c.Args), c.IsError, c.Unknown, c.Result})
	}
	return out
}

const (
	piDir  = "../testdata/sessions/pi/"
	sweDir = "../testdata/trajectories/swe-agent/"
)

func TestReadFixtures(t *testing.T) {
	hello := "Hello from the fixture project!\nThis file exists so the agent has something to read.\n"
	tests := []struct {
		file   string
		format Format
		tools  []string
		calls  []brief
	}{
		{piDir + "session-read-tool-then-followup.jsonl", FormatPi, nil, []brief{{1, "read", `{"path":"hello.txt"}`, false, false, hello}}},
		{piDir + "session-read-tool-error.jsonl", FormatPi, nil, []brief{{1, "read", `{"path":"hello.txt"}`, true, false, "ENOENT: no such file or directory"}}},
		{piDir + "events-sample.jsonl", FormatPiEvents, nil, []brief{{1, "read", `{"path":"hello.txt"}`, false, false, hello}}},
		{piDir + "events-sample.session.jsonl", FormatPi, nil, []brief{{1, "read", `{"path":"hello.txt"}`, false, false, hello}}},
		{sweDir + "gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/swe-agent__test-repo-i1.traj", FormatSWEAgent, nil, []brief{
			{1, "find", `{"path":".","pattern":"missing_colon.py"}`, false, false, `Found 1 matches for "missing_colon.py"`},
			{2, "read", `{"path":"tests/missing_colon.py"}`, false, false, "[File: /klieret__swe-agent-test-repo/tests/missing_colon.py (10 lines total)]"},
			{3, "edit", `{"edit":"edit 4:4\ndef division(a: float, b: float) -\u003e float:\nend_of_edit","path":"tests/missing_colon.py"}`, false, false, "[File:"},
			{4, "bash", `{"command":"python tests/missing_colon.py"}`, false, false, "8.2"},
			{5, "submit", `{}`, false, false, "\ndiff --git"},
		}},
		{sweDir + "gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj", FormatSWEAgent, nil, []brief{
			{1, "find", `{"path":".","pattern":"missing_colon.py"}`, false, false, "Found 1 matches"},
			{2, "read", `{"path":"/SWE-agent__test-repo/tests/missing_colon.py"}`, false, false, "[File: /SWE-agent__test-repo/tests/missing_colon.py"},
			{3, "edit", `{"edit":"edit 'def division(a: float, b: float) -\u003e float' 'def division(a: float, b: float) -\u003e float:' False","path":"/SWE-agent__test-repo/tests/missing_colon.py"}`, false, false, "Replaced 1 occurrences"},
			{4, "bash", `{"command":"python3 /SWE-agent__test-repo/tests/missing_colon.py"}`, false, false, "8.2"},
			{5, "submit", `{}`, false, false, "\r\ndiff --git"},
		}},
		{"testdata/rein-session.jsonl", FormatRein, []string{"read", "write", "edit", "bash", "grep", "find", "ls"}, []brief{
			{1, "read", `{"path":"main.go"}`, false, false, "package main"},
			{1, "bash", `{"command":"ls -la"}`, false, false, "total 8"},
			{2, "bash", `{"command":"grep -rn health ."}`, false, false, "./main.go:3"},
			{3, "read", `{"path":"main.go"}`, false, false, "package main"},
			{4, "http_get", `{"url":"http://localhost:8080/health"}`, true, true, `Unknown tool "http_get"`},
			{5, "bash", `{"command":"curl -s localhost:8080/health"}`, true, false, "curl: (7)"},
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			s := readFile(t, tt.file)
			if s.Format != tt.format {
				t.Errorf("format = %s, want %s", s.Format, tt.format)
			}
			if len(s.Problems) > 0 {
				t.Errorf("problems: %v", s.Problems)
			}
			if diff := cmp.Diff(tt.tools, s.Tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			got := briefs(s)
			for i := range got {
				if i < len(tt.calls) && strings.HasPrefix(got[i].Result, tt.calls[i].Result) {
					got[i].Result = tt.calls[i].Result
				}
			}
			if diff := cmp.Diff(tt.calls, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadPydicomTrajectory(t *testing.T) {
	s := readFile(t, sweDir+"gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj")
	var tools []string
	for _, c := range s.Calls {
		tools = append(tools, c.Tool)
	}
	want := []string{"write", "edit", "bash", "find", "read", "edit", "edit", "edit", "edit", "bash", "bash", "submit"}
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	// The failed edits and the traceback are errors; the edits act on the
	// file opened last.
	for _, i := range []int{2, 5, 6, 7} {
		if !s.Calls[i].IsError {
			t.Errorf("call %d (%s) not marked as an error: %.80q", i, s.Calls[i].Tool, s.Calls[i].Result)
		}
	}
	if !strings.Contains(string(s.Calls[5].Args), `"path":"pydicom/pixel_data_handlers/numpy_handler.py"`) {
		t.Errorf("edit args = %s", s.Calls[5].Args)
	}
	if string(s.Calls[4].Args) != `{"offset":293,"path":"pydicom/pixel_data_handlers/numpy_handler.py"}` {
		t.Errorf("open with a line = %s", s.Calls[4].Args)
	}
}

func TestReadClaudeCode(t *testing.T) {
	s := readFile(t, "testdata/claude-code-session.jsonl")
	if s.Format != FormatClaudeCode || len(s.Problems) > 0 {
		t.Fatalf("format %s, problems %v", s.Format, s.Problems)
	}
	want := []brief{
		{1, "bash", `{"command":"cat src/cart.py"}`, false, false, "def total"},
		{2, "read", `{"path":"/home/user/shop/src/cart.py"}`, false, false, "     1\tdef total"},
		{3, "read", `{"path":"/home/user/shop/src/cart.py"}`, false, false, "     1\tdef total"},
		{4, "grep", `{"pattern":"round\\(","path":"src","output_mode":"content","-n":true}`, false, false, "src/money.py:12"},
		{4, "find", `{"pattern":"tests/**/*.py"}`, false, false, "/home/user/shop/tests/test_cart.py"},
		{5, "edit", `{"path":"/home/user/shop/src/cart.py","old_string":"return sum(i.price for i in items)","new_string":"return round(sum(i.price for i in items), 2)"}`, false, false, "The file"},
		{6, "read", `{"path":"/home/user/shop/src/cart.py"}`, false, false, "     1\tdef total"},
		{7, "bash", `{"command":"python -m pytest -q tests"}`, true, false, "Error: ====="},
		{8, "bash", `{"command":"python -m pytest -q tests"}`, true, false, "Error: ====="},
		{9, "bash", `{"command":"python -m pytest -q tests"}`, true, false, "Error: ====="},
		{10, "WebSearch2", `{"query":"python decimal rounding money"}`, true, true, "<tool_use_error>Error: No such tool available: WebSearch2"},
		{11, "edit", `{"path":"/home/user/shop/src/money.py","old_string":"return round(value, 2)","new_string":"return Decimal(value).quantize(Decimal('0.01'))"}`, false, false, "The file"},
		{12, "bash", `{"command":"python -m pytest -q tests"}`, false, false, "14 passed"},
	}
	got := briefs(s)
	for i := range got {
		if i < len(want) && strings.HasPrefix(got[i].Result, want[i].Result) {
			got[i].Result = want[i].Result
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("calls (-want +got):\n%s", diff)
	}
}

func TestReadClaudeStream(t *testing.T) {
	s := readFile(t, "testdata/claude-stream.jsonl")
	if s.Format != FormatClaudeStream || len(s.Problems) > 0 {
		t.Fatalf("format %s, problems %v", s.Format, s.Problems)
	}
	wantTools := []string{"Task", "bash", "find", "grep", "ls", "ExitPlanMode", "read", "edit", "write", "WebFetch", "TodoWrite", "WebSearch", "BashOutput", "KillShell"}
	if diff := cmp.Diff(wantTools, s.Tools); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	if len(s.Calls) != 16 {
		t.Fatalf("%d calls, want 16", len(s.Calls))
	}
	if c := s.Calls[0]; c.Tool != "bash" || string(c.Args) != `{"command":"make build > /tmp/build.log 2>&1 &","run_in_background":true}` {
		t.Fatalf("first call = %s %s", c.Tool, c.Args)
	}
	if c := s.Calls[15]; c.Tool != "ls" || c.Turn != 16 || !strings.HasPrefix(c.Result, "- /home/user/api/") {
		t.Fatalf("last call = %+v", c)
	}
}

func TestReadNeutral(t *testing.T) {
	s := readFile(t, "testdata/neutral.jsonl")
	if s.Format != FormatNeutral || len(s.Problems) > 0 || len(s.Calls) != 29 {
		t.Fatalf("format %s, %d calls, problems %v", s.Format, len(s.Calls), s.Problems)
	}
	if c := s.Calls[1]; c.Turn != 1 {
		t.Errorf("turn did not default to the previous line's: %d", c.Turn)
	}
	if c := s.Calls[17]; c.Result != `{"status": "ok", "duration_ms": 5, "started_at": "2026-01-01T00:00:00Z"}` {
		t.Errorf("non-string result = %q", c.Result)
	}
	if c := s.Calls[27]; !c.Unknown || !c.IsError {
		t.Errorf("unknown tool not recognised: %+v", c)
	}
}

func TestReadMalformedLines(t *testing.T) {
	s := readFile(t, "testdata/malformed.jsonl")
	var got []string
	for _, p := range s.Problems {
		got = append(got, p.Error())
	}
	want := []string{
		"testdata/malformed.jsonl:2: not a JSON object",
		`testdata/malformed.jsonl:4: a call needs a "tool" name`,
		`testdata/malformed.jsonl:5: "args" must be a JSON object`,
		"testdata/malformed.jsonl:6: not a JSON object",
		"testdata/malformed.jsonl:7: turn 0: turns start at 1",
		"testdata/malformed.jsonl:10: not valid JSON: unexpected EOF after offset 72",
		`testdata/malformed.jsonl:11: a call needs "args", the arguments object ({} for none)`,
		`testdata/malformed.jsonl:15: unknown member "command", "output" (a neutral line has turn, tool, args, result, is_error, unknown, prefix_tokens)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("problems (-want +got):\n%s", diff)
	}
	var lines []int
	for _, c := range s.Calls {
		lines = append(lines, c.Line)
	}
	if diff := cmp.Diff([]int{1, 3, 8, 12, 13, 14, 16, 17, 18}, lines); diff != "" {
		t.Fatalf("lines of the calls read (-want +got):\n%s", diff)
	}
	var le *LineError
	if !errors.As(s.Problems[0], &le) || le.Line != 2 {
		t.Fatalf("problem is not a *LineError: %#v", s.Problems[0])
	}
}

func TestReadRejects(t *testing.T) {
	tests := []struct{ name, input, want string }{
		{"empty", "", "empty input"},
		{"spaces", "  \n\n", "empty input"},
		{"text", "hello world\nmore text\n", "not a recognised recording"},
		{"unknown json lines", `{"a":1}` + "\n" + `{"b":2}` + "\n", "not a recognised recording"},
		{"json object without trajectory", `{"info": {}}`, "not a recognised recording"},
		{"array", `[1,2,3]`, "not a recognised recording"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.input), "in")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "in: ") {
				t.Fatalf("err = %v, want one naming the input and containing %q", err, tt.want)
			}
		})
	}
}

func TestReadLongLines(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	in := `{"tool":"read","args":{"path":"a"},"result":"` + big + `"}` + "\n" + `{"tool":"ls","args":{}}`
	s, err := Read(strings.NewReader(in), "in")
	if err != nil || len(s.Calls) != 2 || len(s.Calls[0].Result) != len(big) {
		t.Fatalf("err %v, %d calls", err, len(s.Calls))
	}
}
