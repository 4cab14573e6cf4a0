package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
)

// longFile is the output of a cat longer than the read tool's page, which
// the default mismatch mode hints at.
var longFile = strings.Repeat("contents\n", 2001)

// Guards are on by default: a bash cat of a long file runs and is followed
// by a hint naming the read tool; NoGuards turns them off.
func TestGuardsOnByDefault(t *testing.T) {
	ran := 0
	bash := &tool.Tool{Name: "bash", Schema: []byte(`{"type":"object","properties":{"command":{"type":"string"}}}`),
		Run: func(context.Context, *tool.Call) tool.Result { ran++; return tool.Text(longFile) }}
	read := &tool.Tool{Name: "read", Schema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		Run: func(context.Context, *tool.Call) tool.Result { return tool.Text("contents") }}
	reg, err := tool.NewRegistry(bash, read)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []bool{false, true} {
		ran = 0
		p := faux.New(faux.Calls("", faux.Call("bash", `{"command":"cat notes.txt"}`)), faux.Text("done"))
		h, err := New(Options{Provider: p, Model: faux.Model(), Tools: reg, NoGuards: off})
		if err != nil {
			t.Fatal(err)
		}
		res, err := h.Prompt(context.Background(), "show notes.txt")
		if err != nil {
			t.Fatal(err)
		}
		result := res.Messages[2]
		if off {
			if ran != 1 || result.IsError {
				t.Fatalf("NoGuards: bash ran %d times, result %q", ran, result.Text())
			}
			continue
		}
		// The default hints: the command runs, the hint follows its output.
		if ran != 1 || result.IsError || !strings.HasPrefix(result.Text(), "contents") || !strings.Contains(result.Text(), "read tool") {
			t.Fatalf("default: bash ran %d times, result %q", ran, result.Text())
		}
	}
}

// The default guard follows Options.GuardConfig, and New reads no files:
// a broken harness-config.json in the workspace does not matter to it.
func TestGuardConfigOption(t *testing.T) {
	bash := &tool.Tool{Name: "bash", Schema: []byte(`{"type":"object","properties":{"command":{"type":"string"}}}`),
		Run: func(context.Context, *tool.Call) tool.Result { return tool.Text(longFile) }}
	read := &tool.Tool{Name: "read", Schema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		Run: func(context.Context, *tool.Call) tool.Result { return tool.Text("contents") }}
	reg, err := tool.NewRegistry(bash, read)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".rein"), 0o755)
	os.WriteFile(filepath.Join(ws, ".rein", "harness-config.json"), []byte(`{"disable": [`), 0o644)
	cfg := guard.DefaultConfig().Merge(guard.Config{Disable: []string{"mismatch"}})
	for _, c := range []struct {
		cfg    *guard.Config
		hinted bool
	}{{nil, true}, {&cfg, false}} {
		p := faux.New(faux.Calls("", faux.Call("bash", `{"command":"cat notes.txt"}`)), faux.Text("done"))
		h, err := New(Options{Provider: p, Model: faux.Model(), Tools: reg, GuardConfig: c.cfg, Limit: tool.LimitOptions{Workdir: ws}})
		if err != nil {
			t.Fatalf("New read the workspace's broken config: %v", err)
		}
		res, err := h.Prompt(context.Background(), "show notes.txt")
		hinted := strings.Contains(res.Messages[2].Text(), "[guard mismatch]")
		if err != nil || res.Messages[2].IsError || hinted != c.hinted {
			t.Fatalf("config %v: hinted=%v, want %v: %v %q", c.cfg != nil, hinted, c.hinted, err, res.Messages[2].Text())
		}
	}
}
