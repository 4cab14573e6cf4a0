package acp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/internal/cputime"
	"github.com/reinhq/rein/llm/faux"
)

// BenchmarkFirstChunk measures, in process, the time from initialize to
// the first agent_message_chunk of a prompt with the faux model:
// initialize, session/new (coding.Open: config, session log) and
// session/prompt until the first streamed text. It reports the CPU time
// of the process (client and agent) over the same span beside the wall
// time.
func BenchmarkFirstChunk(b *testing.B) {
	home, dir := b.TempDir(), b.TempDir()
	e := &env{home: home, dir: dir}
	var total, cpu time.Duration
	for b.Loop() {
		p := faux.New(faux.Text("hello there"))
		c := newClient()
		t0, c0 := time.Now(), cputime.Self()
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
		cpu += cputime.Self() - c0
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		cn.stop()
	}
	b.ReportMetric(ms(total)/float64(b.N), "ms/first-chunk")
	b.ReportMetric(ms(cpu)/float64(b.N), "cpu-ms/first-chunk")
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

// BenchmarkFirstChunkBinary measures the same through the real binary,
// two ways: from process start (a client that starts rein acp and
// writes initialize at once) and from initialize (written once the
// started process waits on its standard input), each until the first
// agent_message_chunk line on its standard output. It reports the
// process's CPU time too.
func BenchmarkFirstChunkBinary(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "rein")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rein").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	dir, home := b.TempDir(), b.TempDir()
	script := filepath.Join(b.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"text":"hello there"}`+"\n"), 0o644)
	var fromStart, fromInit, startup, cpu time.Duration
	for b.Loop() {
		for _, idle := range []bool{false, true} {
			p := startACP(b, bin, home, script)
			if idle {
				t := time.Now()
				waitStdin(b, p.cmd.Process.Pid)
				startup += time.Since(t)
			}
			t0 := time.Now()
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
			line := p.wait(`"id":2,"result"`)
			id := line[strings.Index(line, `"sessionId":"`)+13:]
			id = id[:strings.IndexByte(id, '"')]
			p.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"hi"}]}}`)
			p.wait("agent_message_chunk")
			if idle {
				fromInit += time.Since(t0)
			} else {
				fromStart += time.Since(p.started)
			}
			p.wait(`"id":3`)
			cpu += p.stop()
		}
	}
	n := float64(b.N)
	b.ReportMetric(ms(fromStart)/n, "ms/start-to-chunk")
	b.ReportMetric(ms(fromInit)/n, "ms/initialize-to-chunk")
	b.ReportMetric(ms(startup)/n, "ms/start-to-stdin")
	b.ReportMetric(ms(cpu)/n/2, "cpu-ms/process")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// acpProcess is a running rein acp.
type acpProcess struct {
	b       *testing.B
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     io.ReadCloser
	sc      *bufio.Scanner
	started time.Time
}

func startACP(b *testing.B, bin, home, script string) *acpProcess {
	cmd := exec.Command(bin, "acp", "--model", "faux", "--script", script)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	p := &acpProcess{b: b, cmd: cmd, in: in, out: out, sc: bufio.NewScanner(out), started: time.Now()}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return p
}

func (p *acpProcess) send(s string) { io.WriteString(p.in, s+"\n") }

// wait reads lines until one contains want and returns it.
func (p *acpProcess) wait(want string) string {
	for p.sc.Scan() {
		if strings.Contains(p.sc.Text(), want) {
			return p.sc.Text()
		}
	}
	p.b.Fatalf("no %s", want)
	return ""
}

// stop closes the process's input, waits for it and returns its CPU
// time.
func (p *acpProcess) stop() time.Duration {
	p.in.Close()
	io.Copy(io.Discard, p.out)
	if err := p.cmd.Wait(); err != nil {
		p.b.Fatal(err)
	}
	return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
}

// waitStdin returns once a thread of process pid is blocked reading its
// standard input: the process has started and waits for the client.
// It reads /proc/PID/task/*/syscall (Linux).
func waitStdin(b *testing.B, pid int) {
	nr := map[string]string{"amd64": "0", "arm64": "63"}[runtime.GOARCH]
	if nr == "" {
		b.Skipf("no read syscall number for %s", runtime.GOARCH)
	}
	want := nr + " 0x0 "
	for {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			b.Skipf("cannot see the process's threads: %v", err)
		}
		for _, t := range tasks {
			s, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/syscall", pid, t.Name()))
			if strings.HasPrefix(string(s), want) {
				return
			}
		}
		runtime.Gosched()
	}
}
