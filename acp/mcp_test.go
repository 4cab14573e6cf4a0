package acp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reinhq/rein/llm/faux"
)

// TestClientMCPServerOverHTTP gives a session a streamable HTTP MCP
// server, as an editor does, and has the model call its tool.
func TestClientMCPServerOverHTTP(t *testing.T) {
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "editor-tools", Version: "1.0"}, nil)
	mcpsdk.AddTool(srv, &mcpsdk.Tool{Name: "shout", Description: "Upper-case the text."},
		func(_ context.Context, _ *mcpsdk.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcpsdk.CallToolResult, any, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	var sawToken atomic.Bool
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer editor-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		sawToken.Store(true)
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	e := newEnv(t)
	p := faux.New(faux.Calls("", call("m1", "mcp__editor_tools__shout", `{"text":"hello"}`)), faux.Text("done"))
	cn := connect(t, e.options(p, "auto_all"), newClient())
	ctx := context.Background()
	if _, err := cn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	ns, err := cn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{{Http: &sdk.McpServerHttpInline{
		Type: "http", Name: "editor tools", Url: ts.URL, Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer editor-token"}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cn.prompt(t, ns.SessionId, "shout hello"); err != nil {
		t.Fatal(err)
	}
	done := cn.c.waitFor(t, isToolDone("m1")).ToolCallUpdate
	b, _ := json.Marshal(done.Content)
	if *done.Status != sdk.ToolCallStatusCompleted || !strings.Contains(string(b), "HELLO") || !sawToken.Load() {
		t.Errorf("MCP call: %s (token seen: %v)", show(done), sawToken.Load())
	}
	cn.stop()
}
