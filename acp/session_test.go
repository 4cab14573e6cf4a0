package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/work"
)

func TestCancelAbortsTheRunningToolAndAnswersCancelled(t *testing.T) {
	e := newEnv(t)
	p := faux.New(faux.Calls("", call("c1", "bash", `{"command":"sleep 60"}`)), faux.Text("never"))
	o := e.options(p, "auto_all")
	cn := connect(t, o, newClient())
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	got := make(chan result, 1)
	go func() {
		r, err := cn.prompt(t, ns.SessionId, "wait")
		got <- result{r, err}
	}()
	cn.c.waitFor(t, isToolCall("c1"))
	if err := cn.Cancel(context.Background(), sdk.CancelNotification{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	r := <-got
	t.Logf("cancel took %v", time.Since(t0))
	if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt after cancel: %v %s", r.err, show(r.resp))
	}
	idle(t, o)
	// The session takes the next prompt: nothing holds it.
	p.Push(faux.Text("again"))
	r2, err := cn.prompt(t, ns.SessionId, "go on")
	if err != nil || r2.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("next prompt: %v %s", err, show(r2))
	}
}

func TestCancelAnswersAPendingPermissionRequest(t *testing.T) {
	e := newEnv(t)
	p := faux.New(faux.Calls("", call("c1", "bash", `{"command":"touch ran.txt"}`)), faux.Text("never"))
	c := newClient()
	asked := make(chan struct{})
	c.answer = func(ctx context.Context, _ sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		close(asked)
		<-ctx.Done() // the agent withdraws the request
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	cn := connect(t, e.options(p, "ask"), c)
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	got := make(chan sdk.PromptResponse, 1)
	go func() {
		r, _ := cn.prompt(t, ns.SessionId, "touch")
		got <- r
	}()
	<-asked
	if err := cn.Cancel(context.Background(), sdk.CancelNotification{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q", r.StopReason)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "ran.txt")); err == nil {
		t.Error("the command ran after the cancel")
	}
}

func TestLoadReplaysTheActiveBranch(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", "one\n")
	p := faux.New(
		faux.Calls("Editing.", call("c1", "edit", `{"path":"a.txt","edits":[{"old_text":"one","new_text":"two"}]}`)),
		faux.Text("Done editing."),
		faux.Text("Second answer."),
	)
	cn := connect(t, e.options(p, "auto_all"), newClient())
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	for _, q := range []string{"edit a.txt", "and now?"} {
		if _, err := cn.prompt(t, ns.SessionId, q); err != nil {
			t.Fatal(err)
		}
	}
	cn.stop()

	// A fresh connection, as a new editor process would open.
	c2 := newClient()
	cn2 := connect(t, e.options(faux.New(faux.Text("after load")), "auto_all"), c2)
	ctx := context.Background()
	if _, err := cn2.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	list, err := cn2.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: sdk.Ptr(e.dir)})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != ns.SessionId || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "edit a.txt" {
		t.Fatalf("list: %v %s", err, show(list))
	}
	if _, err := cn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: e.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	// Every replayed update arrived before the answer (the SDK delivers
	// notifications received before a response first).
	var seq []string
	for _, n := range c2.all() {
		u := n.Update
		switch {
		case u.UserMessageChunk != nil:
			seq = append(seq, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			seq = append(seq, "agent:"+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			seq = append(seq, "call:"+string(u.ToolCall.Kind)+":"+u.ToolCall.Title)
		case u.ToolCallUpdate != nil:
			s := "result:" + string(*u.ToolCallUpdate.Status)
			for _, c := range u.ToolCallUpdate.Content {
				if c.Diff != nil {
					s += ":diff:" + *c.Diff.OldText + ">" + c.Diff.NewText
				}
			}
			seq = append(seq, s)
		}
	}
	want := "user:edit a.txt|agent:Editing.|call:edit:Edit a.txt|result:completed:diff:one>two|agent:Done editing.|user:and now?|agent:Second answer."
	if got := strings.Join(seq, "|"); got != want {
		t.Errorf("replay:\n got %s\nwant %s", got, want)
	}
	r, err := cn2.prompt(t, ns.SessionId, "more")
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after load: %v %s", err, show(r))
	}
}

func TestClientFilesSeeUnsavedBuffers(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", "on disk\n")
	abs := filepath.Join(e.dir, "a.txt")
	p := faux.New(
		faux.Calls("", call("r", "read", `{"path":"a.txt"}`)),
		faux.Calls("", call("e", "edit", `{"path":"a.txt","edits":[{"old_text":"unsaved","new_text":"edited"}]}`)),
		faux.Calls("", call("o", "read", `{"path":"../outside.txt"}`)),
		faux.Text("ok"),
	)
	c := newClient()
	c.buffers[abs] = "unsaved buffer\n"
	cn := connect(t, e.options(p, "auto_all"), c)
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true})
	if _, err := cn.prompt(t, ns.SessionId, "go"); err != nil {
		t.Fatal(err)
	}
	rd := cn.c.waitFor(t, isToolDone("r")).ToolCallUpdate
	if !strings.Contains(rd.Content[0].Content.Content.Text.Text, "unsaved buffer") {
		t.Errorf("read did not see the buffer: %s", show(rd))
	}
	c.mu.Lock()
	w := c.writes[abs]
	c.mu.Unlock()
	if w != "edited buffer\n" {
		t.Errorf("the editor got %q", w)
	}
	if b, _ := os.ReadFile(abs); string(b) != "on disk\n" {
		t.Errorf("the disk changed: %q", b)
	}
	ed := cn.c.waitFor(t, isToolDone("e")).ToolCallUpdate
	if len(ed.Content) != 1 || ed.Content[0].Diff == nil || ed.Content[0].Diff.Path != abs || ed.Content[0].Diff.NewText != "edited" {
		t.Errorf("edit content: %s", show(ed))
	}
	// Paths are still checked by rein before the editor is asked.
	if st := *cn.c.waitFor(t, isToolDone("o")).ToolCallUpdate.Status; st != sdk.ToolCallStatusFailed {
		t.Errorf("a read outside the workspace: %s", st)
	}
}

