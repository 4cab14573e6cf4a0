package compact

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

func asst(text string, u *llm.Usage, calls ...llm.Content) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Usage: u, Content: []llm.Content{llm.Text(text)}}
	m.Content = append(m.Content, calls...)
	return m
}

func TestCountTrustsUsageOnlyFromTrustFrom(t *testing.T) {
	msgs := []llm.Message{
		llm.UserText("hello"),
		asst("hi", &llm.Usage{Input: 900, CacheRead: 100, Output: 50}),
		llm.UserText(strings.Repeat("a", 400)),
	}
	e := Count(msgs, 0, 0, 4)
	if e.Measured != 1050 || e.Estimated != 100+messageOverhead || e.Tokens != e.Measured+e.Estimated {
		t.Fatalf("estimate = %+v", e)
	}
	// After a compaction the reply's usage measured a context that is
	// gone: everything is estimated.
	e = Count(msgs, 2, 40, 4)
	if e.Measured != 0 || e.Tokens != 10+MessageTokens(&msgs[0], 4)+MessageTokens(&msgs[1], 4)+MessageTokens(&msgs[2], 4) {
		t.Fatalf("estimate after trustFrom = %+v", e)
	}
}

func TestCountImagesAndSchemas(t *testing.T) {
	m := llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("look"), llm.Image("AAAA", "image/png")}}
	e := Count([]llm.Message{m}, 0, FixedChars(nil, []llm.ToolSpec{{Name: "read", Description: strings.Repeat("d", 396)}}), 4)
	if e.Tokens != 100+1+ImageTokens+messageOverhead {
		t.Fatalf("tokens = %d", e.Tokens)
	}
}

func TestCalibration(t *testing.T) {
	var c Calibration
	if c.CharsPerToken("m") != DefaultCharsPerToken {
		t.Fatal("default ratio")
	}
	c.Observe("m", 30000, 0, 10000) // 3 chars a token
	if got := c.CharsPerToken("m"); got != 3 {
		t.Fatalf("ratio = %v, want 3", got)
	}
	c.Observe("m", 30000, 0, 3) // implausible: ignored
	c.Observe("m", 50000, 0, 10000)
	if got := c.CharsPerToken("m"); got != 4 {
		t.Fatalf("ratio = %v, want 4 (half way from 3 to 5)", got)
	}
	if c.CharsPerToken("other") != DefaultCharsPerToken {
		t.Fatal("ratios are per model")
	}
}

