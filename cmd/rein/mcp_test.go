package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/trust"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingServer returns the reference MCP server installed by .ci/run,
// skipping the test when it is absent (failing under CI).
func everythingServer(t *testing.T) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("..", "..", "mcp", "testdata", "npm", "node_modules", ".bin", "mcp-server-everything"))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: .ci/run installs it with npm", p)
		}
		t.Skipf("%s is missing: run (cd mcp/testdata/npm && npm ci)", p)
	}
	return p
}

// tokenServer is an MCP server over streamable HTTP that wants a bearer
// token.
func tokenServer(t *testing.T, token string) *httptest.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "lookup", Description: "Look a note up.", InputSchema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)},
		func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "note for " + string(r.Params.Arguments)}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// runCLIVars runs rein with the environment vars, in which the
// workspace -C names is trusted (so that its MCP servers start).
func runCLIVars(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	vs := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	for k, v := range vars {
		vs[k] = v
	}
	for i, a := range args {
		if a == "-C" && i+1 < len(args) {
			snap, err := trust.Scan(args[i+1])
			if err != nil {
				t.Fatal(err)
			}
			if err := coding.TrustStore(func(k string) string { return vs[k] }).Accept(snap); err != nil {
				t.Fatal(err)
			}
		}
	}
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vs[k] }}
	code := execute(context.Background(), e, args)
	return code, out.String(), errOut.String()
}

// An untrusted workspace's .mcp.json starts nothing: a run no one can
// ask stops before its first request, naming the file and the way to
// trust it.
func TestUntrustedWorkspaceStartsNoMCPServer(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(fmt.Sprintf(`{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch %s"]}}}`, marker)), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "ok"}`+"\n")
	var out, errOut bytes.Buffer
	cfg := t.TempDir()
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}}
	if code := execute(context.Background(), e, []string{"run", "-m", "faux", "--script", script, "-C", dir, "--no-session", "go"}); code != 2 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted workspace started its MCP server")
	}
	for _, w := range []string{".mcp.json", "mcp server evil: sh -c touch", "rein trust", "REIN_TRUST_WORKSPACE=1"} {
		if !strings.Contains(errOut.String(), w) {
			t.Fatalf("the message lacks %q: %s", w, errOut.String())
		}
	}
}

func TestRunWithMCPServers(t *testing.T) {
	ev := everythingServer(t)
	const token = "tok-very-secret-4242"
	ts := tokenServer(t, token)
	dir := t.TempDir()
	mcpJSON := fmt.Sprintf(`{"mcpServers": {
		"ev": {"command": %q},
		"notes": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${NOTES_TOKEN}"}},
		"gone": {"command": "rein-test-no-such-server"},
		"off": {"command": "rein-test-no-such-server", "disabled": true}}}`, ev, ts.URL)
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(mcpJSON), 0o644)
	script := writeScript(t, t.TempDir(), `{"tool_calls": [{"name": "mcp__ev__get-sum", "arguments": {"a": 40, "b": 2}}, {"name": "mcp__notes__lookup", "arguments": {"key": "k1"}}]}
{"text": "42 and the note."}
`)
	// The note server's tool is not read-only: it asks in the default mode,
	// which a run without a terminal denies; this test is about the
	// servers, so it allows every call.
	code, out, errOut := runCLIVars(t, map[string]string{"NOTES_TOKEN": token}, "run", "-m", "faux", "--script", script, "-C", dir, "-o", "json",
		"--permission-mode", "bypassPermissions", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "server gone is failed") || strings.Contains(errOut, "server off") {
		t.Errorf("stderr: %s", errOut)
	}
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) < 4 {
		t.Fatalf("messages: %+v", r.Messages)
	}
	sum, note := r.Messages[2].Text(), r.Messages[3].Text()
	if !strings.Contains(sum, "42") || !strings.Contains(note, `note for {"key":"k1"}`) || !strings.Contains(note, "EXTERNAL CONTENT") {
		t.Errorf("results: %q / %q", sum, note)
	}
	log, err := os.ReadFile(r.Session)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log, []byte(token)) {
		t.Error("the session log holds the header value")
	}
	if !bytes.Contains(log, []byte("mcp__ev__get-sum")) {
		t.Error("the session log lacks the MCP call")
	}
	if _, err := os.Stat(filepath.Join(dir, ".rein", "mcp", "ev.log")); err != nil {
		t.Errorf("no stderr log: %v", err)
	}

	// rein mcp list shows each server, its state, tools and errors.
	code, out, errOut = runCLIVars(t, map[string]string{"NOTES_TOKEN": token}, "mcp", "list", "-C", dir)
	if code != 0 {
		t.Fatalf("mcp list: %d %s", code, errOut)
	}
	for _, want := range []string{"ev  ready  stdio", "tool: mcp__ev__get-sum", "notes  ready  http", "tool: mcp__notes__lookup",
		"gone  failed  stdio", `command "rein-test-no-such-server" not found`, "off  disabled"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, token) {
		t.Error("mcp list shows the token")
	}
	// Without the token the http server is refused, and the list says so.
	_, out, _ = runCLIVars(t, nil, "mcp", "list", "-C", dir)
	if !strings.Contains(out, "notes  failed") || !strings.Contains(out, "NOTES_TOKEN") {
		t.Errorf("mcp list without the token:\n%s", out)
	}
	// --disable-mcp all starts none of them.
	script = writeScript(t, t.TempDir(), `{"text": "no tools"}`+"\n")
	code, out, errOut = runCLIVars(t, nil, "run", "-m", "faux", "--script", script, "-C", dir, "--disable-mcp", "all", "-o", "json", "go")
	if code != 0 || strings.Contains(errOut, "mcp:") {
		t.Errorf("disabled: %d %s", code, errOut)
	}
}
