package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/permission"
)

func TestPromptStreamsThoughtsMessagesAndToolCalls(t *testing.T) {
	e := newEnv(t)
	e.write(t, "notes.txt", "alpha\nbeta\n")
	think := faux.Calls("Let me look.", call("c1", "read", `{"path":"notes.txt"}`), call("c2", "bash", `{"command":"echo hi; exit 3"}`))
	think.Message.Content = append([]llm.Content{llm.Thinking("pondering the file", "")}, think.Message.Content...)
	p := faux.New(think, faux.Text("It says alpha."))
	cn := connect(t, e.options(p, "auto_all"), newClient())
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	if ns.Modes == nil || ns.Modes.CurrentModeId != "auto_all" || len(ns.Modes.AvailableModes) != len(permission.Modes()) {
		t.Errorf("modes: %s", show(ns.Modes))
	}
	resp, err := cn.prompt(t, ns.SessionId, "what is in notes.txt?")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", resp.StopReason)
	}
	all := cn.c.all()
	if got := text(all, true); got != "pondering the file" {
		t.Errorf("thought chunks %q", got)
	}
	if got := text(all, false); got != "Let me look.It says alpha." {
		t.Errorf("message chunks %q", got)
	}
	read := cn.c.waitFor(t, isToolCall("c1")).ToolCall
	if read.Kind != sdk.ToolKindRead || read.Title != "Read notes.txt" || len(read.Locations) != 1 || read.Locations[0].Path != filepath.Join(e.dir, "notes.txt") {
		t.Errorf("read call: %s", show(read))
	}
	if b, _ := json.Marshal(read.RawInput); string(b) != `{"path":"notes.txt"}` {
		t.Errorf("raw input %s", b)
	}
	done := cn.c.waitFor(t, isToolDone("c1")).ToolCallUpdate
	if *done.Status != sdk.ToolCallStatusCompleted || len(done.Content) == 0 || !strings.Contains(done.Content[0].Content.Content.Text.Text, "alpha") {
		t.Errorf("read result: %s", show(done))
	}
	bash := cn.c.waitFor(t, isToolCall("c2")).ToolCall
	if bash.Kind != sdk.ToolKindExecute || bash.Title != "echo hi; exit 3" {
		t.Errorf("bash call: %s", show(bash))
	}
	bd := cn.c.waitFor(t, isToolDone("c2")).ToolCallUpdate
	raw, _ := json.Marshal(bd.RawOutput)
	if !strings.Contains(string(raw), `"exitCode":3`) {
		t.Errorf("bash raw output %s", raw)
	}
	var usage bool
	var cmds []string
	for _, n := range all {
		if n.Update.UsageUpdate != nil && n.Update.UsageUpdate.Size == faux.Model().ContextWindow && n.Update.UsageUpdate.Used > 0 {
			usage = true
		}
		if n.Update.AvailableCommandsUpdate != nil {
			for _, c := range n.Update.AvailableCommandsUpdate.AvailableCommands {
				cmds = append(cmds, c.Name)
			}
		}
	}
	if !usage {
		t.Error("no usage update")
	}
	for _, want := range []string{"model", "mode", "status", "compact"} {
		if !strings.Contains(strings.Join(cmds, " "), want) {
			t.Errorf("available commands %v lack %s", cmds, want)
		}
	}
}

func TestToolKinds(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		kind       sdk.ToolKind
		title      string
	}{
		{"read", `{"path":"a.go"}`, sdk.ToolKindRead, "Read a.go"},
		{"write", `{"path":"a.go","content":"x"}`, sdk.ToolKindEdit, "Write a.go"},
		{"edit", `{"path":"a.go","edits":[]}`, sdk.ToolKindEdit, "Edit a.go"},
		{"bash", `{"command":"go test ./...\nmore"}`, sdk.ToolKindExecute, "go test ./... …"},
		{"grep", `{"pattern":"func","path":"src"}`, sdk.ToolKindSearch, `grep "func" src`},
		{"find", `{"pattern":"*.go"}`, sdk.ToolKindSearch, "find *.go"},
		{"ls", `{}`, sdk.ToolKindRead, "List ."},
		{"work_complete", `{}`, sdk.ToolKindThink, "Work complete"},
		{"mcp__web__fetch_page", `{"url":"http://x"}`, sdk.ToolKindFetch, "mcp__web__fetch_page http://x"},
		{"mcp__fs__delete_file", `{"path":"a"}`, sdk.ToolKindDelete, "mcp__fs__delete_file a"},
		{"mcp__fs__move_file", `{}`, sdk.ToolKindMove, "mcp__fs__move_file"},
		{"mcp__x__frobnicate", `{}`, sdk.ToolKindOther, "mcp__x__frobnicate"},
	} {
		c, _ := describe(llm.ToolCall("id", tc.name, json.RawMessage(tc.args)), "/w")
		if c.kind != tc.kind || c.title != tc.title {
			t.Errorf("%s: kind %q title %q, want %q %q", tc.name, c.kind, c.title, tc.kind, tc.title)
		}
	}
}