func TestBudget(t *testing.T) {
	b := Settings{}.BudgetFor(llm.Model{ContextWindow: 200_000, MaxOutput: 64_000}, 0)
	if b.Reserve != DefaultReserve || b.Margin != 4000 || b.Hard != 160_000 || b.Soft != 120_000 || b.Keep != DefaultKeepTokens {
		t.Fatalf("budget = %+v", b)
	}
	if b.Limit() != 200_000-DefaultReserve-4000 {
		t.Fatalf("limit = %d", b.Limit())
	}
	// Unknown window: assumed, and said so.
	b = Settings{}.BudgetFor(llm.Model{}, 0)
	if !b.Assumed || b.Window != AssumedWindow {
		t.Fatalf("unknown window: %+v", b)
	}
	st := Status{Budget: b}
	if !strings.Contains(st.String(), "window assumed") {
		t.Fatalf("status does not say the window is assumed: %s", st)
	}
	// A small window: the hard threshold stays under the limit.
	b = Settings{Hard: 0.95}.BudgetFor(llm.Model{ContextWindow: 8000, MaxOutput: 4000}, 0)
	if b.Hard > b.Limit() || b.Keep > b.Hard*3/10 {
		t.Fatalf("small window budget = %+v", b)
	}
	for _, bad := range []Settings{{Soft: 1.2}, {Hard: -1}, {Soft: 0.9, Hard: 0.5}, {KeepTokens: -1}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
}

func batch(turn int, isErr bool, size int) []llm.Message {
	id := "c" + string(rune('a'+turn))
	return []llm.Message{
		asst("t", nil, llm.ToolCall(id, "bash", []byte(`{"command":"make test"}`))),
		llm.ToolResult(id, "bash", isErr, llm.Text(strings.Repeat("o", size))),
	}
}

func TestMasking(t *testing.T) {
	msgs := []llm.Message{llm.UserText("go")}
	for turn := 0; turn < 10; turn++ {
		msgs = append(msgs, batch(turn, turn == 1, 2000)...)
	}
	msgs = append(msgs, batch(11, false, 10)...) // small: never worth masking
	k := PlanMask(msgs, 2, Masking{})
	out, n := k.Apply(msgs)
	// 11 batches; the last 2 turns keep their output; the error of turn 1
	// is within the last 4 turns? No: it is older, so it is masked too
	// only when below ErrorsUntil.
	if n == 0 || &out[0] == &msgs[0] {
		t.Fatalf("nothing masked: %d", n)
	}
	for i := range msgs {
		if msgs[i].Role == llm.RoleToolResult && len(msgs[i].Content[0].Text) < 2000 && msgs[i].ToolCallID != "cl" {
			t.Fatal("Apply modified its input")
		}
	}
	stub := out[2].Content[0].Text
	for _, want := range []string{"bash", `{"command":"make test"}`, "2000 characters", "Re-run it"} {
		if !strings.Contains(stub, want) {
			t.Fatalf("stub %q lacks %q", stub, want)
		}
	}
	if out[len(out)-1].Content[0].Text != "oooooooooo" {
		t.Fatal("a small result was masked")
	}
	if !strings.HasPrefix(out[len(out)-3].Content[0].Text, "ooo") {
		t.Fatal("the last turns' output was masked")
	}
	// Errors stay longer than successes.
	k = Masking{Until: 20, ErrorsUntil: 2}
	out, _ = k.Apply(msgs)
	if !strings.HasPrefix(out[4].Content[0].Text, "ooo") || !strings.HasPrefix(out[2].Content[0].Text, "[output elided") {
		t.Fatalf("error result masked with the successes: %q", out[4].Content[0].Text[:20])
	}
	// Masking only grows.
	if k2 := PlanMask(msgs[:5], 2, k); k2.Until < k.Until {
		t.Fatal("masking shrank")
	}
	if ok, why := PairsIntact(out); !ok {
		t.Fatal(why)
	}
}

func TestIdentifiers(t *testing.T) {
	s := `see /work/src/main.go and internal/x.go at 1c2844ab9f, uuid 123e4567-e89b-12d3-a456-426614174000, https://example.com/a?b=1, localhost:8080, v1.22.3 and deadline 1234567`
	got := Identifiers(s)
	for _, want := range []string{"/work/src/main.go", "internal/x.go", "1c2844ab9f", "123e4567-e89b-12d3-a456-426614174000", "https://example.com/a?b=1", "localhost:8080", "v1.22.3"} {
		found := false
		for _, g := range got {
			if g == want {
				found = true
			}
		}
		if !found {
			t.Errorf("Identifiers missed %q: %q", want, got)
		}
	}
	for _, g := range got {
		if g == "deadline" || g == "1234567" {
			t.Errorf("Identifiers took the word %q", g)
		}
	}
}

// fake is a scripted summariser.
type fake struct {
	name   string
	window int
	calls  atomic.Int32
	reply  func(r Request) (string, error)
}

func (f *fake) Name() string { return f.name }
func (f *fake) Window() int  { return f.window }
func (f *fake) Summarize(ctx context.Context, r Request) (string, error) {
	f.calls.Add(1)
	return f.reply(r)
}

func conversation(n int) []llm.Message {
	msgs := []llm.Message{llm.UserText("Convert every file under src/legacy to the new API; commit as 9f3c2e1ab.")}
	for i := 0; i < n; i++ {
		id := "c" + strconv.Itoa(i)
		msgs = append(msgs,
			asst("reading", nil, llm.ToolCall(id, "read", []byte(`{"path":"src/legacy/f`+string(rune('a'+i%26))+`.go"}`))),
			llm.ToolResult(id, "read", false, llm.Text(strings.Repeat("line of code\n", 200))))
	}
	return msgs
}

const good = "## Goal\nConvert every file under src/legacy to the new API; commit as 9f3c2e1ab.\n## Progress\n3 of 9 files\n## Next\nfile d"

func TestSummarizeBadSummariesFallBack(t *testing.T) {
	in := Input{Messages: conversation(8), Kept: []llm.Message{llm.UserText("now src/legacy/fa.go again")}}
	cases := []struct {
		name  string
		reply string
		err   error
		want  error
	}{
		{"empty", "   ", nil, ErrEmptySummary},
		{"garbage", "\x00\x01\x02 I cannot help with that \x03\x04\x05\x06\x07", nil, ErrGarbageSummary},
		{"symbols", "## ### --- *** 12345 ~~~ !!! ??? ### ---", nil, ErrGarbageSummary},
		{"longer", "## Goal\n" + strings.Repeat("long ", 20000), nil, ErrLongSummary},
		{"error", "", &llm.Error{Code: llm.CodeOverloaded, Message: "overloaded"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			first := &fake{name: "first", reply: func(Request) (string, error) { return tc.reply, tc.err }}
			second := &fake{name: "second", reply: func(Request) (string, error) { return good, nil }}
			in := in
			in.Wait = noWait
			res, err := Summarize(context.Background(), []Summarizer{first, second}, in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Model != "second" || !res.Fallback || res.Digest || len(res.Failures) != 1 {
				t.Fatalf("result = %+v", res)
			}
			if tc.want != nil && !strings.Contains(res.Failures[0], tc.want.Error()) {
				t.Fatalf("failure %q does not say %q", res.Failures[0], tc.want)
			}
		})
	}
}

func TestSummarizeEveryModelFailsGivesDigest(t *testing.T) {
	in := Input{Messages: conversation(6), Latest: "and then run go test ./..."}
	bad := &fake{name: "m", reply: func(Request) (string, error) { return "", errors.New("boom") }}
	res, err := Summarize(context.Background(), []Summarizer{bad}, in)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Digest || !strings.HasPrefix(res.Summary, DigestMarker) {
		t.Fatalf("no digest: %+v", res)
	}
	for _, want := range []string{in.Messages[0].Text(), "src/legacy/fa.go", "6 tool calls", "m: boom", in.Latest} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("digest lacks %q:\n%s", want, res.Summary)
		}
	}
	// Deterministic.
	again, _ := Summarize(context.Background(), []Summarizer{bad}, in)
	if again.Summary != res.Summary {
		t.Fatal("the digest is not deterministic")
	}
}

