package coding

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/telemetry/logs"
)

// syncBuffer is a bytes.Buffer safe for the agent's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// With Logs set, a run with a failing tool call and an approval writes
// one line per step to the subsystems asked for, and nothing to others.
func TestSubsystemLogs(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	o := e.options(ws, faux.Calls("", faux.Call("read", `{"path": "missing.txt"}`), faux.Call("write", `{"path": "a.txt", "content": "x"}`)), faux.Text("done"))
	o.PermissionMode, o.Interactive = "ask", true
	var out syncBuffer
	lv, err := logs.Parse("agent=info,tool=info,permission=info")
	if err != nil {
		t.Fatal(err)
	}
	o.Logs = logs.New(&out, lv)
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer a.Subscribe(func(_ context.Context, ev Event) error {
		if ev.Approval != nil {
			go ev.Approval.Answer(permission.Answer{Kind: permission.AllowOnce})
		}
		return nil
	})()
	if res, err := a.Submit(context.Background(), "go"); err != nil || res.Stop != agent.StopCompleted {
		t.Fatal(res.Stop, err)
	}
	got := out.String()
	for _, want := range []string{
		`level=INFO msg="approval asked" subsystem=permission tool=write`,
		`level=INFO msg=result subsystem=tool tool=read id=`,
		`level=INFO msg="run ended" subsystem=agent stop=completed turns=2`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no line with %q in:\n%s", want, got)
		}
	}
	// Debug lines (the successful write's result, turn starts) and the
	// provider subsystem stay out.
	for _, not := range []string{"tool=write id=", "level=DEBUG", "subsystem=provider"} {
		if strings.Contains(got, not) {
			t.Errorf("%q logged:\n%s", not, got)
		}
	}
}
