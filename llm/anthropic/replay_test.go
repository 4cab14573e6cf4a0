package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

// block summarises one expected content block. Text is compared exactly
// unless Suffix is set, in which case the text must end with it and have
// length Len. Args are compared byte for byte.
type wantBlock struct {
	Type     llm.ContentType
	Text     string
	Suffix   string
	Len      int
	SigStart string // the signature (or redacted data) begins with this
	SigLen   int
	Redacted bool
	ID, Name string
	Args     string
	Extra    string // a substring the block's Extra must contain
}

type wantReply struct {
	file       string
	id, model  string
	stop       llm.StopReason
	in, out    int
	blocks     []wantBlock
	passTypes  []string // types of pass-through blocks in Message.Extra
	passAt     []int
	noExtra    bool
	textBlocks int // when > 0, only the number of text blocks is checked
}

var replays = []wantReply{
	{file: "fantasy-sonnet4-cache-control.sse", id: "msg_01JGB62RRpQEwVHUjLdhqWMi", model: "claude-sonnet-4-20250514", stop: llm.StopEnd, in: 16, out: 43, noExtra: true,
		blocks: []wantBlock{{Type: llm.ContentText, Text: "Olá! (Oh-LAH)\n\nThat's \"hello\" in Portuguese. You can also say \"Oi!\" (Oy) for a more casual \"hi!\""}}},
	{file: "fantasy-sonnet4-parallel-tools-followup.sse", id: "msg_015WPQbJC4ysDAi7LuCD43Fp", model: "claude-sonnet-4-20250514", stop: llm.StopEnd, in: 700, out: 31, noExtra: true,
		blocks: []wantBlock{{Type: llm.ContentText, Text: "The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6"}}},
	{file: "fantasy-sonnet4-parallel-tools.sse", id: "msg_01PSvJdjd5keNSD63VHjYzex", model: "claude-sonnet-4-20250514", stop: llm.StopToolUse, in: 502, out: 137, noExtra: true,
		blocks: []wantBlock{
			{Type: llm.ContentText, Text: "I'll add and multiply the numbers 2 and 3 for you."},
			{Type: llm.ContentToolCall, ID: "toolu_01UYxUYC2zRPY8wiutnF48eP", Name: "add", Args: `{"a": 2, "b": 3}`, Extra: `"caller":{"type":"direct"}`},
			{Type: llm.ContentToolCall, ID: "toolu_01VaRx1jpWCvPhi7L4kywAcd", Name: "multiply", Args: `{"a": 2, "b": 3}`, Extra: `"caller":{"type":"direct"}`},
		}},
	{file: "fantasy-sonnet4-text.sse", id: "msg_01R8GdyyLQUhUfyjqSCMbnWg", model: "claude-sonnet-4-20250514", stop: llm.StopEnd, in: 16, out: 38, noExtra: true,
		blocks: []wantBlock{{Type: llm.ContentText, Text: "Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in Portuguese."}}},
	{file: "fantasy-sonnet4-thinking-followup.sse", id: "msg_01G4mwZgqcFN38A9H8S9pPAA", model: "claude-sonnet-4-20250514", stop: llm.StopEnd, in: 558, out: 51, noExtra: true,
		blocks: []wantBlock{{Type: llm.ContentText, Suffix: "seek shade or air conditioning when possible.", Len: 204}}},
	{file: "fantasy-sonnet4-thinking-tool.sse", id: "msg_01KTBB57LAzaSZs8kMNvfnsY", model: "claude-sonnet-4-20250514", stop: llm.StopToolUse, in: 424, out: 119, noExtra: true,
		blocks: []wantBlock{
			{Type: llm.ContentThinking, Text: "The user is asking for weather information for Florence, Italy. I have access to a weather function that takes a location parameter. The user has provided the location as \"Florence, Italy\" which is specific enough for the weather function. I have all the required parameters to make the function call.",
				SigStart: "EtYDCkYICxgCKkAVHEWRYo6RgSMs4ZZDX4gW", SigLen: 636},
			{Type: llm.ContentToolCall, ID: "toolu_01Js4AMfx5qpTLhwTusnvT68", Name: "weather", Args: `{"location": "Florence, Italy"}`},
		}},
	{file: "fantasy-sonnet4-tool-result-followup.sse", id: "msg_01Kx5NVw2m4AvAyCQQ5zV4pU", model: "claude-sonnet-4-20250514", stop: llm.StopEnd, in: 476, out: 46, noExtra: true,
		blocks: []wantBlock{{Type: llm.ContentText, Text: "The current weather in Florence, Italy shows a temperature of 40°C (104°F). That's quite hot! Make sure to stay hydrated and seek shade if you're planning to be outdoors."}}},
	{file: "fantasy-sonnet4-tool.sse", id: "msg_01Kgk6kMJLdJJC26r3uFwpRU", model: "claude-sonnet-4-20250514", stop: llm.StopToolUse, in: 394, out: 67, noExtra: true,
		blocks: []wantBlock{
			{Type: llm.ContentText, Text: "I'll get the weather information for Florence, Italy for you."},
			{Type: llm.ContentToolCall, ID: "toolu_01N2eM4V43kGCDkq2Lw7ChWQ", Name: "weather", Args: `{"location": "Florence,Italy"}`},
		}},
	{file: "fantasy-sonnet4-web-search.sse", id: "msg_019wEazncxZZExmW7sTECaeK", model: "claude-sonnet-4-20250514", stop: llm.StopEnd, in: 13520, out: 415,
		textBlocks: 13, passTypes: []string{"server_tool_use", "web_search_tool_result"}, passAt: []int{0, 1}},
	{file: "lcgo-opus3-text.sse", id: "msg_01Ju7oPaDmjgrhWq8gNP4AUj", model: "claude-3-opus-20240229", stop: llm.StopEnd, in: 15, out: 13, noExtra: true,
		blocks: []wantBlock{{Type: llm.ContentText, Text: "1\n2\n3\n4\n5"}}},
	{file: "pai-sonnet4-thinking-text.sse", id: "msg_01ALwQ87pTS7hH1PjSdC9wJD", model: "claude-sonnet-4-20250514", stop: llm.StopEnd, in: 43, out: 282, noExtra: true,
		blocks: []wantBlock{
			{Type: llm.ContentThinking, Text: "This is a straightforward question about pedestrian safety. I should provide clear, helpful advice about how to safely cross a street. This is basic safety information that could help prevent accidents.",
				SigStart: "EvMCCkYICxgCKkCHP2cSuEdcJK", SigLen: 504},
			{Type: llm.ContentText, Suffix: "Always prioritize safety over speed when crossing streets.", Len: 1021},
		}},
	{file: "pai-sonnet45-redacted-thinking.sse", id: "msg_018XZkwvj9asBiffg3fXt88s", model: "claude-sonnet-4-5-20250929", stop: llm.StopEnd, in: 92, out: 189, noExtra: true,
		blocks: []wantBlock{
			{Type: llm.ContentThinking, Redacted: true, SigStart: "EqkECkYIBxgCKkA8AZ4noDfV5VcOJe", SigLen: 744},
			{Type: llm.ContentThinking, Redacted: true, SigStart: "EtgBCkYIBxgCKkDQfGkwzflEJP5asG", SigLen: 296},
			{Type: llm.ContentText, Suffix: "How can I assist you today with a legitimate task or question?", Len: 359},
		}},
	{file: "payload-only/vercel-sonnet45-tool-no-args.chunks.jsonl", id: "msg_01GE2RKp1VYsPzdFs3sS9z5S", model: "claude-sonnet-4-5-20250929", stop: llm.StopToolUse, in: 565, out: 48, noExtra: true,
		blocks: []wantBlock{
			{Type: llm.ContentText, Text: "I'll update the issue list for you."},
			{Type: llm.ContentToolCall, ID: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", Name: "updateIssueList", Args: `{}`},
		}},
}

// replayBody returns the SSE body of a recording.
func replayBody(t testing.TB, file string) []byte {
	b := readFile(t, file)
	if strings.HasSuffix(file, ".jsonl") {
		return llmtest.SSEFromJSONL(t, b)
	}
	return b
}

func TestReplayCoversEveryRecording(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(recorded, "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings found: %v", err)
	}
	have := map[string]bool{}
	for _, r := range replays {
		have[r.file] = true
	}
	for _, f := range files {
		if !have[filepath.Base(f)] {
			t.Errorf("recording %s has no replay expectation", filepath.Base(f))
		}
	}
}

