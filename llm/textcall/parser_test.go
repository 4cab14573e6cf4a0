package textcall

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seg is a segment in a compact form for comparisons.
type seg struct {
	Kind    Kind
	Text    string
	Name    string
	Args    string
	Problem bool
}

func collect(p *Parser, chunks []string) []seg {
	var out []seg
	add := func(ss []Segment) {
		for _, s := range ss {
			if n := len(out); n > 0 && s.Kind != KindCall && out[n-1].Kind == s.Kind {
				out[n-1].Text += s.Text
				continue
			}
			g := seg{Kind: s.Kind, Text: s.Text, Name: s.Name, Problem: s.Problem != ""}
			if s.Kind == KindCall {
				g.Args = compactJSON(s.Args)
			}
			out = append(out, g)
		}
	}
	for _, c := range chunks {
		add(p.Feed(c))
	}
	add(p.Flush())
	return out
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func text(s string) seg  { return seg{Kind: KindText, Text: s} }
func think(s string) seg { return seg{Kind: KindThinking, Text: s} }
func call(name, args string) seg {
	return seg{Kind: KindCall, Name: name, Args: args}
}

var known = map[string]bool{"read": true, "ls": true, "bash": true, "write": true}

type parserCase struct {
	name   string
	in     string
	strict bool
	want   []seg
}

var parserCases = []parserCase{
	{name: "plain text", in: "Hello, world.\nNo calls here.", want: []seg{text("Hello, world.\nNo calls here.")}},
	{name: "one call", in: "Let me look.\n<tool_call>\n{\"name\": \"ls\", \"arguments\": {\"path\": \".\"}}\n</tool_call>",
		want: []seg{text("Let me look.\n"), call("ls", `{"path":"."}`)}},
	{name: "think then calls", in: "<think>I should list, then read.</think>\n\n<tool_call>{\"name\":\"ls\",\"arguments\":{}}</tool_call>\n<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"a.go\"}}</tool_call>",
		want: []seg{think("I should list, then read."), text("\n\n"), call("ls", `{}`), text("\n"), call("read", `{"path":"a.go"}`)}},
	{name: "arguments as a string", in: `<tool_call>{"name": "bash", "arguments": "{\"command\": \"go test\"}"}</tool_call>`,
		want: []seg{call("bash", `{"command":"go test"}`)}},
	{name: "parameters and function forms", in: `<tool_call>{"name": "ls", "parameters": {"path": "x"}}</tool_call><tool_call>{"type":"function","function":{"name":"read","arguments":{"path":"y"}}}</tool_call>`,
		want: []seg{call("ls", `{"path":"x"}`), call("read", `{"path":"y"}`)}},
	{name: "closing tag inside a string", in: `<tool_call>{"name":"write","arguments":{"path":"t.xml","content":"<tool_call>x</tool_call>"}}</tool_call>done`,
		want: []seg{call("write", `{"content":"<tool_call>x</tool_call>","path":"t.xml"}`), text("done")}},
	{name: "nested opening tags", in: "<tool_call><tool_call>{\"name\":\"ls\",\"arguments\":{}}</tool_call></tool_call>ok",
		want: []seg{call("ls", `{}`), text("ok")}},
	{name: "unclosed call followed by another", in: "<tool_call>{\"name\":\"ls\",\"arguments\":{}}\n<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"b\"}}</tool_call>",
		want: []seg{call("ls", `{}`), call("read", `{"path":"b"}`)}},
	{name: "unterminated but complete", in: "<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n",
		want: []seg{call("ls", `{}`)}},
	{name: "unterminated and cut", in: "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.g",
		want: []seg{{Kind: KindCall, Name: "read", Args: `"{\"name\": \"read\", \"arguments\": {\"path\": \"a.g"`, Problem: true}}},
	{name: "bad JSON", in: "<tool_call>{name: ls}</tool_call>",
		want: []seg{{Kind: KindCall, Name: "invalid_tool_call", Args: `"{name: ls}"`, Problem: true}}},
	{name: "example in an xml fence", in: "Call it like this:\n```xml\n<tool_call>{\"name\":\"ls\",\"arguments\":{}}</tool_call>\n```\nThat is all.",
		want: []seg{text("Call it like this:\n```xml\n<tool_call>{\"name\":\"ls\",\"arguments\":{}}</tool_call>\n```\nThat is all.")}},
	{name: "json fence as the call", in: "I'll read it.\n```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"go.mod\"}}\n```\n",
		want: []seg{text("I'll read it.\n"), call("read", `{"path":"go.mod"}`)}},
	{name: "json fence as an example", in: "A call looks like:\n```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"go.mod\"}}\n```\nand then you wait.",
		want: []seg{text("A call looks like:\n```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"go.mod\"}}\n```\nand then you wait.")}},
	{name: "json fence with an array", in: "```json\n[{\"name\":\"ls\",\"arguments\":{}},{\"name\":\"read\",\"arguments\":{\"path\":\"a\"}}]\n```",
		want: []seg{call("ls", `{}`), call("read", `{"path":"a"}`)}},
	{name: "json fence of data", in: "```json\n{\"a\": 1}\n```\n", want: []seg{text("```json\n{\"a\": 1}\n```\n")}},
	{name: "go fence with a think tag", in: "```go\ns := \"<think>\"\n```\n", want: []seg{text("```go\ns := \"<think>\"\n```\n")}},
	{name: "inline backticks and angle brackets", in: "Use `a < b` and <b>bold</b>, x<tool y.", want: []seg{text("Use `a < b` and <b>bold</b>, x<tool y.")}},
	{name: "stray closing tags", in: "</think>answer</tool_call>", want: []seg{text("answer")}},
	{name: "unclosed think", in: "<think>still thinking", want: []seg{think("still thinking")}},
	{name: "qwen2.5-coder tools tag", in: "<tools>\n{\"name\": \"read\", \"arguments\": {\"path\": \"main.go\"}}\n</tools>",
		want: []seg{call("read", `{"path":"main.go"}`)}},
	{name: "qwen3-coder xml call", in: "I'll run the tests.\n<tool_call>\n<function=bash>\n<parameter=command>\necho \"a <b>\" && go test ./...\n</parameter>\n<parameter=timeout>\n60\n</parameter>\n</function>\n</tool_call>",
		want: []seg{text("I'll run the tests.\n"), call("bash", `{"command":"echo \"a <b>\" && go test ./...","timeout":60}`)}},
	{name: "xml call not closed", in: "<tool_call><function=ls><parameter=path>.</parameter></tool_call>",
		want: []seg{{Kind: KindCall, Name: "invalid_tool_call", Args: `"<function=ls><parameter=path>.</parameter>"`, Problem: true}}},
	{name: "strict: unknown tool stays text", strict: true, in: "<tool_call>{\"name\":\"deploy\",\"arguments\":{}}</tool_call>",
		want: []seg{text("<tool_call>{\"name\":\"deploy\",\"arguments\":{}}</tool_call>")}},
	{name: "strict: malformed stays text", strict: true, in: "x <tool_call>{\"name\":\"ls\",</tool_call>",
		want: []seg{text("x <tool_call>{\"name\":\"ls\",</tool_call>")}},
	{name: "strict: known call", strict: true, in: "<tool_call>{\"name\":\"ls\",\"arguments\":{\"path\":\"/\"}}</tool_call>",
		want: []seg{call("ls", `{"path":"/"}`)}},
}

func newParser(strict bool) *Parser {
	return &Parser{Known: func(n string) bool { return known[n] }, Strict: strict, Types: func(tool, param string) string {
		if param == "timeout" {
			return "integer"
		}
		return "string"
	}}
}

func TestParser(t *testing.T) {
	for _, tc := range parserCases {
		t.Run(tc.name, func(t *testing.T) {
			got := collect(newParser(tc.strict), []string{tc.in})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("whole (-want +got):\n%s", diff)
			}
			// Split in two at every byte.
			for i := 1; i < len(tc.in); i++ {
				got := collect(newParser(tc.strict), []string{tc.in[:i], tc.in[i:]})
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Fatalf("split at %d %q|%q (-want +got):\n%s", i, tc.in[:i], tc.in[i:], diff)
				}
			}
			// One byte at a time.
			chunks := strings.Split(tc.in, "")
			if diff := cmp.Diff(tc.want, collect(newParser(tc.strict), chunks)); diff != "" {
				t.Fatalf("byte by byte (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParser(f *testing.F) {
	for _, tc := range parserCases {
		f.Add(tc.in, 7)
	}
	f.Fuzz(func(t *testing.T, in string, split int) {
		whole := collect(newParser(false), []string{in})
		if split <= 0 {
			split = 1
		}
		var chunks []string
		for i := 0; i < len(in); i += split {
			chunks = append(chunks, in[i:min(len(in), i+split)])
		}
		if diff := cmp.Diff(whole, collect(newParser(false), chunks)); diff != "" {
			t.Fatalf("chunking changed the result (-whole +chunked):\n%s", diff)
		}
		var visible int
		for _, s := range whole {
			if s.Kind == KindCall && !json.Valid([]byte(s.Args)) {
				t.Fatalf("call with invalid JSON arguments: %+v", s)
			}
			visible += len(s.Text)
		}
		if visible > len(in) {
			t.Fatalf("more text out (%d) than in (%d)", visible, len(in))
		}
	})
}

// TestChunkingDoesNotMatter replays inputs on which the parsed text once
// depended on how the stream was cut: a fence indented by blanks sent in
// an earlier piece, and a closing fence line with an info string cut
// before its line break.
func TestChunkingDoesNotMatter(t *testing.T) {
	for _, in := range []string{
		" ```json\n</tool_call>``` [",
		"]\n```json]<parameter=[\n```json\n<</tools><parameter=/</function>",
		"  ```json\n{\"name\":\"ls\",\"arguments\":{}}\n  ```\n",
		"```text\n<tool_call>\n```json\n<tool_call>{\"name\":\"ls\",\"arguments\":{}}</tool_call>",
	} {
		whole := collect(newParser(false), []string{in})
		for split := 1; split < len(in); split++ {
			var chunks []string
			for i := 0; i < len(in); i += split {
				chunks = append(chunks, in[i:min(len(in), i+split)])
			}
			if diff := cmp.Diff(whole, collect(newParser(false), chunks)); diff != "" {
				t.Fatalf("%q cut every %d bytes (-whole +chunked):\n%s", in, split, diff)
			}
		}
	}
}
