package coding

import (
	"context"
	"strings"
	"testing"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/subagent"
)

// run runs a slash command line on a.
func run(t *testing.T, a *Agent, line string) (string, error) {
	t.Helper()
	c, args, ok, err := a.Command(line)
	if !ok || err != nil {
		t.Fatalf("%s: ok %v err %v", line, ok, err)
	}
	return c.Run(context.Background(), args)
}

// /agents lists the sub-agents and cancels a running one by a prefix of
// its id.
func TestAgentsCommand(t *testing.T) {
	e := newTestEnv(t)
	started := make(chan struct{}, 1)
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		started <- struct{}{}
		<-ctx.Done()
		return llm.Message{}, ctx.Err()
	}
	parent := faux.New(faux.Calls("", agentCall("worker", "watch the logs", true)), faux.Text("started it"))
	a := openParent(t, e, parent, child, defs{worker("worker")}, nil)
	if out, _ := run(t, a, "/agents"); out != "no sub-agents" {
		t.Errorf("before any: %q", out)
	}
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	<-started
	recs := a.Subagents().Children()
	if len(recs) != 1 {
		t.Fatalf("records %+v", recs)
	}
	id := recs[0].ID
	out, err := run(t, a, "/agents")
	if err != nil || !strings.Contains(out, "1 running or queued, 0 ended") || !strings.Contains(out, ShortID(id)+"  worker     running   background  task watch the logs") ||
		!strings.Contains(out, "/agents cancel ID") {
		t.Fatalf("listing %q, %v", out, err)
	}
	if _, err := run(t, a, "/agents cancel ffffffffffff"); err == nil || !strings.Contains(err.Error(), "/agents lists them") {
		t.Errorf("an unknown id: %v", err)
	}
	if _, err := run(t, a, "/agents stop"); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("a bad form: %v", err)
	}
	out, err = run(t, a, "/agents cancel "+id[:6])
	if err != nil || out != "cancelled sub-agent "+ShortID(id)+" (worker)" {
		t.Fatalf("cancel: %q, %v", out, err)
	}
	if r := a.Subagents().Children()[0]; r.State != subagent.Cancelled {
		t.Errorf("state after cancel %s", r.State)
	}
	if _, err := run(t, a, "/agents cancel "+id); err == nil || !strings.Contains(err.Error(), "already ended (cancelled)") {
		t.Errorf("cancelling again: %v", err)
	}
	if out, _ := run(t, a, "/agents"); !strings.Contains(out, "0 running or queued, 1 ended") || strings.Contains(out, "/agents cancel ID") {
		t.Errorf("after: %q", out)
	}
}

// /queue sets how text typed while a prompt runs is sent; /collect and
// /interrupt choose it for one message. Collected messages run as one
// prompt after the running one.
func TestQueueModeCommands(t *testing.T) {
	e := newTestEnv(t)
	entered, release := make(chan struct{}, 4), make(chan struct{})
	var prompts []string
	replies := []faux.Reply{{Func: func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return llm.Message{}, ctx.Err()
		}
		return text("first done"), nil
	}}}
	for range 3 {
		replies = append(replies, faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
			prompts = append(prompts, req.Messages[len(req.Messages)-1].Text())
			return text("ok"), nil
		}})
	}
	o := e.options(t.TempDir(), replies...)
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if out, _ := run(t, a, "/queue"); !strings.Contains(out, "sent as steer") {
		t.Errorf("default: %q", out)
	}
	if _, err := run(t, a, "/queue sideways"); err == nil {
		t.Errorf("an unknown mode was accepted")
	}
	if _, err := run(t, a, "/steer now"); err == nil || !strings.Contains(err.Error(), "no prompt runs") {
		t.Errorf("steering while idle: %v", err)
	}
	ends, unsub := events(a, "agent_end")
	defer unsub()
	done := make(chan error, 1)
	go func() { _, err := a.Submit(context.Background(), "first"); done <- err }()
	<-entered
	if out, err := run(t, a, "/queue collect"); err != nil || !strings.Contains(out, "sent as collect") || a.QueueMode() != lane.ModeCollect {
		t.Fatalf("/queue collect: %q %v", out, err)
	}
	for _, s := range []string{"alpha", "beta"} {
		if out, err := a.Send(s); err != nil || !strings.HasPrefix(out, "collected") {
			t.Fatalf("send %s: %q %v", s, out, err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-ends // the first prompt
	<-ends // the collected one
	if len(prompts) != 1 || prompts[0] != "alpha\n\nbeta" {
		t.Fatalf("prompts after the first: %q", prompts)
	}
}
