package session

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUnquote checks that str, whose loop works a word at a time, reads
// strings exactly as encoding/json does whatever their length and
// wherever their escapes fall, and leaves inexact ones to it.
func TestUnquote(t *testing.T) {
	pieces := []string{"a", "b", "é", "漢", "😀", `\n`, `\t`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\u0041`, `\u00e9`,
		`\u2028`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`, "\x01", "\x7f", "\xff", `\x`, `\u12`, `\uzzzz`, " ", "~"}
	rng := rand.New(rand.NewPCG(3, 4))
	var cases []string
	for range 20000 {
		var b strings.Builder
		for n := rng.IntN(24); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	cases = append(cases, "", strings.Repeat("x", 7), strings.Repeat("x", 8), strings.Repeat("y", 33)+`\"`)
	for _, c := range cases {
		for _, after := range []string{"", "}", `,"k":"v"}`} {
			in := []byte(`"` + c + `"` + after)
			var want string
			jerr := json.Unmarshal([]byte(`"`+c+`"`), &want)
			// What encoding/json reads without replacing anything.
			exact := jerr == nil && utf8.ValidString(c) && !loneSurrogate([]byte(`"`+c+`"`))
			var s scanner
			s.Reset(in)
			got, ok := s.str()
			switch {
			case ok && jerr != nil:
				t.Fatalf("%q: read %q, encoding/json fails: %v", in, got, jerr)
			case ok && got != want:
				t.Fatalf("%q: read %q, encoding/json reads %q", in, got, want)
			case ok && s.Offset() != len(c)+2:
				t.Fatalf("%q: ends at %d, want %d", in, s.Offset(), len(c)+2)
			case !ok && exact:
				t.Fatalf("%q: not read, encoding/json reads %q", in, want)
			}
		}
	}
}
