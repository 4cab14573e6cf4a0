package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/llm/faux"
)

// raw is a connection spoken line by line, for input no SDK client
// would send.
type raw struct {
	w    io.WriteCloser
	r    *bufio.Scanner
	done chan error
}

func rawConnect(t *testing.T, o Options) *raw {
	t.Helper()
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), o, toAgent, fromAgent) }()
	sc := bufio.NewScanner(toClient)
	sc.Buffer(nil, 1<<20)
	rc := &raw{w: fromClient, r: sc, done: done}
	t.Cleanup(func() {
		fromClient.Close()
		go func() { // drain what the agent still writes while closing
			for sc.Scan() {
			}
		}()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		fromAgent.Close()
	})
	return rc
}

// send writes one line and returns the next response (a message with
// an id and no method), skipping notifications.
func (rc *raw) send(t *testing.T, line string) map[string]any {
	t.Helper()
	if _, err := io.WriteString(rc.w, line+"\n"); err != nil {
		t.Fatal(err)
	}
	for rc.r.Scan() {
		var m map[string]any
		if err := json.Unmarshal(rc.r.Bytes(), &m); err != nil {
			t.Fatalf("the agent wrote a line that is not JSON: %q", rc.r.Text())
		}
		if _, isNote := m["method"]; !isNote {
			return m
		}
	}
	t.Fatalf("the agent closed the stream: %v", rc.r.Err())
	return nil
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestBadInputGetsJSONRPCErrorsAndTheConnectionLives(t *testing.T) {
	e := newEnv(t)
	rc := rawConnect(t, e.options(faux.New(faux.Text("fine")), "auto_all"))
	for _, tc := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not json", `{"jsonrpc":"2.0","id":1,"method":"initialize",`, -32700, nil},
		{"not an object", `[1,2,3]`, -32600, nil},
		{"neither method nor id", `{"jsonrpc":"2.0"}`, -32600, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"session/teleport","params":{}}`, -32601, 7.0},
		{"bad params", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"one"}}`, -32602, 8.0},
		{"prompt for an unknown session", `{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, -32602, 9.0},
		{"relative cwd", `{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}}`, -32602, 10.0},
		{"load of an unknown session", `{"jsonrpc":"2.0","id":11,"method":"session/load","params":{"sessionId":"nope","cwd":"` + e.dir + `","mcpServers":[]}}`, -32602, 11.0},
		{"SSE MCP server", `{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"` + e.dir + `","mcpServers":[{"type":"sse","name":"x","url":"http://127.0.0.1:1/sse","headers":[]}]}}`, -32602, 12.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := rc.send(t, tc.line)
			if errCode(m) != tc.code || m["id"] != tc.id {
				t.Errorf("answer %v, want code %v id %v", m, tc.code, tc.id)
			}
		})
	}
	// The connection still serves a whole turn.
	if m := rc.send(t, `{"jsonrpc":"2.0","id":20,"method":"initialize","params":{"protocolVersion":1}}`); m["result"] == nil {
		t.Fatalf("initialize after bad input: %v", m)
	}
	m := rc.send(t, `{"jsonrpc":"2.0","id":21,"method":"session/new","params":{"cwd":"`+e.dir+`","mcpServers":[]}}`)
	res, _ := m["result"].(map[string]any)
	id, _ := res["sessionId"].(string)
	if id == "" {
		t.Fatalf("session/new: %v", m)
	}
	m = rc.send(t, `{"jsonrpc":"2.0","id":22,"method":"session/prompt","params":{"sessionId":"`+id+`","prompt":[{"type":"text","text":"hi"}]}}`)
	if res, _ := m["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Errorf("prompt: %v", m)
	}
}

func TestPromptValidation(t *testing.T) {
	e := newEnv(t)
	cn := connect(t, e.options(faux.New(), "auto_all"), newClient())
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	ctx := context.Background()
	for name, blocks := range map[string][]sdk.ContentBlock{
		"empty": {sdk.TextBlock("  ")},
		"audio": {sdk.AudioBlock("AAAA", "audio/wav")},
	} {
		_, err := cn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: blocks})
		var re *sdk.RequestError
		if !asRequestError(err, &re) || re.Code != -32602 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestPromptBlocks(t *testing.T) {
	text, images, reason := promptText([]sdk.ContentBlock{
		sdk.TextBlock("look at this"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.go", Text: "package a"}}),
		sdk.ResourceLinkBlock("b.go", "file:///w/b.go"),
		sdk.ImageBlock("iVBOR", "image/png"),
	})
	want := "look at this\n\n<context uri=\"file:///w/a.go\">\npackage a\n</context>\n\n@/w/b.go"
	if reason != "" || text != want || len(images) != 1 || images[0].MIMEType != "image/png" {
		t.Errorf("got %q %v %q", text, images, reason)
	}
}

func TestAClientThatGoesAwayMidTurnLeavesNothingRunning(t *testing.T) {
	e := newEnv(t)
	p := faux.New(faux.Calls("", call("c1", "bash", `{"command":"sleep 60"}`)), faux.Text("never"))
	o := e.options(p, "auto_all")
	cn := connect(t, o, newClient())
	ns := cn.start(t, e.dir, sdk.FileSystemCapabilities{})
	go cn.prompt(t, ns.SessionId, "wait") //nolint:errcheck // the answer never comes: the client leaves
	cn.c.waitFor(t, isToolCall("c1"))
	cn.stop() // Serve returns only once the run has ended and the agent is closed
	idle(t, o)

	// The log is unlocked and well-formed: another connection loads it.
	c2 := newClient()
	cn2 := connect(t, e.options(faux.New(faux.Text("back")), "auto_all"), c2)
	ctx := context.Background()
	if _, err := cn2.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := cn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: e.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("load after the client left: %v", err)
	}
	if st := *c2.waitFor(t, isToolDone("c1")).ToolCallUpdate.Status; st != sdk.ToolCallStatusFailed {
		t.Errorf("the interrupted call replays as %s", st)
	}
	if r, err := cn2.prompt(t, ns.SessionId, "again"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v", err)
	}
}
