package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinhq/rein/llm"
)

// block is a hand-written expectation of one content block: its type,
// where its text starts and ends, the call it makes and the start of the
// signature it carries.
type block struct {
	typ        llm.ContentType
	prefix     string
	suffix     string
	name, id   string
	args       string
	sigPrefix  string
	sigPresent bool
}

// replayFacts are the facts of each recording, read off the recordings by
// hand, that the decoder must reproduce.
var replayFacts = []struct {
	file       string
	model      string // requested
	version    string // modelVersion reported
	responseID string
	stop       llm.StopReason
	usage      llm.Usage
	blocks     []block
	extra      string // a fragment of Message.Extra
}{
	{
		file: "adk-gemini25flash-text.sse", model: "gemini-2.5-flash", version: "gemini-2.5-flash",
		responseID: "yFWYabnBB8Wg1e8P3ZTdiAY", stop: llm.StopEnd,
		usage:  llm.Usage{Input: 11, Output: 34, Reasoning: 33, Total: 45},
		blocks: []block{{typ: llm.ContentText, prefix: "Paris", suffix: "Paris"}},
		extra:  `"promptTokensDetails":[{"modality":"TEXT","tokenCount":11}]`,
	},
	{
		file: "adk-gemini25flash-multichunk-text.sse", model: "gemini-2.5-flash", version: "gemini-2.5-flash",
		responseID: "1Cawad6GGqqAvdIPveLuiAU", stop: llm.StopEnd,
		usage:  llm.Usage{Input: 30, Output: 510, Reasoning: 33, Total: 540},
		blocks: []block{{typ: llm.ContentText, prefix: "The capital of Poland is **Warsaw** (Polish: *Warszawa*).", suffix: "human spirit to rebuild and thrive."}},
	},
	{
		file: "adk-gemini25flash-thoughts-text.sse", model: "gemini-2.5-flash", version: "gemini-2.5-flash",
		responseID: "cjGwadCGE7yvnsEP3tfsiQk", stop: llm.StopEnd,
		usage: llm.Usage{Input: 51, Output: 1979, Reasoning: 1234, Total: 2030},
		blocks: []block{
			{typ: llm.ContentThinking, prefix: "**Calculating Prime Sum**\n\n", suffix: "I stand by my answer.\n\n\n"},
			{typ: llm.ContentText, prefix: "To find the sum of the first 50 prime numbers", suffix: "The sum of the first 50 prime numbers is 5117."},
		},
	},
	{
		file: "adk-gemini25flash-parallel-tools.sse", model: "gemini-2.5-flash", version: "gemini-2.5-flash",
		responseID: "ZiS5ae3fFoSAkdUPnfrxqQU", stop: llm.StopToolUse,
		usage: llm.Usage{Input: 171, Output: 131, Reasoning: 77, Total: 302},
		blocks: []block{
			{typ: llm.ContentToolCall, name: "sum", id: "gemini_ZiS5ae3fFoSAkdUPnfrxqQU_0", args: `{"a":2,"b":3}`, sigPrefix: "CmIBvj72+4pAeKnGzc+2"},
			{typ: llm.ContentToolCall, name: "sum", id: "gemini_ZiS5ae3fFoSAkdUPnfrxqQU_1", args: `{"a":4,"b":5}`},
			{typ: llm.ContentToolCall, name: "sum", id: "gemini_ZiS5ae3fFoSAkdUPnfrxqQU_2", args: `{"a":6,"b":7}`},
		},
		extra: `"candidate":{"finishMessage":"Model generated function call(s)."}`,
	},
	{
		file: "adk-gemini25flash-parallel-tools-followup.sse", model: "gemini-2.5-flash", version: "gemini-2.5-flash",
		responseID: "ZyS5aZaqIYSAkdUP_fnxqQU", stop: llm.StopEnd,
		usage:  llm.Usage{Input: 338, Output: 37, Total: 375},
		blocks: []block{{typ: llm.ContentText, prefix: "The sum of 2 and 3 is 5.\nThe sum of 4 and 5 is 9.\nThe sum of 6 and 7 is 13.", suffix: "13."}},
	},
	{
		file: "adk-gemini3flash-parallel-tools.sse", model: "gemini-3-flash-preview", version: "gemini-3-flash-preview",
		responseID: "aiS5abqwJJf7nsEPuIy3wQQ", stop: llm.StopToolUse,
		usage: llm.Usage{Input: 161, Output: 93, Reasoning: 45, Total: 254},
		blocks: []block{
			{typ: llm.ContentToolCall, name: "sum", id: "3ae8iwca", args: `{"b":3,"a":2}`, sigPrefix: "EukBCuYBAb4+9vt/vxxS"},
			{typ: llm.ContentToolCall, name: "sum", id: "up3kf30e", args: `{"a":4,"b":5}`},
			{typ: llm.ContentToolCall, name: "sum", id: "ycroch25", args: `{"b":7,"a":6}`},
		},
	},
	{
		file: "adk-gemini31pro-parallel-tools.sse", model: "gemini-3.1-pro-preview", version: "gemini-3.1-pro-preview",
		responseID: "ciS5aZnUG9KqkdUP5eK_kAY", stop: llm.StopToolUse,
		usage: llm.Usage{Input: 161, Output: 252, Reasoning: 204, Total: 413},
		blocks: []block{
			{typ: llm.ContentToolCall, name: "sum", id: "okz0loqw", args: `{"a":2,"b":3}`, sigPrefix: "EqYGCqMGAb4+9vv52GL4"},
			{typ: llm.ContentToolCall, name: "sum", id: "55jh6i4d", args: `{"b":5,"a":4}`},
			{typ: llm.ContentToolCall, name: "sum", id: "c3oxmvnd", args: `{"a":6,"b":7}`},
		},
	},
	{
		file: "adk-gemini31pro-parallel-tools-followup.sse", model: "gemini-3.1-pro-preview", version: "gemini-3.1-pro-preview",
		responseID: "dSS5ab-cA-vgnsEP8_61wAQ", stop: llm.StopEnd,
		// promptTokenCount grows from 236 to 440 in the last chunk: the last one counts.
		usage: llm.Usage{Input: 440, Output: 114, Reasoning: 75, Total: 554},
		blocks: []block{
			// The signature rode on an empty final text part; it stays on the text.
			{typ: llm.ContentText, prefix: "Here are the results of your additions:\n* 2 + 3 = 5\n* 4 + 5 = 9\n* 6 + 7 = 13", suffix: "6 + 7 = 13", sigPrefix: "EsICCr8CAb4+9vvi0hPd"},
		},
	},
	{
		file: "fantasy-gemini25flash-thinking-tool.sse", model: "gemini-2.5-flash", version: "gemini-2.5-flash",
		responseID: "zwCzaYWfAbnoz7IPmc_m6Q4", stop: llm.StopToolUse,
		usage: llm.Usage{Input: 54, Output: 76, Reasoning: 62, Total: 130},
		blocks: []block{
			{typ: llm.ContentThinking, prefix: "**Determining the Weather Inquiry**", suffix: "easily resolved.\n\n\n"},
			{typ: llm.ContentToolCall, name: "weather", id: "gemini_zwCzaYWfAbnoz7IPmc_m6Q4_0", args: `{"location":"Florence, Italy"}`, sigPrefix: "CiQBvj72+y6VX8BA4jML"},
		},
	},
	{
		file: "fantasy-gemini3pro-parallel-tools.sse", model: "gemini-3-pro-preview", version: "gemini-3.1-pro-preview",
		responseID: "UwCzaaGdI_aEz7IPqoinwQM", stop: llm.StopToolUse,
		usage: llm.Usage{Input: 157, Output: 470, Reasoning: 438, Total: 627},
		blocks: []block{
			{typ: llm.ContentToolCall, name: "add", id: "8hd01vsf", args: `{"a":2,"b":3}`, sigPrefix: "EsINCr8NAb4+9vvezzPl"},
			{typ: llm.ContentToolCall, name: "multiply", id: "k0srpqrc", args: `{"b":3,"a":2}`},
		},
	},
	{
		file: "pai-gemini25pro-thoughts.sse", model: "gemini-2.5-pro", version: "gemini-2.5-pro",
		responseID: "beHBaJfEMIi-qtsP3769-Q8", stop: llm.StopEnd,
		usage: llm.Usage{Input: 34, Output: 1256, Reasoning: 787, Total: 1290},
		blocks: []block{
			{typ: llm.ContentThinking, prefix: "**Clarifying User Goals**", suffix: "regardless of specific circumstances or locations.\n\n\n"},
			{typ: llm.ContentText, prefix: "This is a great question! Safely crossing the street", suffix: "Always assume a driver might not see you.", sigPrefix: "CiIB0e2Kb6Syj1a961Ef"},
		},
	},
}

