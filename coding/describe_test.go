package coding

import (
	"encoding/json"
	"testing"
)

func TestDescribeCall(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"command": "go test ./...", "timeout": 60}`, "go test ./... timeout=60"},
		{`{"path": "a.go", "edits": [{"old": "x", "new": "y"}, {"old": "p", "new": "q"}]}`, "a.go (2 edits)"},
		{`{"path": "a.go", "edits": [{"old": "x", "new": "y"}]}`, "a.go (1 edit)"},
		{`{"path": "notes.md", "content": "hello"}`, "notes.md (5 bytes)"},
		{`{"pattern": "TODO", "path": "src", "glob": "*.go"}`, `src glob="*.go" pattern="TODO"`},
		{`{"url": "https://example.com"}`, "https://example.com"},
		{`{"query": "rein"}`, "rein"},
		{`{}`, ""},
		{`{"n": 3}`, `{"n": 3}`},
		{`"{\"path\": oops"`, `{"path": oops`},
		{`[1, 2]`, `[1, 2]`},
	} {
		if got := DescribeCall(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("DescribeCall(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
