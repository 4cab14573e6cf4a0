package openai

import (
	"strings"
	"testing"
)

func TestQuoteOrBackslash(t *testing.T) {
	naive := func(b []byte) int {
		for i, c := range b {
			if c == '"' || c == '\\' {
				return i
			}
		}
		return -1
	}
	base := []byte(strings.Repeat("aé\x80\xff", 10)) // multi-byte and high bytes
	for n := 0; n <= len(base); n++ {
		for _, mark := range []byte{'"', '\\', 0} {
			b := append([]byte(nil), base[:n]...)
			if mark != 0 {
				b = append(b, mark, '"')
			}
			if got, want := quoteOrBackslash(b), naive(b); got != want {
				t.Fatalf("quoteOrBackslash(%q) = %d, want %d", b, got, want)
			}
		}
	}
}

func TestScannerValues(t *testing.T) {
	tests := []struct {
		in   string
		read func(s *scanner) any
		want any
	}{
		{`"plain"`, func(s *scanner) any { return s.str() }, "plain"},
		{` "a\"b\\c\/\n\t\u00e9\ud83d\ude00" `, func(s *scanner) any { return s.str() }, "a\"b\\c/\n\té😀"},
		{`"\ud800\u0041"`, func(s *scanner) any { return s.str() }, "\uFFFDA"},
		{`null`, func(s *scanner) any { return s.str() }, ""},
		{`-12.5e3`, func(s *scanner) any { return s.num() }, -12},
		{`"42"`, func(s *scanner) any { return s.num() }, 42},
		{`true`, func(s *scanner) any { return s.boolean() }, true},
		{`{"a":[1,{"b":"}"}],"c":"\\"}`, func(s *scanner) any { return string(s.raw()) }, `{"a":[1,{"b":"}"}],"c":"\\"}`},
		{`{"x":1,"y":{"z":"w"}}`, func(s *scanner) any {
			var keys []string
			s.object(func(k []byte) { keys = append(keys, string(k)); s.skip() })
			return strings.Join(keys, ",")
		}, "x,y"},
	}
	for _, tt := range tests {
		var s scanner
		s.reset([]byte(tt.in))
		got := tt.read(&s)
		if err := s.end(); err != nil || got != tt.want {
			t.Errorf("%s: got %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
}

func TestScannerRejectsMalformedInput(t *testing.T) {
	for _, in := range []string{
		`{"a":1`, `{"a" 1}`, `{"a":1,}`, `{a:1}`, `[1,2`, `"abc`, `"\x"`, `"\u12"`, `{"a":tru}`,
		`{"a":1}}`, `{"a":[}`, `{"a":"b"]`, strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	} {
		var s scanner
		s.reset([]byte(in))
		s.object(func([]byte) { s.skip() })
		if s.end() == nil {
			t.Errorf("%q was accepted", in)
		}
	}
}