func TestSummarizeRepairsIdentifiersAndGoal(t *testing.T) {
	in := Input{Messages: conversation(4), Kept: []llm.Message{llm.UserText("check src/legacy/fb.go and 9f3c2e1ab")}}
	var prompts []string
	s := &fake{name: "m", reply: func(r Request) (string, error) {
		prompts = append(prompts, r.Prompt)
		if r.System == repairSystem {
			return "src/legacy/fb.go: the file to check next", nil
		}
		return "## Progress\nconverted some legacy files", nil
	}}
	res, err := Summarize(context.Background(), []Summarizer{s}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 2 || !strings.Contains(prompts[1], "src/legacy/fb.go") {
		t.Fatalf("no retry naming the lost identifiers: %d prompts", len(prompts))
	}
	// The retry asks for what is missing only, not for the whole part again.
	if len(prompts[1]) > len(prompts[0])/4 {
		t.Fatalf("the repair request holds %d characters, the summary request %d", len(prompts[1]), len(prompts[0]))
	}
	for _, want := range []string{"src/legacy/fb.go", "9f3c2e1ab", in.Messages[0].Text()} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.Summary)
		}
	}
	if !slices.Equal(res.Repaired, []string{"9f3c2e1ab"}) {
		t.Fatalf("Repaired = %q, want only the identifier the repair did not bring", res.Repaired)
	}
	if !strings.Contains(prompts[0], IdentifierRule) && !strings.Contains(prompts[0], "verbatim") {
		t.Fatal("the prompt lacks the identifier rule")
	}
}

