package trajectory

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// miniCall is a call of a mini-swe-agent trajectory as the tests compare it.
type miniCall struct {
	Turn    int
	Command string
	IsError bool
	Prefix  int
	Result  string // a prefix of the result
}

func miniCalls(t *testing.T, s *Session) []miniCall {
	t.Helper()
	var out []miniCall
	for _, c := range s.Calls {
		if c.Tool != "bash" {
			t.Errorf("call %d: tool %q, want bash", len(out), c.Tool)
		}
		var args struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(c.Args, &args); err != nil {
			t.Fatalf("call %d: args %s: %v", len(out), c.Args, err)
		}
		out = append(out, miniCall{c.Turn, args.Command, c.IsError, c.Prefix, c.Result})
	}
	return out
}

func checkMiniCalls(t *testing.T, s *Session, want []miniCall) {
	t.Helper()
	checkMiniCallList(t, s, miniCalls(t, s), want)
}

// checkMiniCallList compares calls whose results need only start with
// the wanted ones.
func checkMiniCallList(t *testing.T, s *Session, got, want []miniCall) {
	t.Helper()
	if s.Format != FormatMiniSWE {
		t.Errorf("format = %s, want %s", s.Format, FormatMiniSWE)
	}
	for i := range got {
		if i < len(want) && strings.HasPrefix(got[i].Result, want[i].Result) {
			got[i].Result = want[i].Result
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func readString(t *testing.T, text string) (*Session, error) {
	t.Helper()
	return Read(strings.NewReader(text), "test.traj.json")
}

// TestReadMiniSWEFixture reads a trimmed real 1.x trajectory (```bash
// blocks, <returncode> observations): one call per reply with a single
// block, none for the reply mini-swe-agent rejected for its four blocks,
// a non-zero return code as an error, the long-output warning as an
// ordinary result, and the submission as a bash call whose result is the
// diff. Each prefix is the size of the messages before the reply.
func TestReadMiniSWEFixture(t *testing.T) {
	s := readFile(t, "testdata/mini-swe-agent.traj.json")
	modify := "cat <<'EOF' > modify_hnf.py\nimport os\n"
	want := []miniCall{
		{1, "ls -la", false, 160, "<returncode>0</returncode>\n<output>\ntotal 384"},
		{2, "python reproduce_issue.py", true, 262, "<returncode>1</returncode>\n<output>\nTraceback"},
		{3, "cat sympy/polys/matrices/normalforms.py", false, 334, "<returncode>0</returncode>\n<warning>\nThe output of your last command was too long."},
		{5, modify, false, 1130, "<returncode>0</returncode>\n<output>\n</output>"},
		{6, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached", false, 1480, "diff --git a/sympy/polys/matrices/normalforms.py"},
	}
	got := miniCalls(t, s)
	// The heredoc is long: its first lines and its end will do.
	if len(got) == len(want) && strings.HasPrefix(got[3].Command, modify) && strings.HasSuffix(got[3].Command, "\nEOF") {
		got[3].Command = modify
	}
	checkMiniCallList(t, s, got, want)
	if !strings.Contains(s.Calls[2].Result, "<elided_chars>") || !strings.Contains(s.Calls[2].Result, "</output_tail>") {
		t.Errorf("the long output lost its head/elided/tail parts: %.200q", s.Calls[2].Result)
	}
}

// TestReadMiniSWEV2Text reads the 2.x text-based shape (the bare message
// list of mini-swe-agent's own test data, ```mswea_bash_command blocks):
// a ```bash example in the reply's prose is not the command.
func TestReadMiniSWEV2Text(t *testing.T) {
	traj := `[
  {"role": "system", "content": "Reply with one mswea_bash_command block."},
  {"role": "user", "content": "Please solve this issue: Blah"},
  {"role": "assistant", "content": "Like this:\n` + "```bash\\nnot this\\n```" + `\nNow:\n\n` + "```mswea_bash_command\\necho 'hello world'\\n```" + `"},
  {"role": "user", "content": "<returncode>0</returncode>\n<output>\nhello world\n</output>"},
  {"role": "assistant", "content": "Done.\n\n` + "```mswea_bash_command\\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\n```" + `"},
  {"role": "user", "content": ""}
]`
	s, err := readString(t, traj)
	if err != nil {
		t.Fatal(err)
	}
	checkMiniCalls(t, s, []miniCall{
		{1, "echo 'hello world'", false, Tokens(40 + 29), "<returncode>0</returncode>\n<output>\nhello world"},
		{2, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", false, Tokens(40 + 29 + 82 + 57), ""},
	})
}

// TestReadMiniSWEV2ToolCalls reads the 2.x tool-calling shape: the
// commands are the assistant's "bash" tool calls, each answered by the
// "tool" message with its id (content as a list of parts, exit status in
// extra); the arguments are part of what the next request re-sends.
func TestReadMiniSWEV2ToolCalls(t *testing.T) {
	traj := `{
  "info": {"mini_version": "2.0.0", "exit_status": "Submitted"},
  "trajectory_format": "mini-swe-agent-1.1",
  "messages": [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "task"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}},
      {"id": "call_2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"cat missing.txt\"}"}}
    ], "extra": {"actions": [{"command": "ls", "tool_call_id": "call_1"}, {"command": "cat missing.txt", "tool_call_id": "call_2"}]}},
    {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "<returncode>0</returncode>\n<output>\na.txt\n</output>"}], "extra": {"returncode": 0}},
    {"role": "tool", "tool_call_id": "call_2", "content": "cat: missing.txt: No such file or directory", "extra": {"returncode": 1}},
    {"role": "assistant", "content": "", "tool_calls": [
      {"id": "call_3", "type": "function", "function": {"name": "bash", "arguments": {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}}}
    ]},
    {"role": "tool", "tool_call_id": "call_3", "content": "", "extra": {"returncode": 0}},
    {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}}
  ]
}`
	s, err := readString(t, traj)
	if err != nil {
		t.Fatal(err)
	}
	second := 3 + 4 + 2*len("bash") + len(`{"command": "ls"}`) + len(`{"command": "cat missing.txt"}`) + len("<returncode>0</returncode>\n<output>\na.txt\n</output>") + len("cat: missing.txt: No such file or directory")
	checkMiniCalls(t, s, []miniCall{
		{1, "ls", false, Tokens(7), "<returncode>0</returncode>\n<output>\na.txt"},
		{1, "cat missing.txt", true, Tokens(7), "cat: missing.txt"},
		{2, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", false, Tokens(second), ""},
	})
	if s.Calls[0].ID != "call_1" || s.Calls[2].ID != "call_3" {
		t.Errorf("ids %q, %q", s.Calls[0].ID, s.Calls[2].ID)
	}
}

// TestReadMiniSWEResponsesAPI reads the shape of 2.x's Responses API
// models: each reply is the response object, its function calls listed
// in extra.actions, each answered by a function_call_output item.
func TestReadMiniSWEResponsesAPI(t *testing.T) {
	traj := `{"trajectory_format": "mini-swe-agent-1.1", "messages": [
  {"role": "system", "content": "sys"},
  {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "task"}]},
  {"id": "resp_1", "object": "response", "output": [
    {"type": "reasoning", "summary": []},
    {"type": "function_call", "call_id": "fc_1", "name": "bash", "arguments": "{\"command\": \"false\"}"}
  ], "extra": {"actions": [{"command": "false", "tool_call_id": "fc_1"}]}},
  {"type": "function_call_output", "call_id": "fc_1", "output": "<returncode>1</returncode>\n<output>\n</output>", "extra": {"returncode": 1}}
]}`
	s, err := readString(t, traj)
	if err != nil {
		t.Fatal(err)
	}
	checkMiniCalls(t, s, []miniCall{{1, "false", true, Tokens(3 + 4), "<returncode>1</returncode>"}})
}

// TestReadMiniSWEFormatErrors covers replies that run nothing: no block,
// two blocks, and one block that mini-swe-agent rejected anyway (its next
// message is a format error). A timed-out command is an error.
func TestReadMiniSWEFormatErrors(t *testing.T) {
	block := func(cmd string) string { return "```bash\\n" + cmd + "\\n```" }
	traj := `{"trajectory_format": "mini-swe-agent-1", "messages": [
  {"role": "system", "content": "s"},
  {"role": "user", "content": "t"},
  {"role": "assistant", "content": "I think so."},
  {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."},
  {"role": "assistant", "content": "` + block("ls") + ` and ` + block("pwd") + `"},
  {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."},
  {"role": "assistant", "content": "` + block("ls   ") + `"},
  {"role": "user", "content": "format error", "extra": {"interrupt_type": "FormatError"}},
  {"role": "assistant", "content": "` + block("sleep 999") + `"},
  {"role": "user", "content": "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>"},
  {"role": "assistant", "content": "` + block("echo MINI_SWE_AGENT_FINAL_OUTPUT") + `"}
]}`
	s, err := readString(t, traj)
	if err != nil {
		t.Fatal(err)
	}
	got := miniCalls(t, s)
	if len(got) != 2 || got[0].Command != "sleep 999" || got[0].Turn != 4 || !got[0].IsError ||
		got[1].Command != "echo MINI_SWE_AGENT_FINAL_OUTPUT" || got[1].Turn != 5 || got[1].Result != "" || got[1].IsError {
		t.Errorf("calls %+v", got)
	}
}

// TestReadMiniSWEDetection checks that a compact one-line trajectory is
// read as mini-swe-agent's and that a pretty-printed one without any
// marker is recognised by its replies' bash blocks.
func TestReadMiniSWEDetection(t *testing.T) {
	for name, traj := range map[string]string{
		"one line":  `{"info":{"mini_version":"1.15.0"},"messages":[{"role":"user","content":"t"},{"role":"assistant","content":"` + "```bash\\nls\\n```" + `"},{"role":"user","content":"<returncode>2</returncode>\n<output>\nls: x\n</output>"}]}` + "\n",
		"no marker": "{\n \"messages\": [\n  {\"role\": \"assistant\", \"content\": \"```bash\\nls\\n```\"},\n  {\"role\": \"user\", \"content\": \"<returncode>2</returncode>\"}\n ]\n}\n",
	} {
		s, err := readString(t, traj)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Format != FormatMiniSWE || len(s.Calls) != 1 || !s.Calls[0].IsError {
			t.Errorf("%s: format %s, calls %+v", name, s.Format, s.Calls)
		}
	}
}

// TestReadMiniSWERefusals covers JSON with "messages" from which no call
// can be read: with a mini-swe-agent marker it is refused, without one it
// is not recognised; either way the error says why.
func TestReadMiniSWERefusals(t *testing.T) {
	tests := []struct {
		name, traj   string
		unrecognised bool
		says         string
	}{
		{"marked, no command", `{"trajectory_format": "mini-swe-agent-1", "messages": [{"role": "user", "content": "t"}, {"role": "assistant", "content": "thinking, no block"}]}`,
			false, "none of the 1 replies has a command"},
		{"marked, no assistant", "{\n\"info\": {\"mini_version\": \"1.7.0\"},\n\"messages\": []\n}", false, "none of the 0 replies"},
		{"chat log", "{\n\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": \"hello\"}]\n}", true, "no mini-swe-agent trajectory_format"},
	}
	for _, tt := range tests {
		_, err := readString(t, tt.traj)
		if err == nil {
			t.Errorf("%s: read without error", tt.name)
			continue
		}
		if errors.Is(err, ErrUnrecognised) != tt.unrecognised || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: error %q (unrecognised %v), want one saying %q", tt.name, err, errors.Is(err, ErrUnrecognised), tt.says)
		}
	}
}

func TestFenced(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"THOUGHT: x\n\n```bash\nls -la\n```\n", []string{"ls -la"}},
		{"```bash  \n\n  cd a && make\n```", []string{"  cd a && make"}},
		{"```bash\nls\n```\nand\n```bash\npwd\n```", []string{"ls", "pwd"}},
		{"```bash ls\n```", nil},
		{"```bash2\nls\n```", nil},
		{"```bash\nno end", nil},
		{"```bash\n```", nil},
		{"```bash\ncat <<'EOF'\na\nEOF\n```", []string{"cat <<'EOF'\na\nEOF"}},
	} {
		if got := fenced(tt.text, "bash"); !slices.Equal(got, tt.want) {
			t.Errorf("fenced(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestMiniCut(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"<returncode>0</returncode>\n<output>short</output>", false},
		{"<output_head>\na\n</output_head>\n<elided_chars>\n31129 characters elided\n</elided_chars>\n<output_tail>\nb\n</output_tail>", true},
		{"<output_head>\na\n</output_head>\n<elided_chars>\n120 characters elided\n</elided_chars>", false},
		{"<elided_chars>\nmany characters elided", false},
	} {
		if got := miniCut(tt.text); got != tt.want {
			t.Errorf("miniCut(%.40q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
