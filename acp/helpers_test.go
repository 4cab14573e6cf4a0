package acp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if built.bin != "" {
			os.RemoveAll(filepath.Dir(built.bin))
		}
		os.Exit(code)
	}))
}

// env is an isolated home and a workspace.
type env struct {
	home, dir string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{home: t.TempDir(), dir: t.TempDir()}
}

func (e *env) getenv(k string) string {
	switch k {
	case "HOME":
		return e.home
	case "XDG_CONFIG_HOME":
		return filepath.Join(e.home, ".config")
	case "PATH":
		return os.Getenv("PATH")
	}
	return ""
}

// options are the agent options of a test: the scripted model, the
// isolated home, and mode as the permission mode.
func (e *env) options(p *faux.Provider, mode string) Options {
	lanes, err := lane.New(lane.Options{})
	if err != nil {
		panic(err)
	}
	return Options{Agent: coding.Options{
		Provider: p, ModelInfo: faux.Model(), PermissionMode: mode, Getenv: e.getenv, MaxTurns: 8, Lanes: lanes,
		Environ: func() []string { return []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")} },
	}}
}

func (e *env) write(t *testing.T, name, body string) {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// idle fails the test unless o's lane scheduler is idle: no run in
// progress or queued, no request slot held or awaited.
func idle(t *testing.T, o Options) {
	t.Helper()
	if st := o.Agent.Lanes.Stats(); st.Runs != 0 || st.Queued != 0 || st.InUse != 0 || st.Waiting != 0 {
		t.Errorf("the lanes are not idle: %+v", st)
	}
}

// client is a test ACP client: it records every session update in
// order, answers permission requests with answer, and keeps "editor
// buffers" for fs requests.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asks    []sdk.RequestPermissionRequest
	changed chan struct{} // signalled (without blocking) on every update
	answer  func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	buffers map[string]string
	writes  map[string]string
}

func newClient() *client {
	return &client{changed: make(chan struct{}, 1), buffers: map[string]string{}, writes: map[string]string{}}
}

func (c *client) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	c.signal()
	return nil
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asks = append(c.asks, p)
	answer := c.answer
	c.mu.Unlock()
	c.signal()
	if answer == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllowOnce)}, nil
	}
	return answer(ctx, p)
}

func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: s}, nil
	}
	b, err := os.ReadFile(p.Path)
	return sdk.ReadTextFileResponse{Content: string(b)}, err
}

func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes[p.Path] = p.Content
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

// all returns the updates so far.
func (c *client) all() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification(nil), c.updates...)
}

// waitFor blocks until an update satisfies ok (or the test's deadline).
func (c *client) waitFor(t *testing.T, ok func(sdk.SessionUpdate) bool) sdk.SessionUpdate {
	t.Helper()
	for {
		for _, n := range c.all() {
			if ok(n.Update) {
				return n.Update
			}
		}
		select {
		case <-c.changed:
		case <-time.After(testWait):
			t.Fatalf("no such update came; got %s", show(c.all()))
		}
	}
}

// testWait bounds a wait for an event that must come; it is a guard
// against hanging, not a timing assertion.
const testWait = 30 * time.Second

func show(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// conn is a client connected in-process to Serve.
type conn struct {
	*sdk.ClientSideConnection
	c    *client
	stop func()
}

// connect serves o on pipes and connects c to it; the returned stop
// closes the client's end and waits for Serve to return.
func connect(t *testing.T, o Options, c *client) *conn {
	t.Helper()
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), o, toAgent, fromAgent) }()
	cc := sdk.NewClientSideConnection(c, fromClient, toClient)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			fromClient.Close()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			fromAgent.Close()
			toClient.Close()
			<-cc.Done()
		})
	}
	t.Cleanup(stop)
	return &conn{ClientSideConnection: cc, c: c, stop: stop}
}

// start initializes and opens a session in dir.
func (cn *conn) start(t *testing.T, dir string, fs sdk.FileSystemCapabilities) sdk.NewSessionResponse {
	t.Helper()
	ctx := context.Background()
	ir, err := cn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: sdk.ClientCapabilities{Fs: fs}})
	if err != nil {
		t.Fatal(err)
	}
	if ir.ProtocolVersion != 1 || !ir.AgentCapabilities.LoadSession {
		t.Fatalf("initialize: %s", show(ir))
	}
	ns, err := cn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func (cn *conn) prompt(t *testing.T, id sdk.SessionId, text string) (sdk.PromptResponse, error) {
	t.Helper()
	return cn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// call is a scripted tool call.
func call(id, name, args string) llm.Content { return llm.ToolCall(id, name, json.RawMessage(args)) }

func isToolCall(id string) func(sdk.SessionUpdate) bool {
	return func(u sdk.SessionUpdate) bool { return u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id }
}

func isToolDone(id string) func(sdk.SessionUpdate) bool {
	return func(u sdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id && u.ToolCallUpdate.Status != nil &&
			(*u.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted || *u.ToolCallUpdate.Status == sdk.ToolCallStatusFailed)
	}
}

// text concatenates the agent message chunks of updates.
func text(ns []sdk.SessionNotification, thought bool) string {
	var s string
	for _, n := range ns {
		u := n.Update
		if !thought && u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			s += u.AgentMessageChunk.Content.Text.Text
		}
		if thought && u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			s += u.AgentThoughtChunk.Content.Text.Text
		}
	}
	return s
}