func TestReplay(t *testing.T) {
	for _, w := range replays {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(w.file), ".sse"), ".chunks.jsonl")
		body := replayBody(t, w.file)
		for _, chunk := range []int{0, 7} {
			t.Run(name, func(t *testing.T) {
				srv := llmtest.NewServer(t, llmtest.SSE(body, chunk))
				c := newClient(srv.URL, Options{APIKey: func(context.Context) (string, error) { return "sk-test-key", nil }})
				msg, events, err := run(t, context.Background(), c, userReq(sonnet, "hi"))
				if err != nil {
					t.Fatalf("stream failed: %v", err)
				}
				if events[len(events)-1].Type != llm.EventDone {
					t.Fatalf("last event %s", events[len(events)-1].Type)
				}
				checkReply(t, w, msg)
				golden(t, name, msg)
			})
		}
	}
}

func checkReply(t *testing.T, w wantReply, msg llm.Message) {
	t.Helper()
	if msg.ResponseID != w.id || msg.Model != w.model || msg.StopReason != w.stop {
		t.Errorf("id, model, stop = %q, %q, %q; want %q, %q, %q", msg.ResponseID, msg.Model, msg.StopReason, w.id, w.model, w.stop)
	}
	if msg.Role != llm.RoleAssistant || msg.API != llm.APIAnthropicMessages || msg.Provider != "anthropic" || !msg.Timestamp.Equal(fixedNow) {
		t.Errorf("metadata: role %q api %q provider %q time %v", msg.Role, msg.API, msg.Provider, msg.Timestamp)
	}
	wantUsage := llm.Usage{Input: w.in, Output: w.out, Total: w.in + w.out}
	wantUsage.Finish(sonnet.Price)
	if msg.Usage == nil {
		t.Fatal("no usage")
	}
	if d := cmp.Diff(wantUsage, *msg.Usage); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
	if w.noExtra && msg.Extra != nil {
		t.Errorf("unexpected message extra %s", msg.Extra)
	}
	if w.textBlocks > 0 {
		for _, c := range msg.Content {
			if c.Type != llm.ContentText || c.Text == "" {
				t.Errorf("block %+v, want non-empty text", c)
			}
		}
		if len(msg.Content) != w.textBlocks {
			t.Errorf("%d blocks, want %d", len(msg.Content), w.textBlocks)
		}
	} else if len(msg.Content) != len(w.blocks) {
		t.Fatalf("%d blocks, want %d: %+v", len(msg.Content), len(w.blocks), msg.Content)
	}
	for i, wb := range w.blocks {
		checkBlock(t, i, wb, msg.Content[i])
	}
	if len(w.passTypes) > 0 {
		var ex messageExtra
		if err := json.Unmarshal(msg.Extra, &ex); err != nil {
			t.Fatalf("message extra %s: %v", msg.Extra, err)
		}
		if len(ex.Blocks) != len(w.passTypes) {
			t.Fatalf("%d pass-through blocks, want %d", len(ex.Blocks), len(w.passTypes))
		}
		for i, p := range ex.Blocks {
			var b struct{ Type string }
			if err := json.Unmarshal(p.Block, &b); err != nil || b.Type != w.passTypes[i] || p.At != w.passAt[i] {
				t.Errorf("pass-through block %d: type %q at %d (%v), want %q at %d", i, b.Type, p.At, err, w.passTypes[i], w.passAt[i])
			}
		}
	}
}

