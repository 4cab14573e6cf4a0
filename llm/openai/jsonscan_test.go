package openai

import (
	"strings"
	"testing"

	"github.com/reinhq/rein/internal/jsonx"
)

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
		{`{"a":[1,{"b":"}"}],"c":"\\"}`, func(s *scanner) any { return string(s.Raw()) }, `{"a":[1,{"b":"}"}],"c":"\\"}`},
		{`{"x":1,"y":{"z":"w"}}`, func(s *scanner) any {
			var keys []string
			s.object(func(k []byte) { keys = append(keys, string(k)); s.Skip() })
			return strings.Join(keys, ",")
		}, "x,y"},
	}
	for _, tt := range tests {
		var s scanner
		s.reset([]byte(tt.in))
		got := tt.read(&s)
		if err := s.End(); err != nil || got != tt.want {
			t.Errorf("%s: got %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
}

func TestScannerRejectsMalformedInput(t *testing.T) {
	for _, in := range []string{
		`{"a":1`, `{"a" 1}`, `{"a":1,}`, `{a:1}`, `[1,2`, `"abc`, `"\x"`, `"\u12"`, `{"a":tru}`,
		`{"a":1}}`, `{"a":[}`, `{"a":"b"]`, strings.Repeat("[", jsonx.MaxDepth+1) + strings.Repeat("]", jsonx.MaxDepth+1),
	} {
		var s scanner
		s.reset([]byte(in))
		s.object(func([]byte) { s.Skip() })
		if s.End() == nil {
			t.Errorf("%q was accepted", in)
		}
	}
}