// TestReplayRecordedStreams replays every recorded stream and checks the
// final message against the hand-written facts and, field by field,
// against an independent reference decoding of the same bytes.
func TestReplayRecordedStreams(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtures, "*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(replayFacts) {
		t.Fatalf("%d recorded streams, %d with facts: every recording needs an entry", len(files), len(replayFacts))
	}
	for _, f := range replayFacts {
		t.Run(strings.TrimSuffix(f.file, ".sse"), func(t *testing.T) {
			raw := readFixture(t, f.file)
			srv := sseServer(t, raw)
			req := &llm.Request{Model: testModel(f.model, srv.URL), Messages: []llm.Message{llm.UserText("hi")}}
			c := New(Options{HTTPClient: srv.Client(), APIKey: staticKey("k-test-1234")})
			r := stream(t, c, req)
			if r.err != nil {
				t.Fatalf("stream failed: %v", r.err)
			}
			last := srv.Last(t)
			path, query := last.Path, last.Query
			if want := "/models/" + f.model + ":streamGenerateContent"; path != want || query != "alt=sse" {
				t.Errorf("request to %s?%s, want %s?alt=sse", path, query, want)
			}
			m := r.msg
			if m.Model != f.version || m.ResponseID != f.responseID || m.StopReason != f.stop {
				t.Errorf("model %q response %q stop %q, want %q %q %q", m.Model, m.ResponseID, m.StopReason, f.version, f.responseID, f.stop)
			}
			if m.Provider != "google" || m.API != llm.APIGemini || m.Role != llm.RoleAssistant {
				t.Errorf("provider %q api %q role %q", m.Provider, m.API, m.Role)
			}
			if diff := cmp.Diff(f.usage, *m.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			checkBlocks(t, m.Content, f.blocks)
			if f.extra != "" && !bytes.Contains(m.Extra, []byte(f.extra)) {
				t.Errorf("Extra %s lacks %s", m.Extra, f.extra)
			}

			want := referenceDecode(t, raw, req)
			if diff := cmp.Diff(want, m, cmpopts.IgnoreFields(llm.Message{}, "Timestamp", "Extra")); diff != "" {
				t.Errorf("message differs from the reference decoding (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(jsonValue(t, want.Extra), jsonValue(t, m.Extra)); diff != "" {
				t.Errorf("Extra differs from the reference decoding (-want +got):\n%s", diff)
			}

			// The events alone rebuild the same message.
			var acc llm.Accumulator
			for _, ev := range r.events[:len(r.events)-1] {
				acc.Add(ev)
			}
			built := acc.Message()
			if diff := cmp.Diff(m.Content, built.Content); diff != "" {
				t.Errorf("accumulated content differs from the final message (-final +accumulated):\n%s", diff)
			}
		})
	}
}

func checkBlocks(t *testing.T, got []llm.Content, want []block) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Type != w.typ {
			t.Errorf("block %d is %q, want %q", i, g.Type, w.typ)
			continue
		}
		if !strings.HasPrefix(g.Text, w.prefix) || !strings.HasSuffix(g.Text, w.suffix) {
			t.Errorf("block %d text %.60q…%q, want %q…%q", i, g.Text, tail(g.Text), w.prefix, w.suffix)
		}
		if g.Name != w.name || g.ID != w.id || string(g.Arguments) != w.args {
			t.Errorf("block %d call %s %s %s, want %s %s %s", i, g.Name, g.ID, g.Arguments, w.name, w.id, w.args)
		}
		if w.sigPrefix == "" && g.Signature != "" || !strings.HasPrefix(g.Signature, w.sigPrefix) {
			t.Errorf("block %d signature %.20q, want prefix %q", i, g.Signature, w.sigPrefix)
		}
	}
}

