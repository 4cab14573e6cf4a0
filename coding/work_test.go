package coding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/work"
)

// randomWorkCalls is a random sequence of work-item tool calls: adds,
// updates to random statuses (some refused), TodoWrites (some leaving out
// open items, which are refused).
func randomWorkCalls(rng *rand.Rand, i int) []faux.Reply {
	var out []faux.Reply
	titles := 0
	statuses := []string{"pending", "in_progress", "completed", "cancelled"}
	for k := range 2 + rng.IntN(6) {
		var c llm.Content
		switch rng.IntN(3) {
		case 0:
			n := 1 + rng.IntN(3)
			var items []string
			for range n {
				titles++
				items = append(items, fmt.Sprintf(`{"title":"task %d.%d","acceptance":"works ✓ \"quoted\""}`, i, titles))
			}
			c = faux.Call(work.AddTool, `{"items":[`+strings.Join(items, ",")+`]}`)
		case 1:
			st := statuses[rng.IntN(4)]
			note := ""
			if st == "cancelled" && rng.IntN(3) > 0 {
				note = `,"note":"not needed after step ` + fmt.Sprint(k) + `"`
			}
			c = faux.Call(work.UpdateTool, fmt.Sprintf(`{"id":"%d","status":"%s"%s}`, 1+rng.IntN(max(titles, 1)), st, note))
		default:
			var todos []string
			for t := 1; t <= titles; t++ {
				if rng.IntN(4) == 0 {
					continue // sometimes leaves one out
				}
				st := statuses[rng.IntN(3)]
				todos = append(todos, fmt.Sprintf(`{"content":"task %d.%d","status":"%s","activeForm":"doing %d"}`, i, t, st, t))
			}
			c = faux.Call(work.TodoWriteTool, `{"todos":[`+strings.Join(todos, ",")+`]}`)
		}
		out = append(out, faux.Calls("", c))
	}
	return append(out, faux.Text("planned"))
}

// TestWorkItemsSurviveCompaction: 100 random runs with a forced
// compaction. The open list is byte-identical before and after: in the
// summary, in the next request's volatile tier, and in the reopened log.
func TestWorkItemsSurviveCompaction(t *testing.T) {
	rng := rand.New(rand.NewPCG(100, 25))
	ctx := context.Background()
	withOpen := 0
	for i := range 100 {
		e := newTestEnv(t)
		dir := t.TempDir()
		o := e.options(dir, randomWorkCalls(rng, i)...)
		p := o.Provider.(*faux.Provider)
		a, err := Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Submit(ctx, "plan the work"); err != nil {
			t.Fatal(err)
		}
		before := a.WorkItems().List()
		openBefore := before.Open().Render()
		volatileBefore := work.VolatileText(before)
		entry, err := a.h.Compact(ctx, harness.CompactOptions{Summary: fmt.Sprintf("Run %d planned some work.", i)})
		if err != nil {
			t.Fatal(err)
		}
		if openBefore != "" {
			withOpen++
			if !strings.HasSuffix(entry.Summary, harness.PinnedHeading+"\n"+openBefore) {
				t.Fatalf("run %d: the summary does not end with the open list verbatim:\n%s\nwant suffix:\n%s", i, entry.Summary, openBefore)
			}
		} else if strings.Contains(entry.Summary, harness.PinnedHeading) {
			t.Fatalf("run %d: no open items, yet the summary pins some", i)
		}
		p.Push(faux.Text("continuing"))
		n := len(p.Requests())
		if _, err := a.Submit(ctx, "continue"); err != nil {
			t.Fatal(err)
		}
		// The first request after the compaction (a run that a stall
		// ended early leaves scripted calls for this one).
		last := p.Requests()[n]
		var volatile string
		for _, sp := range last.System {
			if sp.Volatile {
				volatile = sp.Text
			}
		}
		if volatile != volatileBefore {
			t.Fatalf("run %d: the volatile tier after compaction is\n%q\nwant\n%q", i, volatile, volatileBefore)
		}
		before = a.WorkItems().List()
		openBefore = before.Open().Render()
		path := a.Session().Path()
		a.Close()
		s, err := session.Open(path, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		after, err := work.Decode(s.WorkItems())
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(before, after, cmpopts.EquateEmpty()); d != "" || after.Open().Render() != openBefore {
			t.Fatalf("run %d: the logged list changed (-before +after):\n%s", i, d)
		}
	}
	if withOpen < 20 {
		t.Fatalf("only %d of 100 runs had open items at the compaction", withOpen)
	}
	t.Logf("%d of 100 runs had open items at the compaction", withOpen)
}

func TestResumeShowsTheOpenListOnce(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t)
	dir := t.TempDir()
	o := e.options(dir, faux.Calls("", faux.Call(work.AddTool, `{"title":"ship it"}`)), faux.Text("ok"))
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Submit(ctx, "plan"); err != nil {
		t.Fatal(err)
	}
	path := a.Session().Path()
	a.Close()
	o = e.options(dir, faux.Text("one"), faux.Text("two"))
	o.Session = path
	p := o.Provider.(*faux.Provider)
	b, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, q := range []string{"first", "second"} {
		if _, err := b.Submit(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	reqs := p.Requests()
	vol := func(r llm.Request) string {
		for _, sp := range r.System {
			if sp.Volatile {
				return sp.Text
			}
		}
		return ""
	}
	if !strings.Contains(vol(reqs[0]), "[pending] #1 ship it") || vol(reqs[1]) != "" {
		t.Fatalf("volatile tiers after resume: %q, %q", vol(reqs[0]), vol(reqs[1]))
	}
}

// TestWorkItemsPerBranch: after navigating back in the session tree and
// after a fork, the agent's list is the branch's as of its branch point
// plus its own changes, not the latest list in the file.
func TestWorkItemsPerBranch(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t)
	o := e.options(t.TempDir(),
		faux.Calls("", faux.Call(work.AddTool, `{"title":"first"}`)), faux.Text("planned"),
		faux.Calls("", faux.Call(work.AddTool, `{"title":"second on branch a"}`)), faux.Text("more"),
		faux.Calls("", faux.Call(work.AddTool, `{"title":"on branch b"}`)), faux.Text("other"))
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	titles := func() string {
		var out []string
		for _, it := range a.WorkItems().List() {
			out = append(out, it.Title)
		}
		return strings.Join(out, ",")
	}
	if _, err := a.Submit(ctx, "plan"); err != nil {
		t.Fatal(err)
	}
	point := a.Session().Leaf() // the branch point: after the first run
	if _, err := a.Submit(ctx, "go on"); err != nil {
		t.Fatal(err)
	}
	branchA := a.Session().Leaf()
	if got := titles(); got != "first,second on branch a" {
		t.Fatalf("branch a: %s", got)
	}
	if _, err := a.Navigate(ctx, point); err != nil {
		t.Fatal(err)
	}
	if got := titles(); got != "first" {
		t.Fatalf("back at the branch point the list is %q, want the list as it stood there", got)
	}
	if _, err := a.Submit(ctx, "try another way"); err != nil {
		t.Fatal(err)
	}
	if got := titles(); got != "first,on branch b" {
		t.Fatalf("branch b: %s", got)
	}
	// A fork of branch a, made while the agent is on branch b.
	f, err := a.Fork(branchA)
	if err != nil || !f.Switched {
		t.Fatalf("fork: %+v %v", f, err)
	}
	if got := titles(); got != "first,second on branch a" {
		t.Fatalf("fork of branch a: %s", got)
	}
	if got, _ := work.Decode(a.Session().WorkItems()); len(got) != 2 || got[1].Title != "second on branch a" {
		t.Fatalf("the fork's log holds %+v", got)
	}
}

// TestResumedRunReusesLoggedEvidence: a --verify check that passed
// before the session was closed counts when it is resumed on the same
// tree (the command does not run again) and runs again after an edit.
func TestResumedRunReusesLoggedEvidence(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.go": "package main\n"})
	count := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "runs.log"))
		return strings.Count(string(b), "\n")
	}
	o := e.options(dir, faux.Text("done"))
	o.Verify = []string{"echo run >> runs.log"}
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Submit(ctx, "do it")
	if err != nil || res.Stop != harness.StopCompleted || count() != 1 {
		t.Fatalf("first run: %v %s, %d runs", err, res.Stop, count())
	}
	path := a.Session().Path()
	a.Close()

	o = e.options(dir, faux.Text("done again"), faux.Text("done after the edit"))
	o.Verify = []string{"echo run >> runs.log"}
	o.Session = path
	a, err = Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err = a.Submit(ctx, "check again")
	if err != nil || res.Stop != harness.StopCompleted {
		t.Fatalf("resumed run: %v %s", err, res.Stop)
	}
	if n := count(); n != 1 {
		t.Fatalf("the resumed run ran the passing check again on the same tree (%d runs)", n)
	}
	write(t, dir, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	if res, err = a.Submit(ctx, "after an edit"); err != nil || res.Stop != harness.StopCompleted || count() != 2 {
		t.Fatalf("after an edit: %v %s, %d runs", err, res.Stop, count())
	}
}

