package work

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseContract(t *testing.T) {
	src := `{
  "max_retries": 2,
  "predicates": [
    {"type": "command", "run": "go test ./...", "timeout": "90s"},
    {"type": "file", "path": "CHANGELOG.md", "matches": "## v2"},
    {"type": "tool_result", "tool": "bash", "success": true, "matches": "PASS"},
    {"type": "final_text", "matches": "(?i)done"},
    {"type": "no_open_work_items"},
    {"type": "git", "state": "committed"}
  ]
}`
	c, err := ParseContract("c.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxRetries != 2 || len(c.Predicates) != 6 {
		t.Fatalf("%+v", c)
	}
	if p := c.Predicates[0]; p.Line != 4 || p.timeout.Seconds() != 90 {
		t.Fatalf("first predicate: line %d, timeout %s", p.Line, p.timeout)
	}
	if c.Predicates[5].Line != 9 {
		t.Fatalf("last predicate on line %d", c.Predicates[5].Line)
	}
}

func TestParseContractErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		want      string
	}{
		{"syntax", "{\n  \"predicates\": [\n    {\"type\": \"command\" \"run\": \"x\"}\n  ]\n}", 3, "not valid JSON"},
		{"unknown type", "{\"predicates\": [\n {\"type\": \"command\", \"run\": \"x\"},\n {\"type\": \"shell\"}\n]}", 3, `unknown type "shell"`},
		{"unknown field", "{\"predicates\": [\n\n  {\"type\": \"command\", \"cmd\": \"x\"}]}", 3, `unknown field "cmd"`},
		{"bad regex", "{\"predicates\": [{\"type\": \"final_text\", \"matches\": \"(\"}]}", 1, "not a valid regular expression"},
		{"bad timeout", "{\n\"predicates\": [\n{\"type\": \"command\", \"run\": \"x\", \"timeout\": \"soon\"}]}", 3, "not a duration"},
		{"no run", "{\"predicates\": [{\"type\": \"command\"}]}", 1, `needs "run"`},
		{"bad git", "{\"predicates\": [{\"type\": \"git\", \"state\": \"pushed\"}]}", 1, `"clean" or "committed"`},
		{"empty", "{\"predicates\": []}", 1, "no predicates"},
		{"top field", "{\n  \"retries\": 1, \"predicates\": []}", 2, `unknown field "retries"`},
		{"truncated", "{\"predicates\": [\n{\"type\": \"no_open_work_items\"}", 2, "ends before"},
		{"not object", "[1]", 1, "JSON object"},
		{"wrong type", "{\"max_retries\": \"two\", \"predicates\": [{\"type\": \"no_open_work_items\"}]}", 1, "should be int"},
		{"trailing", "{\"predicates\": [{\"type\": \"no_open_work_items\"}]}\n{}", 2, "after the contract"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseContract("/w/.rein/contract.json", []byte(tc.src))
			var ce *ContractError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *ContractError", err)
			}
			if ce.Line != tc.line || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "/w/.rein/contract.json:") {
				t.Fatalf("err = %q (line %d), want line %d and %q", err, ce.Line, tc.line, tc.want)
			}
		})
	}
}

func TestFindContract(t *testing.T) {
	root := t.TempDir()
	c, err := FindContract(root, "")
	if c != nil || err != nil {
		t.Fatalf("no contract file: %v %v", c, err)
	}
	if _, err := FindContract(root, "missing.json"); err == nil {
		t.Fatal("a named contract that does not exist was accepted")
	}
	p := filepath.Join(root, DefaultContractPath)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"predicates":[{"type":"no_open_work_items"}]}`), 0o644)
	c, err = FindContract(root, "")
	if err != nil || c == nil || c.Path != p {
		t.Fatalf("default contract: %+v %v", c, err)
	}
}
