package command

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/internal/proc"
	"github.com/reinhq/rein/tool"
)

// commands builds Runner from a hooks object, in a temporary project.
func commands(t testing.TB, hooksJSON string) (*Runner, *[]Report) {
	t.Helper()
	cfg := Config{}
	if _, err := cfg.AddFile("settings.json", json.RawMessage(hooksJSON)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports []Report
	c := &Runner{Config: cfg, ProjectDir: t.TempDir(), SessionID: "s1", TranscriptPath: "/tmp/t.jsonl",
		Report: func(r Report) { mu.Lock(); reports = append(reports, r); mu.Unlock() }}
	return c, &reports
}

func pre(cmds ...string) string {
	var hs []string
	for _, c := range cmds {
		b, _ := json.Marshal(c)
		hs = append(hs, `{"type":"command","command":`+string(b)+`,"timeout":5}`)
	}
	return `{"PreToolUse":[{"matcher":"Bash","hooks":[` + strings.Join(hs, ",") + `]}]}`
}

var bashCall = &tool.Call{ID: "t1", Name: "bash", Args: json.RawMessage(`{"command":"ls -la"}`)}

func TestPreToolUseFoldsDenyAskAllow(t *testing.T) {
	allow := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`
	ask := `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`
	deny := `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no ls"}}'`
	for _, tc := range []struct {
		hooks []string
		want  string
	}{
		{[]string{allow}, "allow"},
		{[]string{allow, ask}, "ask"},
		{[]string{ask, deny, allow}, "deny"},
		{[]string{`echo '{"decision":"approve"}'`}, "allow"},
		{[]string{`echo '{"decision":"block","reason":"old style"}'`}, "deny"},
		{[]string{"exit 0"}, ""},
	} {
		c, _ := commands(t, pre(tc.hooks...))
		v := c.PreToolUse(context.Background(), bashCall, "default")
		if v.Decision != tc.want {
			t.Errorf("%v: %q, want %q", tc.hooks, v.Decision, tc.want)
		}
	}
}

func TestPreToolUseStdinAndEnv(t *testing.T) {
	c, _ := commands(t, pre(`cat > "$CLAUDE_PROJECT_DIR/in.json"; echo "$REIN_PROJECT_DIR" > "$CLAUDE_PROJECT_DIR/env.txt"`))
	c.PreToolUse(context.Background(), bashCall, "acceptEdits")
	in := hookInput(t, c)
	want := map[string]any{"session_id": SessionUUID("s1"), "transcript_path": "/tmp/t.jsonl", "cwd": c.ProjectDir, "hook_event_name": "PreToolUse",
		"permission_mode": "acceptEdits", "tool_name": "Bash", "tool_use_id": "t1"}
	for k, v := range want {
		if in[k] != v {
			t.Errorf("stdin %s = %v, want %v", k, in[k], v)
		}
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "ls -la" {
		t.Errorf("tool_input %v", in["tool_input"])
	}
	env, _ := os.ReadFile(filepath.Join(c.ProjectDir, "env.txt"))
	if strings.TrimSpace(string(env)) != c.ProjectDir {
		t.Errorf("REIN_PROJECT_DIR = %q", env)
	}
}

func TestExitCodes(t *testing.T) {
	c, reports := commands(t, pre("echo 'use rg instead' >&2; exit 2"))
	if v := c.PreToolUse(context.Background(), bashCall, ""); v.Decision != "deny" || v.Reason != "use rg instead" {
		t.Errorf("exit 2: %+v", v)
	}
	c, _ = commands(t, pre("exit 2"))
	if v := c.PreToolUse(context.Background(), bashCall, ""); v.Decision != "deny" || !strings.Contains(v.Reason, "without giving a reason") {
		t.Errorf("exit 2, empty stderr: %+v", v)
	}
	c, reports = commands(t, pre("echo oops >&2; exit 1"))
	if v := c.PreToolUse(context.Background(), bashCall, ""); v.Decision != "" {
		t.Errorf("exit 1 must not block: %+v", v)
	}
	if len(*reports) != 1 || !(*reports)[0].Error || !strings.Contains((*reports)[0].Message, "oops") {
		t.Errorf("reports %+v", *reports)
	}
}

func TestBadHooksAreReportedNeverHang(t *testing.T) {
	for _, tc := range []struct {
		name, cmd, want string
	}{
		{"missing command", "/nonexistent/hook-script --x", "127"},
		{"invalid JSON", `echo '{"decision": '`, "not valid JSON"},
		{"10 MB of output", `head -c 10485760 /dev/zero | tr '\0' 'x'`, "output limit"},
		{"ignores SIGTERM", `trap '' TERM; sleep 30`, "did not finish"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hooks := pre(tc.cmd)
			if tc.name == "ignores SIGTERM" {
				hooks = strings.Replace(hooks, `"timeout":5`, `"timeout":0.3`, 1)
			}
			c, reports := commands(t, hooks)
			c.Exec = &proc.Exec{Grace: 200 * time.Millisecond}
			done := make(chan ToolVerdict)
			go func() { done <- c.PreToolUse(context.Background(), bashCall, "") }()
			select {
			case v := <-done:
				if v.Decision != "" {
					t.Errorf("a broken hook decided %q", v.Decision)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the hook run did not return")
			}
			if len(*reports) != 1 || !strings.Contains((*reports)[0].Message, tc.want) {
				t.Errorf("reports %+v, want one saying %q", *reports, tc.want)
			}
		})
	}
}

func TestUpdatedInputTranslated(t *testing.T) {
	cfg := `{"PreToolUse":[{"matcher":"Write|Edit","hooks":[{"type":"command","command":"echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\",\"updatedInput\":{\"file_path\":\"/w/b.txt\",\"content\":\"patched\"}}}'"}]}]}`
	c, _ := commands(t, cfg)
	call := &tool.Call{ID: "w", Name: "write", Args: json.RawMessage(`{"path":"a.txt","content":"x"}`)}
	v := c.PreToolUse(context.Background(), call, "")
	var args map[string]string
	if err := json.Unmarshal(v.Args, &args); err != nil || args["path"] != "/w/b.txt" || args["content"] != "patched" {
		t.Errorf("args %s %v", v.Args, err)
	}
}

func TestMatchers(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		names   []string
		want    bool
	}{
		{"", []string{"anything"}, true},
		{"*", []string{"x"}, true},
		{"Bash", []string{"Bash", "bash"}, true},
		{"Write|Edit", []string{"Write", "write"}, true},
		{"Edit", []string{"MultiEdit", "edit"}, false},
		{"mcp__memory__.*", []string{"mcp__memory__save"}, true},
		{"Notebook.*", []string{"Read", "read"}, false},
	} {
		g := MatcherGroup{Matcher: tc.matcher}
		if err := g.compile(); err != nil {
			t.Fatal(err)
		}
		if got := g.matches(tc.names...); got != tc.want {
			t.Errorf("%q on %v: %v", tc.matcher, tc.names, got)
		}
	}
	cfg := Config{}
	if _, err := cfg.AddFile("/p/.claude/settings.json", json.RawMessage(`{"PreToolUse":[{"matcher":"(","hooks":[{"type":"command","command":"x"}]}]}`)); err == nil || !strings.Contains(err.Error(), "/p/.claude/settings.json") {
		t.Errorf("bad matcher: %v", err)
	}
	warn, err := cfg.AddFile("f", json.RawMessage(`{"PermissionRequest":[{"hooks":[{"type":"command","command":"x"}]}],"Stop":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}`))
	if err != nil || len(warn) != 2 {
		t.Errorf("warnings %v, err %v", warn, err)
	}
}

func TestStopHookBlocksWithCap(t *testing.T) {
	c, reports := commands(t, `{"Stop":[{"hooks":[{"type":"command","command":"cat >> \"$CLAUDE_PROJECT_DIR/stops\"; echo >> \"$CLAUDE_PROJECT_DIR/stops\"; echo 'tests still fail' >&2; exit 2"}]}]}`)
	c.MaxStopBlocks = 2
	h := hook.New()
	defer c.Install(h)()
	ctx := context.Background()
	if _, err := h.RunBeforeAgentStart(ctx, &hook.BeforeAgentStartEvent{}); err != nil {
		t.Fatal(err)
	}
	var blocks []bool
	for range 3 {
		r, err := h.RunAgentStop(ctx, &hook.AgentStopEvent{Reason: "completed"})
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, r.Block)
		if r.Block && r.Message != "tests still fail" {
			t.Errorf("message %q", r.Message)
		}
	}
	if blocks[0] != true || blocks[1] != true || blocks[2] != false {
		t.Errorf("blocks %v, want true true false (cap 2)", blocks)
	}
	data, _ := os.ReadFile(filepath.Join(c.ProjectDir, "stops"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"stop_hook_active":false`) || !strings.Contains(lines[1], `"stop_hook_active":true`) {
		t.Errorf("stdin of the Stop hooks:\n%s", data)
	}
	if len(*reports) != 1 {
		t.Errorf("the cap should be reported once: %+v", *reports)
	}
}

func TestPostToolUseFeedback(t *testing.T) {
	c, _ := commands(t, `{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo 'lint: 2 problems' >&2; exit 2"}]}]}`)
	h := c.ToolMiddleware()(func(context.Context, *tool.Call) tool.Result { return tool.Text("ran") })
	res := h(context.Background(), bashCall)
	if txt := res.Text(); !strings.Contains(txt, "ran") || !strings.Contains(txt, "lint: 2 problems") {
		t.Errorf("result %q", txt)
	}
}

func TestUserPromptSubmit(t *testing.T) {
	c, _ := commands(t, `{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"grep -q secret && { echo 'no secrets' >&2; exit 2; } || echo 'branch: main'"}]}]}`)
	if v := c.UserPromptSubmit(context.Background(), "my secret is x"); v.Decision != "block" || v.Reason != "no secrets" {
		t.Errorf("block: %+v", v)
	}
	if v := c.UserPromptSubmit(context.Background(), "hello"); v.Decision != "" || v.Context != "branch: main" {
		t.Errorf("context: %+v", v)
	}
}

// BenchmarkPreToolUseHook measures a PreToolUse hook that exits at once.
func BenchmarkPreToolUseHook(b *testing.B) {
	c, _ := commands(b, pre("exit 0"))
	for b.Loop() {
		c.PreToolUse(context.Background(), bashCall, "")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/call")
}

// TestSetSession checks that hooks are told the session SetSession names
// from then on, as after a fork.
func TestSetSession(t *testing.T) {
	c, _ := commands(t, pre(`cat > "$CLAUDE_PROJECT_DIR/in.json"`))
	c.SetSession("s2", "/tmp/fork.jsonl")
	c.PreToolUse(context.Background(), bashCall, "default")
	in := hookInput(t, c)
	if in["session_id"] != SessionUUID("s2") || in["transcript_path"] != "/tmp/fork.jsonl" {
		t.Fatalf("stdin session_id %v, transcript_path %v", in["session_id"], in["transcript_path"])
	}
}

// hookInput reads what a hook wrote of its stdin to in.json in the
// project directory.
func hookInput(t *testing.T, c *Runner) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.ProjectDir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	return in
}
