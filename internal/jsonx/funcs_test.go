package jsonx

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `true`, `null`, ` {"a" : [1, "x", {"b": null}] } `,
		`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `nul`, `"a`, `"\q"`, `"\u12"`, "\"a\tb\"",
		`{"a"}`, `{"a":}`, `{a:1}`, `[1 2]`, `{"a":1}{`, `"\ud83d\ude00"`, `"\u00e9"`, ``, ` `, `{"a":{"b":[[]]}}`,
	} {
		if got, want := Valid(s), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{
		`"plain"`, `"a\nb\t\"q\"\\\/"`, `"\u00e9t\u00E9"`, `"\ud83d\ude00 smile"`, `"\ud83d alone"`, `"\ude00"`,
		`"\ud83d\u0041"`, "\"caf\xc3\xa9\"", "\"bad \xff byte\"", `"\b\f\r"`, `""`,
	} {
		got, ok := String([]byte(s))
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if !ok || got != want {
			t.Errorf("String(%s) = %q %v, want %q", s, got, ok, want)
		}
	}
	for _, bad := range []string{`"x`, `x`, `"\x"`, ` "x"`, `"a"b"`} {
		if _, ok := String([]byte(bad)); ok {
			t.Errorf("String(%s) accepted", bad)
		}
	}
}

func TestMembersAndElements(t *testing.T) {
	obj := []byte(` {"a": 1, "b\"c": {"x": [1,2]}, "d": "s"} `)
	var keys, vals []string
	ok := Members(obj, func(k, v []byte) bool { keys, vals = append(keys, string(k)), append(vals, string(v)); return true })
	if !ok || !cmp.Equal(keys, []string{"a", `b\"c`, "d"}) || !cmp.Equal(vals, []string{"1", `{"x": [1,2]}`, `"s"`}) {
		t.Fatalf("Members = %v %q %q", ok, keys, vals)
	}
	if v, ok := Field(obj, "d"); !ok || string(v) != `"s"` {
		t.Fatalf("Field = %q %v", v, ok)
	}
	var els []string
	if !Elements([]byte(`[1, {"a":[]}, "x" ]`), func(v []byte) bool { els = append(els, string(v)); return true }) ||
		!cmp.Equal(els, []string{"1", `{"a":[]}`, `"x"`}) {
		t.Fatalf("Elements = %q", els)
	}
	for _, bad := range []string{`{"a":1,}`, `{"a":1} x`, `{`, `[`, `{"a" 1}`, `[1,,2]`, `{"a":1 "b":2}`} {
		if Members([]byte(bad), func(k, v []byte) bool { return true }) && Elements([]byte(bad), func([]byte) bool { return true }) {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+5) + strings.Repeat("]", MaxDepth+5)
	if Valid(deep) {
		t.Fatal("accepted nesting beyond MaxDepth")
	}
	ok := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if !Valid(ok) {
		t.Fatal("rejected moderate nesting")
	}
}

func TestValidVariantsAgree(t *testing.T) {
	for _, s := range []string{
		`{"a":1,"b":"x\"y\\\\","c":[1,{"d":"]}"}],"e":{}}`, `{}`, `{"k":"\u00e9\n"}`, ` { "a" : [ ] } `,
	} {
		var a, b []string
		Members([]byte(s), func(k, v []byte) bool { a = append(a, string(k)+"="+string(v)); return true })
		MembersValid([]byte(s), func(k, v []byte) bool { b = append(b, string(k)+"="+string(v)); return true })
		if !cmp.Equal(a, b) {
			t.Errorf("%s: Members %q, MembersValid %q", s, a, b)
		}
	}
	var els []string
	ElementsValid([]byte(`["a\"]", {"b":[1,2]}, 3 ]`), func(v []byte) bool { els = append(els, string(v)); return true })
	if !cmp.Equal(els, []string{`"a\"]"`, `{"b":[1,2]}`, "3"}) {
		t.Errorf("ElementsValid = %q", els)
	}
	for _, s := range []string{`"plain"`, `"a\nb"`, "\"bad \xff\"", `"\ud83d\ude00"`} {
		want, _ := String([]byte(s))
		if got, ok := StringValid([]byte(s)); !ok || got != want {
			t.Errorf("StringValid(%s) = %q, want %q", s, got, want)
		}
	}
}
