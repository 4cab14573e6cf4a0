//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestLongWorkMaxCostThroughKill9: rein long work --max-cost 1.00 is
// killed with SIGKILL in its second worker session, after three priced
// replies ($0.90: two for the session that finished task a, one for task
// b). The next rein long work --max-cost 1.00 counts that spend, read
// from the dead run's session logs: it has $0.10 left, so its one session
// stops at its first reply (exit 3; with the whole cap it would go on),
// and its closing line says what was carried.
func TestLongWorkMaxCostThroughKill9(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	git := gitRepo(t, ws)
	plan := `[
  {"id": "a", "title": "write a.txt", "acceptance_criteria": ["a.txt exists"], "verify": ["test -f a.txt"], "status": "todo"},
  {"id": "b", "title": "write b.txt", "acceptance_criteria": ["b.txt exists"], "verify": ["test -f b.txt"], "status": "todo"},
  {"id": "c", "title": "write c.txt", "acceptance_criteria": ["c.txt exists"], "verify": ["test -f c.txt"], "status": "todo"}
]
`
	for name, body := range map[string]string{"agent-progress.json": plan, "agent-notes.md": "# Notes\n", "workspace.sh": "#!/bin/bash\ntrue\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-qm", "plan")

	// Each session: write and commit the task's file, then say so. The
	// first process's fourth request (task b's second) is held open.
	taskRE := regexp.MustCompile(`Your task: (\w+) `)
	var mu sync.Mutex
	block := 3
	srv := newPricedServer(t, func(n int, body string) pricedAnswer {
		mu.Lock()
		defer mu.Unlock()
		if n == block {
			return pricedAnswer{block: true}
		}
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(body), &req); err != nil || len(req.Messages) == 0 {
			return pricedAnswer{text: "bad request"}
		}
		task := "?"
		if m := taskRE.FindStringSubmatch(string(req.Messages[0])); m != nil {
			task = m[1]
		}
		if len(req.Messages) > 1 {
			return pricedAnswer{text: "wrote " + task + ".txt"}
		}
		cmd := fmt.Sprintf("echo %s > %s.txt && git add %s.txt && git commit -qm 'add %s.txt'", task, task, task, task)
		input, _ := json.Marshal(map[string]string{"command": cmd})
		return pricedAnswer{tool: "bash", input: string(input)}
	})
	args := []string{"long", "work", "--until-done", "-m", pricedModel, "--base-url", srv.URL, "-C", ws, "--max-cost", "1.00"}
	out := killWhenBlocked(t, reinProc(ws, home, args...), srv)
	if !strings.Contains(out, `session 1  a "write a.txt"  done (verify 1/1)  $0.6000`) {
		t.Fatalf("the first process did not finish task a before the kill:\n%s", out)
	}
	var rec struct {
		Sessions []string `json:"sessions"`
		Ended    bool     `json:"ended"`
	}
	b, err := os.ReadFile(filepath.Join(ws, ".rein", "long", "run.json"))
	if err != nil || json.Unmarshal(b, &rec) != nil || len(rec.Sessions) != 2 || rec.Ended {
		t.Fatalf("run record after the kill: %v %s", err, b)
	}
	spent := 0.0
	for _, p := range rec.Sessions {
		_, c := loggedReplies(t, p)
		spent += c
	}
	if !near(spent, 3*pricedReply) {
		t.Fatalf("the dead run's logs say $%v, want $0.90", spent)
	}

	mu.Lock()
	block = -1
	mu.Unlock()
	before := srv.requests()
	code, out := runProc(t, reinProc(ws, home, args...))
	if code != exitBudget {
		t.Fatalf("exit %d, want %d (the budget)\n%s", code, exitBudget, out)
	}
	if n := srv.requests() - before; n != 1 {
		t.Fatalf("the continued run made %d requests, want 1 ($0.90 carried + $0.30 passes $1.00)\n%s", n, out)
	}
	if !strings.Contains(out, "$0.3000 spent, and $0.9000 before by 2 session(s) of this run whose process died ($1.2000 in all)") {
		t.Fatalf("closing line:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, ".rein", "long", "run.json")); err != nil || !strings.Contains(string(b), `"ended": true`) {
		t.Fatalf("the continued run did not end: %v %s", err, b)
	}
}
