package acp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/llm/faux"
)

// BenchmarkFirstChunk measures, in process, the time from initialize to
// the first agent_message_chunk of a prompt with the faux model:
// initialize, session/new (coding.Open: config, session log) and
// session/prompt until the first streamed text.
func BenchmarkFirstChunk(b *testing.B) {
	home, dir := b.TempDir(), b.TempDir()
	e := &env{home: home, dir: dir}
	var total time.Duration
	for b.Loop() {
		p := faux.New(faux.Text("hello there"))
		c := newClient()
		t0 := time.Now()
		cn := connectB(b, e.options(p, "auto_all"), c)
		ctx := context.Background()
		if _, err := cn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
			b.Fatal(err)
		}
		ns, err := cn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := cn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
			done <- err
		}()
		for first := false; !first; {
			for _, n := range c.all() {
				first = first || n.Update.AgentMessageChunk != nil
			}
			if !first {
				<-c.changed
			}
		}
		total += time.Since(t0)
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		cn.stop()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-chunk")
}

// connectB is connect for benchmarks.
func connectB(b *testing.B, o Options, c *client) *conn {
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), o, toAgent, fromAgent) }()
	cc := sdk.NewClientSideConnection(c, fromClient, toClient)
	return &conn{ClientSideConnection: cc, c: c, stop: func() {
		fromClient.Close()
		if err := <-done; err != nil {
			b.Error(err)
		}
		fromAgent.Close()
		toClient.Close()
		<-cc.Done()
	}}
}

// BenchmarkFirstChunkBinary measures the same through the real binary:
// process start, initialize, session/new and session/prompt until the
// first agent_message_chunk line on its standard output.
func BenchmarkFirstChunkBinary(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "rein")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rein").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	dir, home := b.TempDir(), b.TempDir()
	script := filepath.Join(b.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"text":"hello there"}`+"\n"), 0o644)
	var total time.Duration
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(bin, "acp", "--model", "faux", "--script", script)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		send := func(s string) { io.WriteString(in, s+"\n") }
		wait := func(want string) string {
			for sc.Scan() {
				if strings.Contains(sc.Text(), want) {
					return sc.Text()
				}
			}
			b.Fatalf("no %s", want)
			return ""
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
		line := wait(`"id":2,"result"`)
		id := line[strings.Index(line, `"sessionId":"`)+13:]
		id = id[:strings.IndexByte(id, '"')]
		send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"hi"}]}}`)
		wait("agent_message_chunk")
		total += time.Since(t0)
		wait(`"id":3`)
		in.Close()
		io.Copy(io.Discard, out)
		cmd.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-chunk")
}