func TestSummarizePromptSectionsAndUpdateMode(t *testing.T) {
	prev := llm.UserText("The earlier part of this conversation was compacted to save space. This is a summary of it, not a message from the user:\n\n<summary>\n## Goal\nship v2.0.1\n## Progress\n1 of 2\n</summary>")
	in := Input{Messages: append([]llm.Message{prev}, conversation(2)[1:]...), Handoff: true, Focus: "the failing test"}
	var got Request
	s := &fake{name: "m", reply: func(r Request) (string, error) { got = r; return "## Goal\nship v2.0.1\n## Progress\n2 of 2", nil }}
	res, err := Summarize(context.Background(), []Summarizer{s}, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range Sections {
		if !strings.Contains(got.System, "## "+h) {
			t.Errorf("system prompt lacks section %q", h)
		}
	}
	for _, want := range []string{"<previous-summary>", "## Goal\nship v2.0.1", "the failing test"} {
		if !strings.Contains(got.Prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if !strings.Contains(got.System, "NEW MODEL") || !strings.Contains(got.System, IdentifierRule) {
		t.Error("handoff or identifier rule missing from the system prompt")
	}
	if strings.Contains(got.Prompt, "<summary>") {
		t.Error("the previous summary is summarised again as conversation")
	}
	if !strings.Contains(res.Summary, "ship v2.0.1") {
		t.Error("goal lost")
	}
}

func TestSummarizeChunksAndMerges(t *testing.T) {
	in := Input{Messages: conversation(40)}
	var merged atomic.Bool
	s := &fake{name: "small", window: 8000, reply: func(r Request) (string, error) {
		if strings.Contains(r.System, "merge") {
			merged.Store(true)
			if strings.Count(r.Prompt, "<part n=") < 2 {
				return "", errors.New("merge of fewer than two parts")
			}
			return good, nil
		}
		if n := len(r.Prompt); n > 8000*4 {
			return "", errors.New("chunk larger than the window")
		}
		return "## Progress\npart done", nil
	}}
	res, err := Summarize(context.Background(), []Summarizer{s}, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks < 2 || !merged.Load() || res.Digest {
		t.Fatalf("not chunked and merged: %+v", res)
	}
}

func TestSummarizeTimeout(t *testing.T) {
	if Timeout(50_000) != 170*time.Second || Timeout(10_000_000) != 320*time.Second {
		t.Fatalf("Timeout = %v, %v", Timeout(50_000), Timeout(10_000_000))
	}
	slow := &fake{name: "slow", reply: func(Request) (string, error) { time.Sleep(50 * time.Millisecond); return good, nil }}
	slowCtx := &ctxFake{}
	in := Input{Messages: conversation(3), Timeout: 10 * time.Millisecond, Wait: noWait}
	res, err := Summarize(context.Background(), []Summarizer{slowCtx, slow}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) < 1 || !strings.Contains(res.Failures[0], "timed out") {
		t.Fatalf("failures = %q", res.Failures)
	}
}

type ctxFake struct{}

func (ctxFake) Name() string { return "waits" }
func (ctxFake) Window() int  { return 0 }
func (ctxFake) Summarize(ctx context.Context, _ Request) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

func TestImagesInCompactedPart(t *testing.T) {
	msgs := conversation(3)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("this screenshot"), llm.Image("AAAA", "image/png")}})
	tr := Transcript(msgs)
	if !strings.Contains(tr, "[image image/png]") || strings.Contains(tr, "AAAA") {
		t.Fatal("images must be named, not pasted, in the transcript")
	}
	d := Digest(Input{Messages: msgs}, "test")
	if strings.Contains(d, "AAAA") {
		t.Fatal("image data in the digest")
	}
}

// noWait stands for the wait before a retry in tests.
func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }
