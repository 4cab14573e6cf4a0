package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/reinhq/rein/tool"
)

// TestConcurrentCalls sends calls from many goroutines through one
// guard's middleware, as parallel batches do; run with -race.
func TestConcurrentCalls(t *testing.T) {
	dir := t.TempDir()
	for i := range 4 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprintf("file %d", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Cascade is set out of reach: goroutines that happen to run in step
	// make long streaks of one tool, which cascade rightly blocks, and this
	// test is about the state staying consistent, not about streaks.
	g := New(Options{Workdir: dir, Config: &Config{Mismatch: MismatchAlways, Tools: map[string]ToolConfig{"*": {CascadeThreshold: 1 << 20}}}})
	var ran atomic.Int64
	h := g.Middleware()(func(ctx context.Context, call *tool.Call) tool.Result {
		ran.Add(1)
		switch call.Name {
		case "read":
			var a struct{ Path string }
			_ = json.Unmarshal(call.Args, &a)
			data, err := os.ReadFile(filepath.Join(dir, a.Path))
			if err != nil {
				return tool.Errorf("%v", err)
			}
			return tool.Text(string(data))
		case "write":
			var a struct{ Path, Content string }
			_ = json.Unmarshal(call.Args, &a)
			// Write and rename, so that a concurrent read never sees a
			// half-written file.
			tmp, err := os.CreateTemp(dir, "w")
			if err == nil {
				_, err = tmp.WriteString(a.Content)
				tmp.Close()
			}
			if err == nil {
				err = os.Rename(tmp.Name(), filepath.Join(dir, a.Path))
			}
			if err != nil {
				return tool.Errorf("%v", err)
			}
			return tool.Text("ok")
		}
		return tool.Text("out " + string(call.Args))
	})
	const workers, calls = 16, 200
	var wg sync.WaitGroup
	var guarded atomic.Int64
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				var c tool.Call
				switch i % 5 {
				case 0, 1:
					c = tool.Call{Name: "read", Args: json.RawMessage(fmt.Sprintf(`{"path":"f%d.txt"}`, (w+i)%4))}
				case 2:
					c = tool.Call{Name: "bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"cat f%d.txt"}`, i%4))}
				case 3:
					c = tool.Call{Name: "write", Args: json.RawMessage(fmt.Sprintf(`{"path":"f%d.txt","content":"file %d"}`, i%4, i%4))}
				default:
					c = tool.Call{Name: "grep", Args: json.RawMessage(fmt.Sprintf(`{"pattern":"p%d"}`, i%3))}
				}
				c.Turn = 1 + i/10
				c.Tool = &tool.Tool{Name: c.Name}
				res := h(context.Background(), &c)
				if res.Text() == "" {
					t.Errorf("%s: empty result", c.Name)
				}
				if c.Name == "read" && !strings.Contains(res.Text(), "file ") {
					t.Errorf("read returned %q", res.Text())
				}
				if len(res.Notes) > 0 {
					guarded.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if ran.Load()+guarded.Load() < workers*calls {
		t.Fatalf("ran %d + guarded %d < %d calls", ran.Load(), guarded.Load(), workers*calls)
	}
	if guarded.Load() == 0 {
		t.Fatal("no call was guarded (the bash cat calls should have been hinted)")
	}
}
