package long

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/work"
)

// Five tasks, five worker sessions: each task done with evidence naming a
// commit that exists and holds the task's file, the model's five commits
// in the history, a notes entry per session.
func TestWorkFiveTasksEndToEnd(t *testing.T) {
	f := newFixture(t, planOf(5, nil))
	p := model(20, diligent)
	res, err := Work(context.Background(), WorkOptions{Options: f.options(p), UntilDone: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopDone || len(res.Sessions) != 5 {
		t.Fatalf("stop %s (%s) after %d sessions, want done after 5", res.Stop, res.Detail, len(res.Sessions))
	}
	if res.Counts != (Counts{Total: 5, Done: 5}) {
		t.Fatalf("counts %+v", res.Counts)
	}
	plan := f.load()
	for i, task := range plan.Tasks {
		id := fmt.Sprintf("t%d", i+1)
		if task.ID != id || task.Status != StatusDone || task.Evidence == nil {
			t.Fatalf("task %d: %+v", i+1, task)
		}
		ev := task.Evidence
		if len(ev.Commands) != 2 || !ev.Commands[0].Passed() || !ev.Commands[1].Passed() || ev.Tree == "" || ev.Session == "" {
			t.Fatalf("task %s evidence %+v", id, ev)
		}
		// The commit of the evidence holds the task's file.
		if got := f.git("show", ev.Commit+":"+id+".txt"); got != "done\n" {
			t.Fatalf("commit %s has %s.txt = %q", ev.Commit, id, got)
		}
		if r := f.reps[i]; r.Task != id || r.Outcome != OutcomeDone || len(r.Commits) != 1 || !strings.HasSuffix(r.Commits[0], id+": write the file") {
			t.Fatalf("report %d: %+v", i+1, r)
		}
	}
	var model []string
	for _, line := range strings.Split(strings.TrimSpace(f.git("log", "--format=%s")), "\n") {
		if !strings.HasPrefix(line, "long: ") && line != "start" {
			model = append(model, line)
		}
	}
	if len(model) != 5 {
		t.Fatalf("model commits %q, want 5", model)
	}
	if n := strings.Count(f.read("agent-notes.md"), "## Session "); n != 5 {
		t.Fatalf("%d notes entries, want 5:\n%s", n, f.read("agent-notes.md"))
	}
	if st := f.git("status", "--porcelain", "--", ".", ":!.rein"); st != "" {
		t.Fatalf("tree not clean at the end:\n%s", st)
	}
	// The evidence is in each session log too, as verification entries.
	_, entries, _, err := session.ReadFile(f.reps[0].Session)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Type == session.TypeCustom && e.Kind == work.EvidenceKind {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d verification entries in the first session log, want 2", n)
	}
	// Each session's prompt carried the counts, its task and the notes.
	reqs := p.Requests()
	first := reqs[len(reqs)-2].Messages[0].Text()
	for _, want := range []string{"Progress: 4/5 done", "Your task: t5 — write t5.txt", "grep -qx done t5.txt", "## Session", "set-up script workspace.sh ran and exited 0"} {
		if !strings.Contains(first, want) {
			t.Errorf("the last session's prompt lacks %q:\n%s", want, first)
		}
	}
}

// A task whose verify commands fail is never marked done, however the
// model describes its work; after MaxFailures sessions the run stops.
func TestWorkFailingVerifyNeverDone(t *testing.T) {
	f := newFixture(t, planOf(3, map[string]string{"t2": `["test -f t2.txt", "grep -qx finished t2.txt"]`}))
	claim := func(s step) llm.Message {
		if s.n == 1 {
			return calls(call("work_item_update", map[string]string{"id": s.task, "status": "completed"}))
		}
		if s.n == 2 && s.task == "t2" {
			return text("t2 is complete and all tests pass")
		}
		return diligent(s)
	}
	var reqs int
	p := model(40, func(s step) llm.Message {
		reqs++
		return claim(s)
	})
	o := f.options(p)
	o.Overrides.MaxFailures = 2
	res, err := Work(context.Background(), WorkOptions{Options: o, UntilDone: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopFailing {
		t.Fatalf("stop %s (%s), want failing", res.Stop, res.Detail)
	}
	plan := f.load()
	t2 := plan.Find("t2")
	if t2.Status == StatusDone || t2.Evidence != nil || t2.Failures != 2 {
		t.Fatalf("t2 = %+v", t2)
	}
	if plan.Find("t1").Status != StatusDone || plan.Find("t3").Status != StatusTodo {
		t.Fatalf("plan %+v", plan.Tasks)
	}
	// The model's completion was refused with the failing command's
	// outcome; the session reports name it.
	if len(res.Sessions) != 3 || res.Sessions[1].Outcome != OutcomeVerifyFailed || !strings.Contains(res.Sessions[1].Detail, "grep -qx finished t2.txt: exit 1") {
		t.Fatalf("sessions %+v", res.Sessions)
	}
	var refused bool
	for _, r := range p.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleToolResult && m.IsError && strings.Contains(m.Text(), "task t2 is not done: 1 verify command(s) failed") {
				refused = true
			}
		}
	}
	if !refused {
		t.Fatal("the model's claim of completion was not refused with the failing command")
	}
}

// A verify command that hangs is killed at its timeout; the session
// reports it and the task is not done.
func TestWorkVerifyTimeout(t *testing.T) {
	f := newFixture(t, planOf(1, map[string]string{"t1": `["test -f t1.txt", {"command": "sleep 600", "timeout": "1s"}]`}))
	res, err := Work(context.Background(), WorkOptions{Options: f.options(model(10, diligent))})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopSessions || len(res.Sessions) != 1 {
		t.Fatalf("stop %s (%s)", res.Stop, res.Detail)
	}
	r := res.Sessions[0]
	if r.Outcome != OutcomeVerifyFailed || len(r.Verify) != 2 || !r.Verify[1].TimedOut || !strings.Contains(r.Line(), "sleep 600: timed out") {
		t.Fatalf("report %+v\n%s", r, r.Line())
	}
	if task := f.load().Find("t1"); task.Status != StatusInProgress || task.Failures != 1 {
		t.Fatalf("t1 = %+v", task)
	}
	if !strings.Contains(f.read("agent-notes.md"), "Verify: `sleep 600` — timed out") {
		t.Fatalf("notes:\n%s", f.read("agent-notes.md"))
	}
}

// A model that writes the progress file directly is refused and told
// which tool to use; a change that slips past (a script not naming the
// file) is undone after the session.
func TestWorkDirectEditRefused(t *testing.T) {
	f := newFixture(t, planOf(2, nil))
	before := f.read("agent-progress.json")
	p := model(10, func(s step) llm.Message {
		switch s.n {
		case 0:
			return calls(call("write", map[string]string{"path": "agent-progress.json", "content": "[]"}))
		case 1:
			return calls(bash(`sed -i 's/todo/done/' ./agent-progress.json`))
		case 2:
			return calls(call("write", map[string]string{"path": "fix.sh", "content": "echo '[]' > agent-progress.json\n"}))
		case 3:
			return calls(bash("bash fix.sh"))
		}
		return text("I marked everything done.")
	})
	res, err := Work(context.Background(), WorkOptions{Options: f.options(p)})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Sessions[0]
	if r.Refused != 2 || !r.Restored || r.Outcome == OutcomeDone {
		t.Fatalf("report %+v", r)
	}
	var told int
	for _, m := range p.Requests()[4].Messages {
		if m.Role == llm.RoleToolResult && m.IsError && strings.Contains(m.Text(), "Use work_item_update") {
			told++
		}
	}
	if told != 2 {
		t.Fatalf("%d refusals naming work_item_update, want 2", told)
	}
	plan := f.load()
	if plan.Find("t1").Status != StatusInProgress || plan.Find("t2").Status != StatusTodo {
		t.Fatalf("plan after restore: %+v", plan.Tasks)
	}
	after := strings.Replace(before, `"todo"`, `"in_progress"`, 1)
	if got := f.read("agent-progress.json"); !strings.Contains(got, `"id": "t2"`) || strings.Contains(got, `"done"`) {
		t.Fatalf("progress file after the session:\n%s\n(want it as the harness wrote it, like\n%s)", got, after)
	}
}

// A malformed progress file stops the run before any session, naming the
// file and line.
func TestWorkMalformedPlanDoesNotStart(t *testing.T) {
	f := newFixture(t, "[\n  {\"id\": \"t1\", \"title\": \"x\",\n   \"status\": \"todo\", \"verify\": [\"true\"], \"acceptance_criteria\": [\"y\"]},\n  {\"id\": \"t1\"}\n]\n")
	p := model(5, diligent)
	_, err := Work(context.Background(), WorkOptions{Options: f.options(p)})
	var probs Problems
	if !errors.As(err, &probs) {
		t.Fatalf("error %v, want Problems", err)
	}
	for _, want := range []string{`agent-progress.json:4: task 2: id "t1" is already used by task 1`, `agent-progress.json:4: task 2: no "title"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\nlacks %s", err, want)
		}
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d model requests made with a malformed plan", n)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".rein", "sessions")); err == nil {
		t.Fatal("a session log was created")
	}
}

// A model that does the work but does not commit it does not succeed.
func TestWorkNoCommitIsNotSuccess(t *testing.T) {
	f := newFixture(t, planOf(1, nil))
	p := model(10, func(s step) llm.Message {
		if s.n == 0 {
			return calls(bash("printf 'done\\n' > t1.txt"))
		}
		return text("done")
	})
	res, err := Work(context.Background(), WorkOptions{Options: f.options(p)})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Sessions[0]
	if r.Outcome != OutcomeNoCommit || !strings.Contains(r.Detail, "nothing was committed") {
		t.Fatalf("report %+v", r)
	}
	if task := f.load().Find("t1"); task.Status == StatusDone || task.Failures != 1 {
		t.Fatalf("t1 = %+v", task)
	}
}

// --max-cost stops the run: each session's agent gets what is left as its
// telemetry budget, and the run ends with the budget stop.
func TestWorkBudgetStops(t *testing.T) {
	f := newFixture(t, planOf(5, nil))
	o := f.options(model(40, diligent))
	o.Agent.ModelInfo.Price = llm.Price{Input: 1, Output: 1}
	res, err := Work(context.Background(), WorkOptions{Options: o, UntilDone: true, MaxCost: 0.012})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sessions {
		t.Logf("%s %+v", s.Line(), s.Usage)
	}
	if res.Stop != StopBudget || len(res.Sessions) >= 5 || res.Counts.Done == 5 {
		t.Fatalf("stop %s (%s) after %d sessions, %+v", res.Stop, res.Detail, len(res.Sessions), res.Counts)
	}
	if res.Sessions[0].Cost <= 0 {
		t.Fatalf("first session cost %v", res.Sessions[0].Cost)
	}
	if !strings.Contains(res.Detail, "budget") && !strings.Contains(res.Detail, "--max-cost") {
		t.Fatalf("detail %q", res.Detail)
	}
}

// The model adds a task through work_item_add: it lands in the progress
// file; one without verify commands is refused.
func TestWorkItemAddLandsInPlan(t *testing.T) {
	f := newFixture(t, planOf(1, nil))
	p := model(10, func(s step) llm.Message {
		switch s.n {
		case 0:
			return calls(call("work_item_add", map[string]string{"title": "document t1"}))
		case 1:
			return calls(call("work_item_add", map[string]any{"title": "document t1", "acceptance": "README mentions t1", "verify": []string{"grep -q t1 README.md"}}))
		}
		return diligent(step{task: s.task, n: s.n - 2})
	})
	res, err := Work(context.Background(), WorkOptions{Options: f.options(p)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions[0].Outcome != OutcomeDone {
		t.Fatalf("report %+v", res.Sessions[0])
	}
	plan := f.load()
	if len(plan.Tasks) != 2 {
		t.Fatalf("tasks %+v", plan.Tasks)
	}
	added := plan.Tasks[1]
	if added.Title != "document t1" || added.Status != StatusTodo || len(added.Verify) != 1 || added.Verify[0].Command != "grep -q t1 README.md" {
		t.Fatalf("added %+v", added)
	}
	msgs := p.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; !last.IsError || !strings.Contains(last.Text(), "a new task needs verify commands") {
		t.Fatalf("first add answered %q", last.Text())
	}
}
