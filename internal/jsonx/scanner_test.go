package jsonx

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestScannerValues(t *testing.T) {
	tests := []struct {
		in   string
		read func(s *Scanner) any
		want any
	}{
		{`"plain"`, func(s *Scanner) any { return string(s.Str()) }, "plain"},
		{` "a\"b\\c\/\n\t\u00e9\ud83d\ude00" `, func(s *Scanner) any { return string(s.Str()) }, "a\"b\\c/\n\té😀"},
		{`"\ud800\u0041"`, func(s *Scanner) any { return string(s.Str()) }, "\uFFFDA"},
		{`"\ude00 lone"`, func(s *Scanner) any { return string(s.Str()) }, "\uFFFD lone"},
		{"\"bad \xff kept\"", func(s *Scanner) any { return string(s.Str()) }, "bad \xff kept"},
		{`""`, func(s *Scanner) any { return s.Str() != nil }, true},
		{`null`, func(s *Scanner) any { return s.StrOrNull() == nil }, true},
		{`-12`, func(s *Scanner) any { return s.Int() }, -12},
		{`9223372036854775807`, func(s *Scanner) any { return s.Int() }, 1<<63 - 1},
		{`-12.5e3`, func(s *Scanner) any { return s.Float() }, -12500.0},
		{` 1.50E+2 `, func(s *Scanner) any { return string(s.Number()) }, "1.50E+2"},
		{`true`, func(s *Scanner) any { return s.Bool() }, true},
		{`false`, func(s *Scanner) any { return s.Bool() }, false},
		{` null `, func(s *Scanner) any { return s.Null() }, true},
		{`{"a":[1,{"b":"}"}],"c":"\\"}`, func(s *Scanner) any { return string(s.Raw()) }, `{"a":[1,{"b":"}"}],"c":"\\"}`},
		{` { "x" : 1 , "y\u0031" : { "z" : "w" } } `, func(s *Scanner) any {
			var keys []string
			s.Object()
			for n := 0; ; n++ {
				k, ok := s.Member(n)
				if !ok {
					break
				}
				keys = append(keys, string(k)+"="+string(s.RawKey()))
				s.Skip()
			}
			return strings.Join(keys, ",")
		}, `x="x",y1="y\u0031"`},
		{`{"a\"b\\":1, "\\" :2}`, func(s *Scanner) any {
			var keys []string
			s.Object()
			for n := 0; ; n++ {
				if _, ok := s.Member(n); !ok {
					break
				}
				keys = append(keys, string(s.RawKey()))
				s.Skip()
			}
			return strings.Join(keys, " ")
		}, `"a\"b\\" "\\"`},
		{`[ 1 , [] , "x" ]`, func(s *Scanner) any {
			var els []string
			s.Array()
			for n := 0; s.Element(n); n++ {
				els = append(els, string(s.Raw()))
			}
			return strings.Join(els, "|")
		}, `1|[]|"x"`},
		{`[]`, func(s *Scanner) any {
			s.Array()
			return s.Element(0)
		}, false},
		{` null `, func(s *Scanner) any { return s.Object() }, false},
		{`null`, func(s *Scanner) any { return s.Array() }, false},
		{`0`, func(s *Scanner) any { return string(s.Number()) }, "0"},
		{`123456789012`, func(s *Scanner) any { return s.Int() }, 123456789012},
		{`[7,-8,90]`, func(s *Scanner) any {
			var sum int
			s.Array()
			for n := 0; s.Element(n); n++ {
				sum = sum*100 + s.Int()
			}
			return sum
		}, 7*10000 - 8*100 + 90},
	}
	for _, tt := range tests {
		for _, lenient := range []bool{false, true} {
			s := Scanner{Lenient: lenient}
			s.Reset([]byte(tt.in))
			got := tt.read(&s)
			if err := s.End(); err != nil || !cmp.Equal(got, tt.want) {
				t.Errorf("%s (lenient %v): got %#v, %v; want %#v", tt.in, lenient, got, err, tt.want)
			}
		}
	}
}

