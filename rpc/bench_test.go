package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/faux"
)

// BenchmarkPromptToFirstEvent measures, over pipes with the faux model,
// the time from writing a prompt command to reading its first event
// (agent_start), and the whole prompt until agent_end.
func BenchmarkPromptToFirstEvent(b *testing.B) {
	dir, home := b.TempDir(), b.TempDir()
	replies := make([]faux.Reply, b.N)
	for i := range replies {
		replies[i] = faux.Text("ok")
	}
	open := func(ctx context.Context, path string) (*coding.Agent, error) {
		return coding.Open(ctx, coding.Options{Workdir: dir, Provider: faux.New(replies...), ModelInfo: faux.Model(),
			Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, Environ: func() []string { return []string{"HOME=" + home} },
			PermissionMode: "auto_all", Session: path, NoRunRecords: true, Frontend: "rpc"})
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, Options{Open: open})
		outW.Close()
	}()
	rd := bufio.NewReader(outR)
	next := func() string {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var ev struct{ Type string }
		json.Unmarshal(line, &ev)
		return ev.Type
	}
	var first, whole time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		io.WriteString(inW, `{"type":"prompt","message":"hi"}`+"\n")
		got := false
		for {
			typ := next()
			if !got && typ != "response" {
				first += time.Since(t0)
				got = true
			}
			if typ == "agent_end" {
				break
			}
		}
		whole += time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(first.Microseconds())/float64(b.N)/1000, "ms/first-event")
	b.ReportMetric(float64(whole.Microseconds())/float64(b.N)/1000, "ms/prompt")
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