// answerWith answers every permission request with option id.
func answerWith(id string) func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if id == "" {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(id))}, nil
	}
}

func TestPermissionAnswers(t *testing.T) {
	for _, tc := range []struct {
		option string
		ran    bool
	}{
		{optAllowOnce, true},
		{optAllowAlways, true},
		{optRejectOnce, false},
		{optRejectAlways, false},
		{"", false},               // cancelled
		{"made_up_option", false}, // not offered: fail closed
	} {
		t.Run(tc.option, func(t *testing.T) {
			e := newEnv(t)
			p := faux.New(faux.Calls("", call("c1", "bash", `{"command":"touch ran.txt"}`)), faux.Text("done"))
			c := newClient()
			c.answer = answerWith(tc.option)
			cn := connect(t, e.options(p, "ask"), c)
			ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
			resp, err := cn.prompt(t, ns.SessionId, "make the file")
			if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("prompt: %v %s", err, show(resp))
			}
			_, statErr := os.Stat(filepath.Join(e.dir, "ran.txt"))
			if ran := statErr == nil; ran != tc.ran {
				t.Errorf("command ran: %v, want %v", ran, tc.ran)
			}
			c.mu.Lock()
			asks := c.asks
			c.mu.Unlock()
			if len(asks) != 1 {
				t.Fatalf("%d permission requests", len(asks))
			}
			a := asks[0]
			if a.ToolCall.Title == nil || !strings.Contains(*a.ToolCall.Title, "touch ran.txt") || string(a.ToolCall.ToolCallId) != "c1" {
				t.Errorf("request: %s", show(a))
			}
			var kinds []string
			for _, o := range a.Options {
				kinds = append(kinds, string(o.Kind))
			}
			if strings.Join(kinds, ",") != "allow_once,allow_always,reject_once,reject_always" {
				t.Errorf("options %v", kinds)
			}
			st := *cn.c.waitFor(t, isToolDone("c1")).ToolCallUpdate.Status
			if (st == sdk.ToolCallStatusCompleted) != tc.ran {
				t.Errorf("tool status %s", st)
			}
		})
	}
}

func TestRejectAlwaysDeniesTheNextCallWithoutAsking(t *testing.T) {
	e := newEnv(t)
	p := faux.New(faux.Calls("", call("c1", "bash", `{"command":"touch a.txt"}`)), faux.Text("no"),
		faux.Calls("", call("c2", "bash", `{"command":"touch a.txt"}`)), faux.Text("still no"))
	c := newClient()
	c.answer = answerWith(optRejectAlways)
	cn := connect(t, e.options(p, "ask"), c)
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	for range 2 {
		if _, err := cn.prompt(t, ns.SessionId, "touch it"); err != nil {
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	n := len(c.asks)
	c.mu.Unlock()
	if n != 1 {
		t.Errorf("%d permission requests, want 1 (the second call is denied by the rule)", n)
	}
	if st := *cn.c.waitFor(t, isToolDone("c2")).ToolCallUpdate.Status; st != sdk.ToolCallStatusFailed {
		t.Errorf("second call %s", st)
	}
}

func TestUnansweredPermissionTimesOutToDeny(t *testing.T) {
	e := newEnv(t)
	p := faux.New(faux.Calls("", call("c1", "bash", `{"command":"touch ran.txt"}`)), faux.Text("ok"))
	c := newClient()
	c.answer = func(ctx context.Context, _ sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		<-ctx.Done() // never answers; the agent gives up
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
	o := e.options(p, "ask")
	o.PermissionTimeout = 1 // the shortest wait there is
	cn := connect(t, o, c)
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	resp, err := cn.prompt(t, ns.SessionId, "make the file")
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %s", err, show(resp))
	}
	idle(t, o)
	if _, err := os.Stat(filepath.Join(e.dir, "ran.txt")); err == nil {
		t.Error("the command ran without an answer")
	}
	done := cn.c.waitFor(t, isToolDone("c1")).ToolCallUpdate
	if *done.Status != sdk.ToolCallStatusFailed {
		t.Errorf("status %s", *done.Status)
	}
}