func TestScannerErrors(t *testing.T) {
	tests := []struct {
		in     string
		read   func(s *Scanner)
		msg    string
		offset int
	}{
		{`{"a":1`, walkAll, "expected ',' or '}' after an object member", 6},
		{`{"a" 1}`, walkAll, "expected ':' after an object key", 5},
		{`{"a":1,}`, walkAll, "expected a member name", 7},
		{`{a:1}`, walkAll, "expected a member name", 1},
		{`[1,2`, walkAll, "expected ',' or ']' after an array element", 4},
		{`[1,]`, walkAll, "expected a value", 3},
		{`"abc`, walkAll, "unexpected end of input", 4},
		{`"a\x"`, walkAll, "invalid escape in string", 2},
		{`"\u12"`, walkAll, "invalid escape in string", 1},
		{"\"a\tb\"", walkAll, "control character in string", 2},
		{`{"a":tru}`, walkAll, "invalid literal", 5},
		{`{"a":1}}`, walkAll, "unexpected data after the value", 7},
		{`01`, walkAll, "unexpected data after the value", 1},
		{`-`, walkAll, "invalid number", 1},
		{`1.e5`, walkAll, "invalid number", 2},
		{`{"a":[}`, func(s *Scanner) { s.Skip() }, "expected a value", 6},
		{`null`, func(s *Scanner) { s.Str() }, "expected a string", 0},
		{`1`, func(s *Scanner) { s.StrOrNull() }, "expected a string", 0},
		{`nul`, func(s *Scanner) { s.Object() }, "invalid literal", 0},
		{`01`, func(s *Scanner) { s.Int() }, "unexpected data after the value", 1},
		{`1.5e`, func(s *Scanner) { s.Number() }, "invalid number", 4},
		{`"x"`, func(s *Scanner) { s.Object() }, "expected an object", 0},
		{`{}`, func(s *Scanner) { s.Array() }, "expected an array", 0},
		{`1.5`, func(s *Scanner) { s.Int() }, "expected an integer", 0},
		{` 99999999999999999999`, func(s *Scanner) { s.Int() }, "integer out of range", 1},
		{`1e999`, func(s *Scanner) { s.Float() }, "number out of range", 0},
		{`"1"`, func(s *Scanner) { s.Number() }, "expected a number", 0},
		{`null`, func(s *Scanner) { s.Bool() }, "expected true or false", 0},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), func(s *Scanner) { s.Skip() }, "nesting too deep", MaxDepth},
		{`{"a":1}`, func(s *Scanner) {
			s.Object()
			s.Member(0)
			s.Fail("mine")
			s.Fail("not recorded")
		}, "mine", 5},
	}
	for _, tt := range tests {
		var s Scanner
		s.Reset([]byte(tt.in))
		tt.read(&s)
		err := s.End()
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != tt.msg || se.Offset != tt.offset {
			t.Errorf("%q: error %v, want %q at offset %d", tt.in, err, tt.msg, tt.offset)
			continue
		}
		if s.Peek() != 0 || s.Str() != nil || s.Int() != 0 || s.Raw() != nil {
			t.Errorf("%q: readers return values after an error", tt.in)
		}
		if want := "invalid JSON: " + tt.msg; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: message %q, want it to start with %q", tt.in, err, want)
		}
	}
}

func walkAll(s *Scanner) { walk(s) }

