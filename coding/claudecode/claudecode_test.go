package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/hook/command"
	"github.com/reinhq/rein/llm"
)

func TestBashOutput(t *testing.T) {
	for _, tc := range []struct {
		in, out     string
		interrupted bool
	}{
		{"hi\nexit code: 0\n", "hi", false},
		{"(no output)\nexit code: 1\n", "", false},
		{"a\nb\nkilled by signal TERM\n", "a\nb", true},
		{"no status line", "no status line", false},
	} {
		out, intr := command.BashOutput(tc.in)
		if out != tc.out || intr != tc.interrupted {
			t.Errorf("%q: %q %v", tc.in, out, intr)
		}
	}
}

// The json result carries Claude Code's fields and, beside them, the
// extra object's; two usage objects are merged; an error is a result
// with is_error and Claude Code's subtype.
func TestResult(t *testing.T) {
	var buf bytes.Buffer
	w := NewResult(&buf, Meta{SessionID: "s1"})
	res := harness.Result{Stop: agent.StopMaxTurns, Turns: 3, Usage: llm.Usage{Input: 10, Output: 4, CacheRead: 2, Cost: llm.Cost{Total: 0.5}}}
	extra := map[string]any{"text": "partial", "usage": map[string]any{"input": 10}}
	if err := w.Result(res, "partial", nil, extra); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	u := got["usage"].(map[string]any)
	if got["subtype"] != "error_max_turns" || got["is_error"] != true || got["num_turns"] != 3.0 || got["text"] != "partial" ||
		u["input_tokens"] != 10.0 || u["input"] != 10.0 || u["cache_read_input_tokens"] != 2.0 || got["total_cost_usd"] != 0.5 || got["session_id"] != "s1" {
		t.Fatalf("%s", buf.String())
	}
	buf.Reset()
	w.Result(harness.Result{Stop: agent.StopError}, "", errors.New("provider down"), nil)
	json.Unmarshal(buf.Bytes(), &got)
	if got["subtype"] != "error_during_execution" || got["result"] != "provider down" {
		t.Fatalf("%s", buf.String())
	}
}