func TestModesConfigOptionsAndCommands(t *testing.T) {
	e := newEnv(t)
	p := faux.New()
	cn := connect(t, e.options(p, "ask"), newClient())
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	ctx := context.Background()
	if _, err := cn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "yolo"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	res, err := cn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: ns.SessionId, ConfigId: "thinking", Value: "high"}})
	if err != nil {
		t.Fatal(err)
	}
	cur := map[string]string{}
	for _, o := range res.ConfigOptions {
		cur[string(o.Select.Id)] = string(o.Select.CurrentValue)
	}
	if cur["thinking"] != "high" || cur["mode"] != "plan" || cur["model"] != "faux/faux" {
		t.Errorf("config options %v", cur)
	}
	if _, err := cn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: ns.SessionId, ConfigId: "thinking", Value: "enormous"}}); err == nil {
		t.Error("an unknown thinking level was accepted")
	}
	// A slash command runs without the model (whose script is empty).
	r, err := cn.prompt(t, ns.SessionId, "/status")
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/status: %v %s", err, show(r))
	}
	if out := text(cn.c.all(), false); !strings.Contains(out, "faux") || !strings.Contains(out, "plan") {
		t.Errorf("/status said %q", out)
	}
}

func TestManySessionsOnOneConnection(t *testing.T) {
	e := newEnv(t)
	dir2 := t.TempDir()
	p := faux.New(faux.Text("one"), faux.Text("two"))
	cn := connect(t, e.options(p, "auto_all"), newClient())
	a := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	b, err := cn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: dir2, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if a.SessionId == b.SessionId {
		t.Fatal("two sessions share an id")
	}
	for _, id := range []sdk.SessionId{a.SessionId, b.SessionId} {
		if r, err := cn.prompt(t, id, "hi"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir2, ".rein", "sessions")); err != nil {
		t.Errorf("the second session is not logged in its own cwd: %v", err)
	}
	if _, err := cn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: a.SessionId}); err != nil {
		t.Fatal(err)
	}
	if _, err := cn.prompt(t, a.SessionId, "closed?"); err == nil {
		t.Error("a closed session took a prompt")
	}
}

func TestPlanComesFromWorkItems(t *testing.T) {
	e := newEnv(t)
	p := faux.New(faux.Text("planned"))
	o := e.options(p, "auto_all")
	var opened *coding.Agent
	o.Open = func(ctx context.Context, co coding.Options) (*coding.Agent, error) {
		a, err := coding.Open(ctx, co)
		opened = a
		return a, err
	}
	cn := connect(t, o, newClient())
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	list := work.List{
		{ID: "1", Title: "Write the parser", Status: work.Completed},
		{ID: "2", Title: "Test the parser", ActiveForm: "Testing the parser", Status: work.InProgress},
		{ID: "3", Title: "Ship it", Status: work.Pending},
	}
	entry, err := list.Entry()
	if err != nil {
		t.Fatal(err)
	}
	if err := opened.Harness().AppendEntry(entry); err != nil {
		t.Fatal(err)
	}
	if _, err := cn.prompt(t, ns.SessionId, "go"); err != nil {
		t.Fatal(err)
	}
	isPlan := func(u sdk.SessionUpdate) bool { return u.Plan != nil }
	want := `[{"content":"Write the parser","priority":"medium","status":"completed"},{"content":"Testing the parser","priority":"medium","status":"in_progress"},{"content":"Ship it","priority":"medium","status":"pending"}]`
	if got, _ := json.Marshal(cn.c.waitFor(t, isPlan).Plan.Entries); string(got) != want {
		t.Errorf("plan %s", got)
	}
	cn.stop()

	c2 := newClient()
	cn2 := connect(t, e.options(faux.New(), "auto_all"), c2)
	ctx := context.Background()
	if _, err := cn2.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := cn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: e.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(c2.waitFor(t, isPlan).Plan.Entries); string(got) != want {
		t.Errorf("replayed plan %s", got)
	}
}
