package jsonread

import "testing"

func TestString(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`"plain"`, "plain", true},
		{`"a\nb \u00e9 \"q\""`, "a\nb é \"q\"", true},
		{`""`, "", true},
		{`12`, "", false},
		{`"unterminated`, "", false},
		{`"bad \x escape"`, "", false},
		{"\"\xff\"", "\xff", true}, // invalid UTF-8 is kept
	} {
		got, ok := String([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("String(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDecoderReadsInPlaceAndPools(t *testing.T) {
	for range 3 {
		d := Get([]byte(`{"a": [1, 2], "b": "x"}`))
		v, err := d.Dec.ReadValue()
		if err != nil || string(v) != `{"a": [1, 2], "b": "x"}` {
			t.Fatalf("ReadValue = %s, %v", v, err)
		}
		d.Free()
	}
}
