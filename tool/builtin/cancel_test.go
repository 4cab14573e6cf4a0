package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A call whose context is already cancelled fails with an error result
// and changes nothing; read notices it in the middle of a long file.
func TestCancelledCalls(t *testing.T) {
	w := newWorkspace(t)
	var long strings.Builder
	for range 300_000 {
		long.WriteString("x\n")
	}
	put(t, w.Root, map[string]string{"long.txt": long.String(), "a.txt": "alpha\n", "dir/b.txt": "b\n"})
	reg, err := Registry(w)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct{ tool, args string }{
		{"read", `{"path": "long.txt"}`},
		{"read", `{"path": "long.txt", "offset": 250000}`},
		{"write", `{"path": "new.txt", "content": "hello"}`},
		{"edit", `{"path": "a.txt", "edits": [{"old_text": "alpha", "new_text": "beta"}]}`},
		{"ls", `{"path": "dir"}`},
		{"grep", `{"pattern": "x"}`},
		{"find", `{"pattern": "*.txt"}`},
		{"bash", `{"command": "echo hi > made.txt"}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := callCtx(ctx, t, reg, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(strings.ToLower(res.Text()), "cancel") {
				t.Fatalf("result %v %q, want a cancellation error", res.IsError, res.Text())
			}
		})
	}
	if _, err := os.Stat(filepath.Join(w.Root, "new.txt")); !os.IsNotExist(err) {
		t.Error("a cancelled write created its file")
	}
	if _, err := os.Stat(filepath.Join(w.Root, "made.txt")); !os.IsNotExist(err) {
		t.Error("a cancelled bash ran its command")
	}
	if data, _ := os.ReadFile(filepath.Join(w.Root, "a.txt")); string(data) != "alpha\n" {
		t.Errorf("a cancelled edit changed the file: %q", data)
	}
}
