package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// The test binary doubles as a stdio MCP server: with REIN_MCP_TEST_SERVER
// set, TestMain runs the server of that mode instead of the tests.
const serverEnv = "REIN_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverEnv); mode != "" {
		runTestServer(mode)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// testServerConfig is the config of a stdio server run by this test
// binary in mode.
func testServerConfig(t testing.TB, mode string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{serverEnv: mode}}
}

func runTestServer(mode string) {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: missing DATABASE_URL")
		os.Exit(3)
	case "garbage":
		fmt.Println("Server listening on port 3000... (this is not JSON-RPC)")
		fmt.Println("<html>oops</html>")
		time.Sleep(time.Minute)
		return
	case "bigraw":
		rawBigServer()
		return
	case "silent":
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				// Keep running after stdin closes, as a stuck server would.
				time.Sleep(time.Minute)
				return
			}
		}
	}
	if mode == "spawn" {
		// A server that starts a helper of its own, as npx does.
		c := exec.Command("sleep", "300")
		if err := c.Start(); err == nil {
			os.WriteFile(os.Getenv("REIN_MCP_TEST_PIDFILE"), []byte(strconv.Itoa(c.Process.Pid)), 0o644)
		}
	}
	if mode == "slow" {
		time.Sleep(1500 * time.Millisecond)
	}
	s := newTestServer(mode)
	_ = s.Run(context.Background(), &sdk.StdioTransport{MaxLineLength: -1})
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

var objectSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)

// newTestServer builds the Go MCP server used by the unit tests, over
// stdio and HTTP alike.
func newTestServer(mode string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "rein-test", Version: "1.0"}, nil)
	if mode == "meta" {
		s.AddTool(&sdk.Tool{Name: "meta", Description: "Says the call's _meta.", InputSchema: objectSchema},
			func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				b, _ := json.Marshal(r.Params.Meta)
				return textResult("meta: " + string(b)), nil
			})
	}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text.", InputSchema: objectSchema,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(r.Params.Arguments, &in)
			return textResult("echo: " + in.Text), nil
		})
	s.AddTool(&sdk.Tool{Name: "read", Description: "A tool whose name a builtin has.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return textResult("read from the MCP server"), nil
		})
	s.AddTool(&sdk.Tool{Name: "mixed", Description: "Text, an image, a link and structured content.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			size := int64(12)
			return &sdk.CallToolResult{
				Content: []sdk.Content{
					&sdk.TextContent{Text: "here is a picture"},
					&sdk.ImageContent{Data: []byte("\x89PNG fake"), MIMEType: "image/png"},
					&sdk.ResourceLink{URI: "file:///tmp/report.txt", Name: "report", MIMEType: "text/plain", Size: &size},
					&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://note", MIMEType: "text/plain", Text: "embedded note"}},
				},
				StructuredContent: map[string]any{"count": 3, "ok": true},
			}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Fails as a tool.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no such record"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "big", Description: "Returns 50 MB of text.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			line := strings.Repeat("x", 99) + "\n"
			return textResult(strings.Repeat(line, 50<<20/100)), nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answers.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {}
		})
	s.AddTool(&sdk.Tool{Name: "die", Description: "Exits while the call runs.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "panic: out of memory (simulated)")
			os.Exit(2)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "bad_schema", Description: "Its schema is not valid.",
		InputSchema: json.RawMessage(`{"type":"object","properties":5}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return textResult("unreachable"), nil
		})
	s.AddTool(&sdk.Tool{Name: "grow", Description: "Adds a tool and notifies the client.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "grown", Description: "Added at run time.", InputSchema: objectSchema},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return textResult("grown works"), nil
				})
			return textResult("added grown"), nil
		})
	return s
}

// rawBigServer is a minimal stdio MCP server written by hand: its one
// tool, big, answers with 50 MB of text, written straight to stdout so
// that the test measures rein's side and not a server's encoder.
func rawBigServer() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	reply := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		out.Flush()
	}
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "initialize":
			reply(req.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
		case "tools/list":
			reply(req.ID, `{"tools":[{"name":"big","description":"50 MB of text","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, req.ID)
			line := strings.Repeat("x", 98) + `\n`
			for i := 0; i < 50<<20/100; i++ {
				out.WriteString(line)
			}
			out.WriteString(`"}]}}` + "\n")
			out.Flush()
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", req.ID)
			out.Flush()
		}
	}
}
