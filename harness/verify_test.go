package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// scriptedVerifier answers from a list of verdicts (the last repeats)
// and records what it was asked.
type scriptedVerifier struct {
	mu       sync.Mutex
	verdicts []bool
	inputs   []VerifyInput
	order    *[]string
	last     bool
}

func (v *scriptedVerifier) Verify(_ context.Context, in VerifyInput) (Verdict, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.inputs = append(v.inputs, in)
	if v.order != nil {
		*v.order = append(*v.order, "verify")
	}
	met := v.verdicts[min(len(v.inputs)-1, len(v.verdicts)-1)]
	v.last = met
	if met {
		return Verdict{Met: true}, nil
	}
	return Verdict{Message: fmt.Sprintf("check %d failed: `go test` exited with 1", len(v.inputs)), Detail: "`go test` exited with 1"}, nil
}

func userTexts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == llm.RoleUser {
			out = append(out, m.Text())
		}
	}
	return out
}

func TestVerifyFailuresGoBackUntilMet(t *testing.T) {
	v := &scriptedVerifier{verdicts: []bool{false, false, true}}
	f := newFixture(t, []faux.Reply{faux.Text("done"), faux.Text("fixed"), faux.Text("really fixed")}, func(o *Options) {
		o.Stop.Verify = v
	})
	res, err := f.prompt(t, "fix it")
	if err != nil || res.Stop != StopCompleted {
		t.Fatalf("stop %q, err %v", res.Stop, err)
	}
	users := userTexts(res.Messages)
	if len(users) != 3 || !strings.Contains(users[1], "check 1 failed") || !strings.Contains(users[2], "check 2 failed") {
		t.Fatalf("user messages: %q", users)
	}
	if len(v.inputs) != 3 || v.inputs[2].FinalText != "really fixed" || v.inputs[2].Attempt != 3 {
		t.Fatalf("verifier inputs: %+v", v.inputs)
	}
}

func TestVerifySilentOnSuccess(t *testing.T) {
	v := &scriptedVerifier{verdicts: []bool{true}}
	f := newFixture(t, []faux.Reply{faux.Text("done")}, func(o *Options) { o.Stop.Verify = v })
	res, err := f.prompt(t, "fix it")
	if err != nil || res.Stop != StopCompleted || len(userTexts(res.Messages)) != 1 {
		t.Fatalf("stop %q, err %v, users %q", res.Stop, err, userTexts(res.Messages))
	}
}

func TestVerifyRetryCapEndsContractUnmet(t *testing.T) {
	v := &scriptedVerifier{verdicts: []bool{false}}
	replies := []faux.Reply{faux.Text("a"), faux.Text("b"), faux.Text("c")}
	f := newFixture(t, replies, func(o *Options) { o.Stop.Verify, o.Stop.VerifyRetries = v, 2 })
	res, err := f.prompt(t, "fix it")
	if err != nil || res.Stop != StopContractUnmet || !strings.Contains(res.Detail, "exited with 1") {
		t.Fatalf("stop %q (%s), err %v", res.Stop, res.Detail, err)
	}
	if len(v.inputs) != 3 || len(userTexts(res.Messages)) != 3 {
		t.Fatalf("%d checks, users %q", len(v.inputs), userTexts(res.Messages))
	}
}

func TestStopHooksRunAfterThePredicates(t *testing.T) {
	var order []string
	v := &scriptedVerifier{verdicts: []bool{false, true}, order: &order}
	f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b")}, func(o *Options) { o.Stop.Verify = v })
	f.h.Hooks().OnAgentStop(func(_ context.Context, e *hook.AgentStopEvent) (hook.AgentStopResult, error) {
		order = append(order, "hook:"+e.Reason)
		return hook.AgentStopResult{}, nil
	})
	res, err := f.prompt(t, "go")
	if err != nil || res.Stop != StopCompleted {
		t.Fatal(res.Stop, err)
	}
	if got := strings.Join(order, ","); got != "verify,verify,hook:completed" {
		t.Fatalf("order %s", got)
	}
}

func TestVerifyStrictModeAfterWorkComplete(t *testing.T) {
	v := &scriptedVerifier{verdicts: []bool{false, true}}
	wc := func(s string) faux.Reply { return faux.Calls("", faux.Call(WorkCompleteTool, `{"summary":"`+s+`"}`)) }
	f := newFixture(t, []faux.Reply{wc("first"), wc("second")}, func(o *Options) {
		o.Stop.Mode, o.Stop.Verify = Strict, v
	})
	res, err := f.prompt(t, "go")
	if err != nil || res.Stop != StopCompleted {
		t.Fatal(res.Stop, res.Detail, err)
	}
	if len(v.inputs) != 2 || v.inputs[0].FinalText != "first" || v.inputs[1].FinalText != "second" {
		t.Fatalf("inputs %+v", v.inputs)
	}
}

// TestNeverSuccessWithAFailingPredicate: 1,000 random runs (interactive
// and strict, final answers, tool calls, work_complete, stop hooks that
// block, random verdicts and retry caps): a run that ends completed had
// a passing check last.
func TestNeverSuccessWithAFailingPredicate(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1000))
	completed, unmet := 0, 0
	for i := range 1000 {
		n := 1 + rng.IntN(6)
		verdicts := make([]bool, 1+rng.IntN(6))
		for k := range verdicts {
			verdicts[k] = rng.IntN(3) == 0
		}
		strict := rng.IntN(2) == 0
		var replies []faux.Reply
		for k := range n {
			switch rng.IntN(3) {
			case 0:
				replies = append(replies, faux.Text(fmt.Sprintf("answer %d", k)))
			case 1:
				replies = append(replies, faux.Calls("", faux.Call("echo", fmt.Sprintf(`{"v":"%d-%d"}`, i, k))))
			default:
				replies = append(replies, faux.Calls("", faux.Call(WorkCompleteTool, `{"summary":"done"}`)))
			}
		}
		v := &scriptedVerifier{verdicts: verdicts}
		blocks := rng.IntN(2)
		f := newFixture(t, replies, func(o *Options) {
			o.Stop.Verify, o.Stop.VerifyRetries = v, rng.IntN(4)-1
			o.Stop.StallTurns = -1
			if strict {
				o.Stop.Mode = Strict
				o.Tools = registry(t, echoTool())
			}
		})
		f.h.Hooks().OnAgentStop(func(context.Context, *hook.AgentStopEvent) (hook.AgentStopResult, error) {
			if blocks > 0 {
				blocks--
				return hook.AgentStopResult{Block: true, Message: "keep going"}, nil
			}
			return hook.AgentStopResult{}, nil
		})
		res, _ := f.h.Prompt(context.Background(), "task")
		if res.Stop == StopCompleted {
			completed++
			if len(v.inputs) == 0 || !v.last {
				t.Fatalf("run %d ended completed after a failing check (verdicts %v, checks %d)", i, verdicts, len(v.inputs))
			}
		}
		if res.Stop == StopContractUnmet {
			unmet++
		}
	}
	if completed == 0 || unmet == 0 {
		t.Fatalf("the random runs did not cover both outcomes: %d completed, %d contract_unmet", completed, unmet)
	}
	t.Logf("%d completed, %d contract_unmet of 1000", completed, unmet)
}
