package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reinhq/rein/llm"
)

// decodeBytes runs the stream decoder d (nil for a new one) over body as
// if it were a reply to req, passing every event to yield.
func decodeBytes(d *decoder, body []byte, req *llm.Request, yield func(llm.Event, error) bool) {
	if d == nil {
		d = &decoder{}
	}
	d.reset("google", nil)
	d.e = llm.NewEmitter(d.wrap(yield), req)
	d.run(context.Background(), bytes.NewReader(body))
}

// FuzzDecode feeds arbitrary bytes to the decoder: it must never panic,
// must always end with exactly one final event, and the final message must
// encode as JSON (every raw value it keeps is valid).
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.sse"))
	for _, file := range files {
		f.Add(readFixture(f, filepath.Base(file)))
	}
	for _, s := range []string{
		"",
		"data: {}\r\n\r\n",
		"data: [DONE]\n\n",
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"a\\u00e9\\ud83d\\ude00\\ud800x\"}]},\"finishReason\": \"STOP\"}]}\n\n",
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"f\", \"args\": [1]}}, {\"executableCode\": {\"code\": \"x\"}}, {\"text\": \"\", \"x\": null}]},\"finishReason\": \"MAX_TOKENS\"}]}\n\n",
		"data: {\"error\": {\"code\": 429, \"status\": \"RESOURCE_EXHAUSTED\", \"details\": [{\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"1s\"}]}}\n\n",
		"data: {\"usageMetadata\": {\"promptTokenCount\": \"12\", \"candidatesTokenCount\": 1.5e3, \"cachedContentTokenCount\": 99999999999}}\n\n",
		"data: {\"promptFeedback\": {\"blockReason\": \"SAFETY\"}}\n\n",
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"x\", \"thought\": true, \"thoughtSignature\": \"s\"}, {\"text\": \"y\", \"thoughtSignature\": \"t\"}]}}]}\n\ndata: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"y\"",
		"data: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\n",
		"data: {\"a\":\"\x01\"}\n\n",
	} {
		f.Add([]byte(s))
	}
	req := &llm.Request{Model: llm.Model{ID: "gemini-2.5-flash", Provider: "google", API: llm.APIGemini, ContextWindow: 1 << 20}}
	// One decoder serves every input, as a Client's pool reuses them: no
	// state may leak from one stream into the next.
	shared := &decoder{}
	f.Fuzz(func(t *testing.T, body []byte) {
		finals, n := 0, 0
		decodeBytes(shared, body, req, func(ev llm.Event, err error) bool {
			n++
			if finals > 0 {
				t.Fatalf("event %q after the final event", ev.Type)
			}
			if n == 1 && ev.Type != llm.EventStart {
				t.Fatalf("first event %q", ev.Type)
			}
			if ev.Final() {
				finals++
				if ev.Message == nil {
					t.Fatal("final event without a message")
				}
				if _, err := json.Marshal(ev.Message); err != nil {
					t.Fatalf("final message does not encode: %v", err)
				}
			} else if err != nil {
				t.Fatalf("error on a %q event", ev.Type)
			}
			return true
		})
		if finals != 1 {
			t.Fatalf("%d final events", finals)
		}
	})
}

// FuzzScanner checks the scanner against encoding/json: it accepts
// exactly the values json.Valid accepts (nesting beyond maxDepth aside),
// and decodes strings as json.Unmarshal does.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{}`, `[1,-0.5e+3,true,false,null]`, `"a\u00e9\ud83d\ude00\n"`, `{"a":{"b":[{}]}}`,
		`"\ud800"`, `"\udc00\ud800x"`, `01`, `1.`, `-`, `"\x01"`, `[1,]`, `{"a" 1}`, ` "x" `, `"\/\b\f\r\t\""`} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`"a long string with \"escapes\" placed past the first eight bytes \u00e9 and more"`))
	f.Add([]byte("\"high bytes \xa2\xdc\xff\x80 then a quote\""))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range len(b) + 1 {
			want := len(b)
			for j := i; j < len(b); j++ {
				if c := b[j]; c < 0x20 || c == '"' || c == '\\' {
					want = j
					break
				}
			}
			if got := nextSpecial(b, i); got != want {
				t.Fatalf("nextSpecial(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
		var s scanner
		s.reset(b)
		s.skip()
		ok := s.err == nil && s.end()
		if s.err != nil && strings.Contains(s.err.Error(), "nesting too deep") {
			return
		}
		if ok != json.Valid(b) {
			t.Fatalf("scanner says valid=%v for %q, json.Valid disagrees", ok, b)
		}
		if !ok || bytes.TrimSpace(b)[0] != '"' {
			return
		}
		s.reset(b)
		got := s.str()
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if string(got) != want && utf8.ValidString(want) && utf8.Valid(got) {
			t.Fatalf("decoded %q as %q, encoding/json gives %q", b, got, want)
		}
	})
}

// FuzzAppendString checks that appendString always writes valid JSON that
// decodes to the input (invalid UTF-8 aside, which becomes U+FFFD).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t cr\r nul\x00 del\x7f", "é😀", "\xff\xfe bad", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("appendString(%q) = %s: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); utf8.ValidString(s) && got != want {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
	})
}
