package work

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

func mustPred(t *testing.T, p Predicate) Predicate {
	t.Helper()
	if err := p.check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func newVerifier(t *testing.T, dir string, l *Ledger, rec func(session.Entry) error, ps ...Predicate) *Verifier {
	t.Helper()
	v, err := NewVerifier(context.Background(), VerifierOptions{Predicates: ps, Ledger: l, Record: rec,
		Command: CommandOptions{Dir: dir, Sandbox: &sandbox.Policy{Mode: sandbox.Off}}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerifierCommandsFilesGit(t *testing.T) {
	dir := gitRepo(t)
	s := newSession(t)
	var entries int
	rec := func(e session.Entry) error { entries++; _, err := s.Append(e); return err }
	v := newVerifier(t, dir, nil, rec,
		mustPred(t, Predicate{Type: PredCommand, Run: "grep -q two a.txt"}),
		mustPred(t, Predicate{Type: PredFile, Path: "a.txt", Matches: "^two"}),
		mustPred(t, Predicate{Type: PredGit, State: "committed"}),
		mustPred(t, Predicate{Type: PredFinalText, Matches: "done"}),
	)
	ctx := context.Background()
	rep, err := v.Check(ctx, "working")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Met() || len(rep.Failures()) != 4 {
		t.Fatalf("all four should fail: %s", rep.Detail())
	}
	msg := rep.Message()
	for _, want := range []string{"4 of the task's 4 checks fail", "`grep -q two a.txt`: `grep -q two a.txt` exited with 1, want 0", "a.txt matches /^two/", "nothing was committed", "final answer"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message lacks %q:\n%s", want, msg)
		}
	}
	write(t, dir, "a.txt", "two\n")
	rep, _ = v.Check(ctx, "done")
	if rep.Met() || !strings.Contains(rep.Detail(), "uncommitted changes: a.txt") {
		t.Fatalf("dirty tree: %s", rep.Detail())
	}
	git(t, dir, "commit", "-qam", "second")
	rep, _ = v.Check(ctx, "done")
	if !rep.Met() {
		t.Fatalf("should be met: %s", rep.Detail())
	}
	// Unchanged tree: the evidence is reused, not run again.
	before := entries
	rep, _ = v.Check(ctx, "done")
	if !rep.Met() || entries != before {
		t.Fatalf("re-check on the same tree ran the command again (%d → %d entries)", before, entries)
	}
	// Runs on the first tree and on the edited one; the commit left the
	// content as it was.
	if entries != 2 {
		t.Fatalf("%d verification entries, want 2 (one per run on a new tree)", entries)
	}
	_, es, _, _ := session.ReadFile(s.Path())
	n := 0
	for _, e := range es {
		if e.Type == session.TypeCustom && e.Kind == EvidenceKind && strings.Contains(string(e.Data), `"tree":"sha256:`) {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d verification entries with a tree hash in the log", n)
	}
}

func TestVerifierStaleEvidence(t *testing.T) {
	dir := gitRepo(t)
	// The second command edits a file the first one's evidence covered.
	v := newVerifier(t, dir, nil, nil,
		mustPred(t, Predicate{Type: PredCommand, Run: "true"}),
		mustPred(t, Predicate{Type: PredCommand, Run: "echo x >> a.txt"}),
	)
	rep, err := v.Check(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Met() || !strings.Contains(rep.Outcomes[0].Reason, "stale") || !rep.Outcomes[1].Met {
		t.Fatalf("outcomes: %+v", rep.Outcomes)
	}
}

func TestVerifierToolResultEvidence(t *testing.T) {
	dir := gitRepo(t)
	v := newVerifier(t, dir, nil, nil, mustPred(t, Predicate{Type: PredToolResult, Tool: "bash", Matches: "PASS"}))
	h := v.Middleware()(func(_ context.Context, call *tool.Call) tool.Result {
		if call.Name == "bash" {
			return tool.Text("ok PASS")
		}
		return tool.Text("other")
	})
	ctx := context.Background()
	rep, _ := v.Check(ctx, "")
	if rep.Met() {
		t.Fatal("met before any tool result")
	}
	h(ctx, &tool.Call{Name: "bash"})
	if rep, _ = v.Check(ctx, ""); !rep.Met() {
		t.Fatalf("a fresh matching result: %s", rep.Detail())
	}
	write(t, dir, "a.txt", "edited\n")
	rep, _ = v.Check(ctx, "")
	if rep.Met() || !strings.Contains(rep.Detail(), "stale") {
		t.Fatalf("a result from before an edit counted: %s", rep.Detail())
	}
}

func TestVerifierHangingCommand(t *testing.T) {
	dir := t.TempDir()
	v := newVerifier(t, dir, nil, nil, mustPred(t, Predicate{Type: PredCommand, Run: "sleep 600", Timeout: "300ms"}))
	rep, err := v.Check(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Met() || !strings.Contains(rep.Message(), "`sleep 600` timed out after 300ms") {
		t.Fatalf("a hanging command: %s", rep.Message())
	}
}

// TestNeverMetWithAFailingPredicate: 1,000 random sets of predicate
// outcomes (files present or not, matching or not, final text, open
// items, command exit codes): the verdict is Met exactly when every
// predicate holds, and the harness is told success only then.
func TestNeverMetWithAFailingPredicate(t *testing.T) {
	base := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 1000))
	ctx := context.Background()
	met := 0
	for i := range 1000 {
		dir := filepath.Join(base, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var ps []Predicate
		want := true
		l := NewLedger(nil, LedgerOptions{})
		for k := range 1 + rng.IntN(5) {
			ok := rng.IntN(4) != 0
			want = want && ok
			name := fmt.Sprintf("f%d_%d", i, k)
			switch rng.IntN(4) {
			case 0:
				if ok {
					write(t, dir, name, "x")
				}
				ps = append(ps, mustPred(t, Predicate{Type: PredFile, Path: name}))
			case 1:
				write(t, dir, name, map[bool]string{true: "ready", false: "draft"}[ok])
				ps = append(ps, mustPred(t, Predicate{Type: PredFile, Path: name, Matches: "^ready$"}))
			case 2:
				ps = append(ps, mustPred(t, Predicate{Type: PredFinalText, Matches: map[bool]string{true: "^done", false: "^never"}[ok]}))
			default:
				if !ok {
					l.Add(NewItem{Title: name})
				}
				ps = append(ps, mustPred(t, Predicate{Type: PredNoOpen}))
			}
		}
		if rng.IntN(8) == 0 {
			code := rng.IntN(2)
			want = want && code == 0
			ps = append(ps, mustPred(t, Predicate{Type: PredCommand, Run: fmt.Sprintf("exit %d", code)}))
		}
		v := newVerifier(t, dir, l, nil, ps...)
		final := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("done")}}
		verdict, err := v.Verify(ctx, harnessInput(&final))
		if err != nil {
			t.Fatal(err)
		}
		if verdict.Met != want {
			t.Fatalf("case %d: verdict %v, want %v (%s)", i, verdict.Met, want, verdict.Detail)
		}
		if !verdict.Met && (verdict.Message == "" || verdict.Detail == "") {
			t.Fatalf("case %d: a failing verdict says nothing", i)
		}
		if verdict.Met {
			met++
		}
	}
	if met == 0 || met == 1000 {
		t.Fatalf("the random cases did not cover both outcomes (%d met)", met)
	}
}