// TestContractCommandsUnderWorkspaceSecurity: --verify and contract
// commands run in the sandbox of the workspace's trusted
// .rein/security.json: a writable directory it names outside the
// workspace takes their writes.
func TestContractCommandsUnderWorkspaceSecurity(t *testing.T) {
	// Without bubblewrap and Landlock nothing confines the commands, so
	// the untrusted half cannot be told apart. Guess is None only when
	// bwrap is not on PATH, and .ci/run stops before the tests when it
	// cannot install it: under CI this always runs (and a bwrap that is
	// there but broken fails it rather than skipping it).
	if sandbox.Guess() == sandbox.None {
		if os.Getenv("CI") != "" {
			t.Fatal("no sandbox mechanism; .ci/run installs bubblewrap")
		}
		t.Skip("bubblewrap is not installed and the kernel has no Landlock")
	}
	ctx := context.Background()
	extra := t.TempDir()
	mark := filepath.Join(extra, "mark")
	for _, trusted := range []bool{false, true} {
		e := newTestEnv(t)
		if trusted {
			e.vars["REIN_TRUST_WORKSPACE"] = "1"
		}
		dir := t.TempDir()
		write(t, dir, map[string]string{".rein/security.json": fmt.Sprintf(`{"writable": [%q]}`, extra)})
		o := e.options(dir, faux.Text("done"), faux.Text("done"), faux.Text("done"), faux.Text("done"))
		o.Interactive = true // untrusted: goes on without the loosening settings
		o.Verify = []string{"printf ok > " + mark}
		a, err := Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Submit(ctx, "do it")
		a.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(mark)
		if trusted && (res.Stop != harness.StopCompleted || statErr != nil) {
			t.Fatalf("trusted: stop %s (%s), mark: %v", res.Stop, res.Detail, statErr)
		}
		if !trusted && (res.Stop == harness.StopCompleted || statErr == nil) {
			t.Fatalf("untrusted: stop %s, the write reached the directory: %v", res.Stop, statErr == nil)
		}
	}
}