func checkBlock(t *testing.T, i int, w wantBlock, c llm.Content) {
	t.Helper()
	if c.Type != w.Type || c.Redacted != w.Redacted {
		t.Errorf("block %d: type %q redacted %v, want %q %v", i, c.Type, c.Redacted, w.Type, w.Redacted)
	}
	switch {
	case w.Suffix != "":
		if !strings.HasSuffix(c.Text, w.Suffix) || len(c.Text) != w.Len {
			t.Errorf("block %d: text of %d bytes ending %q, want %d bytes ending %q", i, len(c.Text), c.Text[max(0, len(c.Text)-60):], w.Len, w.Suffix)
		}
	case c.Text != w.Text:
		t.Errorf("block %d: text %q, want %q", i, c.Text, w.Text)
	}
	if !strings.HasPrefix(c.Signature, w.SigStart) || len(c.Signature) != w.SigLen {
		t.Errorf("block %d: signature of %d bytes starting %.30q, want %d starting %q", i, len(c.Signature), c.Signature, w.SigLen, w.SigStart)
	}
	if c.ID != w.ID || c.Name != w.Name || string(c.Arguments) != w.Args {
		t.Errorf("block %d: call %q %q %s, want %q %q %s", i, c.ID, c.Name, c.Arguments, w.ID, w.Name, w.Args)
	}
	if !strings.Contains(string(c.Extra), w.Extra) {
		t.Errorf("block %d: extra %s lacks %s", i, c.Extra, w.Extra)
	}
}

// golden compares the whole final message with testdata/replay/<name>.json
// (rewritten with -update).
func golden(t *testing.T, name string, msg llm.Message) {
	t.Helper()
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	path := filepath.Join("testdata", "replay", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got.String()); d != "" {
		t.Errorf("final message differs from %s (-want +got):\n%s", path, d)
	}
}
