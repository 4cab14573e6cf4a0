package guard

import (
	"path"
	"testing"
)

func TestCallKey(t *testing.T) {
	tests := []struct {
		name  string
		a, b  string
		equal bool
	}{
		{"same", `{"path":"a"}`, `{"path":"a"}`, true},
		{"keys reordered", `{"a":1,"b":{"y":[1,2],"x":null}}`, `{"b":{"x":null,"y":[1,2]},"a":1}`, true},
		{"spaces", `{"a": [1, 2]}`, "{\n\t\"a\":[1,2]\n}", true},
		{"more than sixteen keys", manyKeys(false), manyKeys(true), true},
		{"different value", `{"path":"a"}`, `{"path":"b"}`, false},
		{"array order matters", `{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{"key moved between objects", `{"a":{"b":1},"c":2}`, `{"a":{"c":2},"b":1}`, false},
		{"string is not number", `{"a":1}`, `{"a":"1"}`, false},
		{"invalid JSON compared as bytes", `{"a":`, `{"a":`, true},
		{"invalid JSON differs", `{"a":`, `{"b":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ka, kb := callKey("t", []byte(tt.a)), callKey("t", []byte(tt.b))
			if (ka == kb) != tt.equal {
				t.Fatalf("callKey(%s) == callKey(%s) is %v, want %v", tt.a, tt.b, ka == kb, tt.equal)
			}
		})
	}
	if callKey("read", []byte(`{}`)) == callKey("grep", []byte(`{}`)) {
		t.Fatal("the tool name is not part of the key")
	}
}

func manyKeys(reverse bool) string {
	s := "{"
	for i := range 20 {
		k := i
		if reverse {
			k = 19 - i
		}
		if i > 0 {
			s += ","
		}
		s += `"k` + string(rune('a'+k)) + `":` + string(rune('0'+k%10))
	}
	return s + "}"
}

func TestResultHashIgnoresVolatileParts(t *testing.T) {
	tests := []struct {
		name  string
		a, b  string
		equal bool
	}{
		{"durations", "ok  \tpkg\t0.52s", "ok  \tpkg\t1.07s", true},
		{"milliseconds", "done in 120ms", "done in 98ms", true},
		{"duration words", "took 3.1 seconds", "took 12 seconds", true},
		{"composite duration", "elapsed 1m3.5s", "elapsed 2m0.1s", true},
		{"iso timestamps", "at 2026-01-02T10:11:12.345Z ready", "at 2026-03-04T00:00:01Z ready", true},
		{"clock times", "[10:11:12] started", "[23:59:01] started", true},
		{"pids", "server pid 1234 listening", "server pid 98765 listening", true},
		{"PID colon", "PID: 42", "PID: 43", true},
		{"uuids", "id 0f8fad5b-d9cb-469f-a165-70867728950e", "id 7c9e6679-7425-40de-944b-e07fc1f90ae7", true},
		{"message ids", "msg_01ABCdef234 sent", "msg_09XYZabc987 sent", true},
		{"addresses", "panic at 0xc000123456", "panic at 0xc000fedcba", true},
		{"json volatile keys", `{"status":"pending","duration_ms":12,"id":"x1","createdAt":"now"}`, `{"id":"y2","status":"pending","duration_ms":40,"createdAt":"later"}`, true},
		{"json nested volatile", `{"job":{"state":"queued","started_at":"2026-01-01"}}`, `{"job":{"started_at":"2026-01-02","state":"queued"}}`, true},

		{"counts are content", "3 passed, 1 failed", "4 passed, 0 failed", false},
		{"line numbers are content", "a.go:12:34: undefined: x", "a.go:13:34: undefined: x", false},
		{"versions are content", "go1.26.1", "go1.26.2", false},
		{"json content differs", `{"status":"pending"}`, `{"status":"done"}`, false},
		{"error flag", "x", "x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ha, hb := resultHash(false, tt.a), resultHash(false, tt.b)
			if (ha == hb) != tt.equal {
				t.Fatalf("resultHash(%q) == resultHash(%q) is %v, want %v", tt.a, tt.b, ha == hb, tt.equal)
			}
		})
	}
	if resultHash(true, "x") == resultHash(false, "x") {
		t.Fatal("an error and a success with the same text hash the same")
	}
}

func TestCleanPath(t *testing.T) {
	for _, p := range []string{
		"a", "a/b", "./a", "a/./b", "a//b", "a/b/", "a/../b", "../a", "../../a/b", "a/../..", "/a/../..",
		"/", "//", "/a/b/../../../c", ".", "..", "./", "a/b/c/../../d/./e/", "...", "a/..b/.c", "/.", "/..",
	} {
		got := string(cleanPath([]byte(p)))
		if want := path.Clean(p); got != want {
			t.Errorf("cleanPath(%q) = %q, want %q", p, got, want)
		}
	}
	if got := string(resolvePath(nil, "/work", []byte("x/../y.txt"))); got != "/work/y.txt" {
		t.Errorf("resolvePath = %q", got)
	}
	if got := string(resolvePath(nil, "/work", []byte("/etc/./hosts"))); got != "/etc/hosts" {
		t.Errorf("resolvePath = %q", got)
	}
}

func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"a/../b", "/x//y/.", "../..", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" {
			return
		}
		if got, want := string(cleanPath([]byte(p))), path.Clean(p); got != want {
			t.Fatalf("cleanPath(%q) = %q, want %q", p, got, want)
		}
	})
}

func TestJSONFields(t *testing.T) {
	args := []byte(` { "command" : "ls \"x\"", "n": 12, "s": "34", "f": 5.0, "neg": -3, "obj": {"path": "inner"}, "path": "outer" } `)
	if s, ok := fieldString(args, "command"); !ok || s != `ls "x"` {
		t.Errorf("command = %q %v", s, ok)
	}
	if s, ok := fieldString(args, "path"); !ok || s != "outer" {
		t.Errorf("path = %q %v (nested keys must not match)", s, ok)
	}
	for name, want := range map[string]int{"n": 12, "s": 34, "f": 5, "neg": -3} {
		if n, ok := fieldInt(args, name); !ok || n != want {
			t.Errorf("%s = %d %v, want %d", name, n, ok, want)
		}
	}
	for _, bad := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `"x"`} {
		if _, ok := field([]byte(bad), "a"); ok {
			t.Errorf("field(%q) found a value", bad)
		}
	}
}
