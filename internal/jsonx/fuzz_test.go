package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walk reads the value at the cursor with s and builds what
// json.Unmarshal into an any builds; ok is false when s failed.
func walk(s *Scanner) any {
	switch s.Peek() {
	case '{':
		s.Object()
		m := map[string]any{}
		for n := 0; ; n++ {
			k, ok := s.Member(n)
			if !ok {
				break
			}
			key := Text(k)
			if raw, ok := String(s.RawKey()); !s.Lenient && (!ok || raw != key) {
				panic("RawKey " + string(s.RawKey()) + " does not decode to the name " + key)
			}
			m[key] = walk(s)
		}
		return m
	case '[':
		s.Array()
		a := []any{}
		for n := 0; s.Element(n); n++ {
			a = append(a, walk(s))
		}
		return a
	case '"':
		return Text(s.Str())
	case 't', 'f':
		return s.Bool()
	case 'n':
		s.Null()
		return nil
	}
	return s.Float()
}

// deep reports whether b may nest deeper than MaxDepth.
func deep(b []byte) bool { return bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) >= MaxDepth }

// FuzzScanner checks the scanner and the functions against encoding/json
// on any input: they accept what json.Valid accepts and read the values
// json.Unmarshal reads. A Lenient scanner reads valid JSON the same way.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{}`, `[1,-0.5e+3,true,false,null]`, `"a\u00e9\ud83d\ude00\n"`, `{"a":{"b":[{}]}}`, `"\ud800"`,
		`"\udc00\ud800x"`, `01`, `1.`, `-`, `"\x01"`, `[1,]`, `{"a" 1}`, ` "x" `, `"\/\b\f\r\t\""`,
		`{"a":[1,"x",{"b":null}]}`, `{"a":1,}`, "\"\xff\"", `"\u00"`, `{"a\u0062":1,"ab":2}`, `1e400`,
		`-9223372036854775808`, `9223372036854775808`, `[1 2]`, `{"a":1}{`, `"\ud83d\u0041"`, "\"caf\xc3\xa9\"",
		`"a long string with \"escapes\" placed past the first eight bytes \u00e9 and more"`,
		"\"high bytes \xa2\xdc\xff\x80 then a quote\"", `{"k":"` + strings.Repeat(`x\n`, 40) + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range min(len(b), 64) + 1 {
			want := len(b)
			for j := i; j < len(b); j++ {
				if c := b[j]; c < 0x20 || c == '"' || c == '\\' {
					want = j
					break
				}
			}
			if got := nextSpecial(string(b), i); got != want {
				t.Fatalf("nextSpecial(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
		if got, want := quoteOrBackslash(string(b)), bytes.IndexAny(b, `"\`); got != want {
			t.Fatalf("quoteOrBackslash(%q) = %d, want %d", b, got, want)
		}
		if len(b) > 0 && b[0] == '"' {
			end, ok := skipQuoted(string(b), 0)
			if wend, wok := naiveSkipQuoted(b, 0); end != wend || ok != wok {
				t.Fatalf("skipQuoted(%q) = %d %v, want %d %v", b, end, ok, wend, wok)
			}
		}
		if deep(b) {
			return
		}
		valid := json.Valid(b)
		if Valid(b) != valid || Valid(string(b)) != valid {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, !valid, valid)
		}
		var s Scanner
		s.Reset(b)
		s.Skip()
		if err := s.End(); (err == nil) != valid {
			t.Fatalf("Skip+End(%q) = %v, json.Valid says %v", b, err, valid)
		} else if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(b) {
				t.Fatalf("error %v is not a *SyntaxError within the input", err)
			}
		}
		if !valid {
			var lenient Scanner
			lenient.Lenient = true
			lenient.Reset(b)
			_ = walk(&lenient) // must not panic
			return
		}
		var want any
		jerr := json.Unmarshal(b, &want)
		for _, lenient := range []bool{false, true} {
			s := Scanner{Lenient: lenient}
			s.Reset(b)
			got := walk(&s)
			if err := s.End(); (err == nil) != (jerr == nil) {
				t.Fatalf("lenient=%v: walking %q: %v, encoding/json: %v", lenient, b, err, jerr)
			}
			if jerr == nil {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("lenient=%v: %q read differently (-encoding/json +scanner):\n%s", lenient, b, diff)
				}
			}
			s.Reset(b)
			if raw := s.Raw(); !bytes.Equal(raw, bytes.TrimSpace(b)) {
				t.Fatalf("lenient=%v: Raw(%q) = %q", lenient, b, raw)
			}
		}
		trimmed := bytes.TrimSpace(b)
		switch c := trimmed[0]; {
		case c == '"':
			got, ok := String(trimmed)
			if !ok || got != want {
				t.Fatalf("String(%q) = %q %v, want %q", trimmed, got, ok, want)
			}
		case c == '-' || '0' <= c && c <= '9':
			var n int64
			nerr := json.Unmarshal(b, &n)
			s.Reset(b)
			got := s.Int()
			if (s.Err() == nil) != (nerr == nil) || got != int(n) {
				t.Fatalf("Int(%q) = %d, %v; encoding/json: %d, %v", b, got, s.Err(), n, nerr)
			}
		case c == '{':
			m := want.(map[string]any)
			n := 0
			if !Members(b, func(k, v []byte) bool { n++; return true }) {
				t.Fatalf("Members rejected %q", b)
			}
			if n < len(m) {
				t.Fatalf("Members saw %d members, want at least %d", n, len(m))
			}
		}
	})
}

// FuzzAppendString checks the writer against encoding/json: the output is
// valid JSON that decodes to what encoding/json's own encoding of s
// decodes to, and it is byte for byte encoding/json's output without
// HTML escaping, up to the documented differences.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x01\x1f\x7f", "<&>", "é漢😀", "\xff\xc3", "\xed\xa0\x80",
		"\u2028\u2029", "tab\there\r\n", "\b\f", "long plain ascii text that crosses several words \\ and \"quotes\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString([]byte("prefix"), s)
		if !bytes.HasPrefix(out, []byte("prefix")) {
			t.Fatalf("AppendString lost the buffer's content: %q", out)
		}
		out = out[len("prefix"):]
		var got string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("AppendString(%q) = %s: %v", s, out, err)
		}
		if want := Text([]byte(s)); got != want {
			t.Fatalf("AppendString(%q) decodes to %q, want %q", s, got, want)
		}
		var std bytes.Buffer
		enc := json.NewEncoder(&std)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if want := normalize(bytes.TrimSuffix(std.Bytes(), []byte("\n"))); string(out) != want {
			t.Fatalf("AppendString(%q) = %s, encoding/json (normalised) %s", s, out, want)
		}
	})
}

// normalize rewrites encoding/json's string encoding into AppendString's:
// \b and \f as \u0008 and \u000c, U+2028 and U+2029 unescaped.
func normalize(enc []byte) string {
	var out strings.Builder
	for i := 0; i < len(enc); i++ {
		if enc[i] != '\\' {
			out.WriteByte(enc[i])
			continue
		}
		switch e := enc[i+1]; {
		case e == 'b':
			out.WriteString(`\u0008`)
		case e == 'f':
			out.WriteString(`\u000c`)
		case e == 'u' && (string(enc[i+2:i+6]) == "2028" || string(enc[i+2:i+6]) == "2029"):
			n, _ := strconv.ParseUint(string(enc[i+2:i+6]), 16, 32)
			out.WriteString(string(rune(n)))
			i += 4
		default:
			out.Write(enc[i : i+2])
		}
		i++
	}
	return out.String()
}

// FuzzValidVariants checks that the readers for known-valid input agree
// with the checking ones on valid input and never panic on any input.
func FuzzValidVariants(f *testing.F) {
	for _, s := range []string{`{"a":[1,"]"],"b":{"c":"\\\""}}`, `[{"x":1},"y"]`, `{"a":"\u0041"}`, `{"a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		var fast []string
		MembersValid(b, func(k, v []byte) bool { fast = append(fast, string(k)+"="+string(v)); return true })
		ElementsValid(b, func(v []byte) bool { return true })
		StringValid(b)
		if !Valid(s) {
			return
		}
		var slow []string
		Members(b, func(k, v []byte) bool { slow = append(slow, string(k)+"="+string(v)); return true })
		if b[SkipSpace(b, 0)] == '{' && !cmp.Equal(slow, fast) {
			t.Fatalf("%q: Members %q, MembersValid %q", s, slow, fast)
		}
		if str, ok := String(bytes.TrimSpace(b)); ok {
			if got, _ := StringValid(bytes.TrimSpace(b)); got != str {
				t.Fatalf("%q: String %q, StringValid %q", s, str, got)
			}
		}
	})
}