func TestLenient(t *testing.T) {
	for _, tt := range []struct {
		in, skipped string // skipped is what Raw returns, "" when rejected
	}{
		{"\"tab\there\"", "\"tab\there\""},
		{`{"a" "b"}`, `{"a" "b"}`},
		{`[1 2 3]`, `[1 2 3]`},
		{`1e+-5`, `1e+-5`},
		{`"\q"`, `"\q"`},
		{`[1}`, ""},
		{`{"a":"b`, ""},
		{`tru`, ""},
		{`1x`, ""},
		{`.5`, ""},
		{`,`, ""},
	} {
		s := Scanner{Lenient: true}
		s.Reset([]byte(tt.in))
		raw := s.Raw()
		if string(raw) != tt.skipped || (tt.skipped == "") != (s.Err() != nil) {
			t.Errorf("lenient Raw(%q) = %q, %v; want %q", tt.in, raw, s.Err(), tt.skipped)
		}
	}
	s := Scanner{Lenient: true}
	s.Reset([]byte("\"a\x01\\n\""))
	if got := s.Str(); string(got) != "a\x01\n" || s.End() != nil {
		t.Errorf("lenient Str = %q, %v", got, s.Err())
	}
	s.Reset([]byte(`"\x"`))
	if s.Str(); s.Err() == nil {
		t.Error("lenient Str accepted an invalid escape")
	}
}

func TestStringsLiveUntilReset(t *testing.T) {
	in := []byte(`["a\nb","plain","c\td"]`)
	var s Scanner
	s.Reset(in)
	var got [][]byte
	var escaped []bool
	s.Array()
	for n := 0; s.Element(n); n++ {
		got = append(got, s.Str())
		escaped = append(escaped, s.Escaped())
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a\nb", "plain", "c\td"}, []string{string(got[0]), string(got[1]), string(got[2])}); diff != "" {
		t.Fatalf("strings (-want +got):\n%s", diff)
	}
	if !cmp.Equal(escaped, []bool{true, false, true}) {
		t.Errorf("Escaped = %v", escaped)
	}
	if &got[1][0] != &in[9] {
		t.Error("a string without escapes does not alias the input")
	}
	for _, g := range got {
		if cap(g) != len(g) {
			t.Errorf("%q has room to grow into memory it does not own", g)
		}
	}
}

func TestOffsets(t *testing.T) {
	in := []byte(`{"a": {"b": 1}, "c": 2}`)
	var s Scanner
	s.Reset(in)
	s.Object()
	s.Member(0)
	s.Peek()
	start := s.Offset()
	s.Skip()
	if got := string(s.Input()[start:s.Offset()]); got != `{"b": 1}` {
		t.Fatalf("span %q", got)
	}
	mark := s.Offset()
	if k, _ := s.Member(1); string(k) != "c" || s.Int() != 2 {
		t.Fatal("second member")
	}
	s.SetOffset(mark)
	if k, _ := s.Member(1); string(k) != "c" || s.Int() != 2 {
		t.Fatal("second member read again")
	}
	if _, ok := s.Member(2); ok || s.End() != nil {
		t.Fatalf("end: %v", s.Err())
	}
}

func TestQuoteOrBackslash(t *testing.T) {
	naive := func(b []byte) int {
		for i, c := range b {
			if c == '"' || c == '\\' {
				return i
			}
		}
		return -1
	}
	base := []byte(strings.Repeat("aé\x80\xff", 20)) // multi-byte and high bytes
	for n := 0; n <= len(base); n++ {
		for _, mark := range []byte{'"', '\\', 0} {
			b := append([]byte(nil), base[:n]...)
			if mark != 0 {
				b = append(b, mark, '"')
			}
			if got, want := quoteOrBackslash(string(b)), naive(b); got != want {
				t.Fatalf("quoteOrBackslash(%q) = %d, want %d", b, got, want)
			}
		}
	}
}

// naiveSkipQuoted is skipQuoted byte by byte.
func naiveSkipQuoted(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(b), false
}

func TestSkipQuoted(t *testing.T) {
	for _, unit := range []string{`a`, `\"`, `\\`, `\\\"`, `\n`, "\xff", `\\"`} {
		for n := 0; n < 60; n++ {
			b := []byte(`"` + strings.Repeat("x", n) + strings.Repeat(unit, 1+n%7) + `"` + `, "next"`)
			end, ok := skipQuoted(string(b), 0)
			wend, wok := naiveSkipQuoted(b, 0)
			if end != wend || ok != wok {
				t.Fatalf("skipQuoted(%q) = %d %v, want %d %v", b, end, ok, wend, wok)
			}
		}
	}
}
