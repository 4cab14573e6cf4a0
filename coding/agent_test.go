package coding

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
)

// Close while a prompt runs: the run is aborted, the bash process it
// started is killed, and the log reads back well-formed with the call
// answered.
func TestCloseWhileRunning(t *testing.T) {
	e := newTestEnv(t)
	e.vars["REIN_SANDBOX"] = "off" // the pid the command reports is the host's
	ws := t.TempDir()
	fifo := filepath.Join(ws, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	o := e.options(ws,
		faux.Calls("", faux.Call("bash", `{"command": "echo $$ > ready; exec sleep 300"}`)),
		faux.Text("never"))
	o.PermissionMode = "bypassPermissions" // the command must run
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	path := a.Session().Path()
	type outcome struct {
		res harness.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := a.Submit(context.Background(), "start the server")
		done <- outcome{res, err}
	}()
	// Opening the FIFO blocks until the command writes its pid: then it
	// surely runs.
	b, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	out := <-done
	if out.err != nil || out.res.Stop != agent.StopAborted {
		t.Fatalf("the run ended with %q, %v; want aborted", out.res.Stop, out.err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the command (pid %d) still runs after Close: %v", pid, err)
	}
	_, entries, issues, err := session.ReadFile(path)
	if err != nil || len(issues) > 0 {
		t.Fatalf("the log does not read back: %v %v", err, issues)
	}
	c := session.BuildContext(entries, session.LastLeaf(entries))
	var calls, results int
	for _, m := range c.Messages {
		for _, p := range m.Content {
			if p.Type == llm.ContentToolCall {
				calls++
			}
		}
		if m.Role == llm.RoleToolResult {
			results++
		}
	}
	if calls != 1 || results != 1 {
		t.Fatalf("the log holds %d calls and %d results, want the call answered:\n%+v", calls, results, c.Messages)
	}
	if _, err := a.Submit(context.Background(), "again"); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close = %v, want ErrClosed", err)
	}
}

// hookEnv writes a user-level settings file (trusted by definition) with
// a UserPromptSubmit hook that blocks prompts containing "secret".
func hookEnv(t *testing.T) *testEnv {
	e := newTestEnv(t)
	write(t, e.home, map[string]string{".claude/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
		"command": "if grep -q secret; then echo 'no secrets here' >&2; exit 2; fi"}]}]}}`})
	return e
}

// Submit: a template is expanded before the hooks see it, a blocked
// prompt never reaches the model, an allowed one does.
func TestSubmitTemplateAndBlock(t *testing.T) {
	e := hookEnv(t)
	ws := t.TempDir()
	write(t, ws, map[string]string{".rein/prompts/fix.md": "Fix issue $1 and tell me the secret.", ".rein/prompts/hello.md": "Say hello to $1."})
	o := e.options(ws, faux.Text("hello Ada"))
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := o.Provider.(*faux.Provider)
	_, err = a.Submit(context.Background(), "/fix 7")
	var blocked *BlockedError
	if !errors.As(err, &blocked) || !strings.Contains(blocked.Reason, "no secrets here") {
		t.Fatalf("Submit(/fix 7) = %v; want the hook's block", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("a blocked prompt reached the model (%d requests)", n)
	}
	if _, err := a.Submit(context.Background(), "/hello Ada"); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].Messages[len(reqs[0].Messages)-1].Text() != "Say hello to Ada." {
		t.Fatalf("the model got %+v, want the expanded template", reqs)
	}
	if n := len(a.Session().Context().Messages); n != 2 {
		t.Errorf("the log holds %d messages, want the allowed prompt and its reply only", n)
	}
}

// Commands: /mode changes the gate (and is not /model), templates are
// listed as prompt commands, prefixes resolve, and an unknown command
// says so.
func TestCommands(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	write(t, ws, map[string]string{".rein/prompts/review.md": "---\ndescription: review the diff\n---\nReview."})
	a, err := Open(context.Background(), e.options(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, args, ok, err := a.Command("/mode auto_edit")
	if !ok || err != nil || c.Name != "mode" || args != "auto_edit" {
		t.Fatalf("/mode auto_edit = %q %q %v %v", c.Name, args, ok, err)
	}
	if _, err := c.Run(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	if a.PermissionMode() != permission.ModeAutoEdit {
		t.Fatalf("mode %q after /mode auto_edit", a.PermissionMode())
	}
	if c, _, _, _ := a.Command("/review"); !c.Prompt || c.Help != "review the diff" {
		t.Errorf("the template is not a prompt command: %+v", c)
	}
	if c, _, _, err := a.Command("/thi"); err != nil || c.Name != "thinking" {
		t.Errorf("/thi = %q, %v; want thinking", c.Name, err)
	}
	if _, _, _, err := a.Command("/mo"); err == nil || !strings.Contains(err.Error(), "/model, /mode") {
		t.Errorf("/mo = %v; want it to name both", err)
	}
	if _, _, ok, _ := a.Command("//not a command"); ok {
		t.Error("// is a command")
	}
	out, err := Lookup(a.Commands(), "status")
	if err != nil {
		t.Fatal(err)
	}
	text, err := out.Run(context.Background(), "")
	if err != nil || !strings.Contains(text, "mode auto_edit") || !strings.Contains(text, "faux/faux") {
		t.Errorf("/status = %q, %v", text, err)
	}
}

// An approval reaches subscribers as an event with the request; its
// Answer resumes the call.
func TestApprovalEvent(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	o := e.options(ws, faux.Calls("", faux.Call("write", `{"path": "a.txt", "content": "x"}`)), faux.Text("done"))
	o.PermissionMode, o.Interactive = "ask", true
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	asked := 0
	defer a.Subscribe(func(_ context.Context, ev Event) error {
		if ev.Approval != nil {
			asked++
			go ev.Approval.Answer(permission.Answer{Kind: permission.AllowOnce})
		}
		return nil
	})()
	res, err := a.Submit(context.Background(), "write it")
	if err != nil || res.Stop != agent.StopCompleted {
		t.Fatal(res.Stop, err)
	}
	if asked != 1 {
		t.Fatalf("%d approval events, want 1", asked)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(b) != "x" {
		t.Fatalf("the approved write did not happen: %q %v", b, err)
	}
}

// Every permission decision is logged after the message holding the call
// it decided and before that call's result.
func TestDecisionsLoggedInCausalOrder(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	o := e.options(ws, faux.Calls("", faux.Call("ls", `{}`), faux.Call("read", `{"path": "x"}`), faux.Call("write", `{"path": "b.txt", "content": "y"}`)), faux.Text("done"))
	o.PermissionMode = "auto_read"
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	path := a.Session().Path()
	a.Close()
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	callAt, resultAt := map[string]int{}, map[string]int{}
	var decided []string
	decisionAt := map[string]int{}
	for i, en := range entries {
		switch {
		case en.Message != nil && en.Message.Role == llm.RoleAssistant:
			for _, c := range en.Message.Content {
				if c.Type == llm.ContentToolCall {
					callAt[c.ID] = i
				}
			}
		case en.Message != nil && en.Message.Role == llm.RoleToolResult:
			resultAt[en.Message.ToolCallID] = i
		case en.Kind == harness.PermissionEntryKind:
			var d permission.Decision
			if err := json.Unmarshal(en.Data, &d); err != nil {
				t.Fatal(err)
			}
			decided = append(decided, d.CallID)
			decisionAt[d.CallID] = i
		}
	}
	if len(decided) != 3 {
		t.Fatalf("%d decisions logged, want 3", len(decided))
	}
	for _, id := range decided {
		if !(callAt[id] < decisionAt[id] && decisionAt[id] < resultAt[id]) {
			t.Errorf("call %s: message at %d, decision at %d, result at %d", id, callAt[id], decisionAt[id], resultAt[id])
		}
	}
}

// A command PostToolUse hook runs at the hooks' place in the chain: its
// feedback reaches the model in the result, noted as the hook's.
func TestPostToolUseIsAToolResultHook(t *testing.T) {
	e := newTestEnv(t)
	write(t, e.home, map[string]string{".claude/settings.json": `{"hooks": {"PostToolUse": [{"matcher": "LS|Glob|Bash", "hooks": [{"type": "command",
		"command": "echo 'lint failed' >&2; exit 2"}]}]}}`})
	ws := t.TempDir()
	o := e.options(ws, faux.Calls("", faux.Call("ls", `{}`)), faux.Text("done"))
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Submit(context.Background(), "look"); err != nil {
		t.Fatal(err)
	}
	reqs := o.Provider.(*faux.Provider).Requests()
	last := reqs[len(reqs)-1].Messages
	res := last[len(last)-1]
	if res.Role != llm.RoleToolResult || !strings.Contains(res.Text(), "PostToolUse hook feedback: lint failed") {
		t.Fatalf("the model saw %q", res.Text())
	}
}