func tail(s string) string {
	if len(s) > 40 {
		return s[len(s)-40:]
	}
	return s
}

func jsonValue(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", raw, err)
	}
	return v
}

// referenceDecode is a plain, slow decoding of a recorded stream with
// encoding/json, written from the wire format and the merging rules in the
// package doc; the fast decoder must agree with it.
func referenceDecode(t *testing.T, raw []byte, req *llm.Request) llm.Message {
	t.Helper()
	type wirePart struct {
		Text         *string `json:"text"`
		Thought      bool    `json:"thought"`
		Signature    string  `json:"thoughtSignature"`
		FunctionCall *struct {
			Name string          `json:"name"`
			ID   string          `json:"id"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
	}
	type wireChunk struct {
		Candidates []map[string]json.RawMessage `json:"candidates"`
		Usage      map[string]json.RawMessage   `json:"usageMetadata"`
		Model      string                       `json:"modelVersion"`
		ResponseID string                       `json:"responseId"`
	}
	m := llm.Message{Role: llm.RoleAssistant, Provider: req.Model.Provider, API: llm.APIGemini}
	candExtra := map[string]any{}
	usageExtra := map[string]any{}
	counts := map[string]int{}
	open, finish, calls := -1, "", 0
	for _, ev := range strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n\n") {
		ev = strings.TrimSpace(ev)
		if ev == "" {
			continue
		}
		var c wireChunk
		if err := json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &c); err != nil {
			t.Fatalf("reference decoding: %v", err)
		}
		m.Model, m.ResponseID = c.Model, c.ResponseID
		for k, v := range c.Usage {
			var n int
			if json.Unmarshal(v, &n) == nil {
				counts[k] = n
			} else {
				usageExtra[k] = jsonValue(t, v)
			}
		}
		if len(c.Candidates) == 0 {
			continue
		}
		for k, v := range c.Candidates[0] {
			switch k {
			case "content", "index":
			case "finishReason":
				json.Unmarshal(v, &finish)
			default:
				candExtra[k] = jsonValue(t, v)
			}
		}
		var content struct{ Parts []wirePart }
		json.Unmarshal(c.Candidates[0]["content"], &content)
		for _, p := range content.Parts {
			if fc := p.FunctionCall; fc != nil {
				id := fc.ID
				if id == "" {
					id = GeneratedIDPrefix + c.ResponseID + "_" + strconv.Itoa(calls)
				}
				var args bytes.Buffer
				json.Compact(&args, fc.Args)
				m.Content = append(m.Content, llm.Content{Type: llm.ContentToolCall, ID: id, Name: fc.Name, Arguments: args.Bytes(), Signature: p.Signature})
				calls++
				open = -1
				continue
			}
			if p.Text == nil || (*p.Text == "" && p.Signature == "") {
				continue
			}
			typ := llm.ContentText
			if p.Thought {
				typ = llm.ContentThinking
			}
			if open < 0 || m.Content[open].Type != typ || (p.Signature != "" && m.Content[open].Signature != "") {
				m.Content = append(m.Content, llm.Content{Type: typ})
				open = len(m.Content) - 1
			}
			m.Content[open].Text += *p.Text
			if p.Signature != "" {
				m.Content[open].Signature = p.Signature
			}
		}
	}
	u := llm.Usage{
		Input:     counts["promptTokenCount"] - counts["cachedContentTokenCount"],
		Output:    counts["candidatesTokenCount"] + counts["thoughtsTokenCount"],
		CacheRead: counts["cachedContentTokenCount"],
		Reasoning: counts["thoughtsTokenCount"],
	}
	u.Finish(req.Model.Price)
	if u.Total != counts["totalTokenCount"] {
		t.Errorf("usage total %d, the recording says %d", u.Total, counts["totalTokenCount"])
	}
	m.Usage = &u
	switch {
	case finish == "STOP" && calls > 0:
		m.StopReason = llm.StopToolUse
	case finish == "STOP":
		m.StopReason = llm.StopEnd
	default:
		t.Fatalf("recording ends with finishReason %q", finish)
	}
	extra := map[string]any{}
	if len(candExtra) > 0 {
		extra["candidate"] = candExtra
	}
	if len(usageExtra) > 0 {
		extra["usageMetadata"] = usageExtra
	}
	if len(extra) > 0 {
		b, _ := json.Marshal(extra)
		m.Extra = b
	}
	return m
}

// staticKey returns an APIKey option that always yields key.
func staticKey(key string) func(ctx context.Context) (string, error) {
	return func(context.Context) (string, error) { return key, nil }
}
