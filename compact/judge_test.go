package compact

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

// TestAnySummaryShapeIsAccepted: a summary is judged by what it keeps,
// not by its headings: every common shape is taken from the first
// summariser, and its goal is found again by GoalOf.
func TestAnySummaryShapeIsAccepted(t *testing.T) {
	goal := "Convert every file under src/legacy to the new API; commit as 9f3c2e1ab."
	in := Input{Messages: conversation(8), Kept: []llm.Message{llm.UserText("now src/legacy/fa.go again")}}
	body := "3 of 9 files done: src/legacy/fa.go is next."
	for name, reply := range map[string]string{
		"h1":      "# Goal\n" + goal + "\n\n# Progress\n" + body,
		"bold":    "**Goal**\n" + goal + "\n\n**Progress**\n" + body,
		"colon":   "Goal: " + goal + "\nProgress: " + body,
		"element": "<summary>\nGoal:\n" + goal + "\n\nProgress:\n" + body + "\n</summary>",
		"plain":   "The user asked: " + goal + " So far " + body,
	} {
		t.Run(name, func(t *testing.T) {
			first := &fake{name: "first", reply: func(Request) (string, error) { return reply, nil }}
			second := &fake{name: "second", reply: func(Request) (string, error) { return good, nil }}
			res, err := Summarize(context.Background(), []Summarizer{first, second}, in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Model != "first" || res.Fallback || res.Digest || len(res.Failures) > 0 {
				t.Fatalf("a good summary was rejected: %+v", res)
			}
			if strings.Count(res.Summary, goal) != 1 || strings.Contains(res.Summary, "<summary>") {
				t.Fatalf("summary = %q", res.Summary)
			}
			if name != "plain" && GoalOf(res.Summary) != goal {
				t.Fatalf("GoalOf = %q", GoalOf(res.Summary))
			}
		})
	}
}

// TestChunkRetriedAlone: a rate limit on one chunk sends that chunk
// again, not the whole fan-out; no more than Concurrency chunk requests
// are in flight at once.
func TestChunkRetriedAlone(t *testing.T) {
	in := Input{Messages: conversation(40), Concurrency: 2, Wait: noWait}
	var mu sync.Mutex
	sent := map[string]int{}
	var inFlight, most atomic.Int32
	failed := false
	gate := make(chan struct{})
	close(gate)
	s := &fake{name: "small", window: 8000, reply: func(r Request) (string, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		if strings.Contains(r.System, "merge") {
			return good, nil
		}
		mu.Lock()
		defer mu.Unlock()
		sent[r.Prompt]++
		if !failed && len(sent) == 2 {
			failed = true
			return "", &llm.Error{Code: llm.CodeRateLimit, Status: 429, Message: "slow down", RetryAfter: time.Second}
		}
		return fmt.Sprintf("## Progress\npart %d done", len(sent)), nil
	}}
	res, err := Summarize(context.Background(), []Summarizer{s}, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks < 3 || res.Digest || res.Fallback {
		t.Fatalf("result = %+v", res)
	}
	again := 0
	for _, n := range sent {
		if n > 1 {
			again++
		}
	}
	if again != 1 || len(sent) != res.Chunks {
		t.Fatalf("%d distinct chunk requests for %d chunks, %d sent more than once; want exactly the failed one again", len(sent), res.Chunks, again)
	}
	if m := most.Load(); m > 2 {
		t.Fatalf("%d chunk requests in flight at once, cap 2", m)
	}
}

// TestSummarizerFailuresNeverLoseTheMiddle: a summariser that returns
// nothing, symbols, a summary longer than its input, a rate limit every
// time, or times out, falls through to the digest, which keeps the goal,
// the latest request and the files.
func TestSummarizerFailuresNeverLoseTheMiddle(t *testing.T) {
	in := Input{Messages: conversation(10), Latest: "then run go test ./...", Timeout: time.Millisecond, Wait: noWait}
	replies := []func(Request) (string, error){
		func(Request) (string, error) { return "", nil },
		func(Request) (string, error) { return "@@@ ### 1234 %%% ^^^ &&& 5678", nil },
		func(Request) (string, error) { return strings.Repeat("longer than the input ", 10000), nil },
		func(Request) (string, error) {
			return "", &llm.Error{Code: llm.CodeRateLimit, Status: 429, Message: "too many requests"}
		},
	}
	var chain []Summarizer
	for i, r := range replies {
		chain = append(chain, &fake{name: fmt.Sprintf("s%d", i), reply: r})
	}
	chain = append(chain, ctxFake{})
	res, err := Summarize(context.Background(), chain, in)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Digest || len(res.Failures) != len(chain) {
		t.Fatalf("result = %+v", res)
	}
	for _, want := range []string{ErrEmptySummary.Error(), ErrGarbageSummary.Error(), ErrLongSummary.Error(), "rate_limit", "timed out"} {
		if !strings.Contains(strings.Join(res.Failures, "\n"), want) {
			t.Errorf("failures do not say %q: %q", want, res.Failures)
		}
	}
	for _, want := range []string{in.Messages[0].Text(), in.Latest, "src/legacy/fa.go"} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("the digest lacks %q", want)
		}
	}
	if r := chain[3].(*fake).calls.Load(); r != 1+DefaultRetries {
		t.Errorf("the rate-limited summariser was called %d times, want %d", r, 1+DefaultRetries)
	}
}
