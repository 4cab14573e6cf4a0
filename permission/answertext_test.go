package permission

import "testing"

// A typed line is read as an answer only when it is one; "always"
// without a suggested rule allows once.
func TestParseAnswer(t *testing.T) {
	sug := Request{Suggest: "Bash(go test:*)"}
	for _, c := range []struct {
		line string
		req  Request
		want Answer
		ok   bool
	}{
		{"y\n", sug, Answer{Kind: AllowOnce}, true},
		{" YES ", sug, Answer{Kind: AllowOnce}, true},
		{"a", sug, Answer{Kind: AllowAlways, Scope: ScopeProject}, true},
		{"u", sug, Answer{Kind: AllowAlways, Scope: ScopeUser}, true},
		{"always", Request{}, Answer{Kind: AllowOnce}, true},
		{"n use the staging db", sug, Answer{Kind: DenyCall, Reason: "use the staging db"}, true},
		{"no", sug, Answer{Kind: DenyCall}, true},
		{"fix the test", sug, Answer{}, false},
		{"", sug, Answer{}, false},
	} {
		got, ok := ParseAnswer(c.line, c.req)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseAnswer(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
