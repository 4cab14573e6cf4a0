package work

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// VerifierOptions configure a Verifier.
type VerifierOptions struct {
	// Predicates are the contract's and the --verify flags'.
	Predicates []Predicate
	// Command says where commands run (Dir is also where file and git
	// predicates look); its Timeout is ignored (each predicate has its
	// own).
	Command CommandOptions
	// Ledger answers no_open_work_items; nil means no items.
	Ledger *Ledger
	// Record writes each command run as a verification entry (a custom
	// entry of kind EvidenceKind); nil records nothing. Front-ends pass
	// the harness's AppendEntry.
	Record func(session.Entry) error
}

// Verifier checks predicates against the workspace, the run and the
// work items. It implements harness.Verifier; its Middleware records the
// tool results tool_result predicates look at. Safe for concurrent use;
// checks are serialised.
type Verifier struct {
	o      VerifierOptions
	hasher *TreeHasher
	head   string // git HEAD when the verifier was made ("" if none)

	check sync.Mutex // one check at a time
	mu    sync.Mutex
	obs   []observation
	last  map[string]Evidence   // per command: the latest evidence
	prior map[string][]Evidence // per command: evidence restored from the log, in order
}

// observation is a tool result a tool_result predicate may count.
type observation struct {
	tool string
	ok   bool
	text string
	tree string // the tree hash just after the call
}

// NewVerifier returns a verifier of o.Predicates in o.Command.Dir,
// noting the git HEAD there (for the "committed" state).
func NewVerifier(ctx context.Context, o VerifierOptions) (*Verifier, error) {
	if !filepath.IsAbs(o.Command.Dir) {
		return nil, fmt.Errorf("verify: the workspace %q is not an absolute path", o.Command.Dir)
	}
	v := &Verifier{o: o, hasher: o.Command.Hasher, last: map[string]Evidence{}}
	if v.hasher == nil {
		v.hasher = &TreeHasher{}
	}
	v.o.Command.Hasher = v.hasher
	if v.has(PredGit) {
		v.head, _ = gitHead(ctx, o.Command.Dir)
	}
	return v, nil
}

func (v *Verifier) has(typ string) bool {
	for i := range v.o.Predicates {
		if v.o.Predicates[i].Type == typ {
			return true
		}
	}
	return false
}

// Outcome is the result of one predicate in one check.
type Outcome struct {
	Predicate *Predicate
	Met       bool
	// Reason says why it is not met (or what met it).
	Reason string
	// Evidence is the command run, for command predicates.
	Evidence *Evidence
}

// Report is the result of one check.
type Report struct {
	Outcomes []Outcome
	// Tree is the tree hash the check ended on.
	Tree string
}

// Met reports whether every predicate holds (and there is at least one
// outcome per predicate checked).
func (r *Report) Met() bool {
	for i := range r.Outcomes {
		if !r.Outcomes[i].Met {
			return false
		}
	}
	return true
}

// Failures returns the outcomes that are not met.
func (r *Report) Failures() []Outcome {
	var out []Outcome
	for _, o := range r.Outcomes {
		if !o.Met {
			out = append(out, o)
		}
	}
	return out
}

// Message is the one message that tells the model what fails, or "".
func (r *Report) Message() string {
	f := r.Failures()
	if len(f) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The task is not finished: %d of the task's %d checks fail. The harness ran them itself:\n", len(f), len(r.Outcomes))
	for _, o := range f {
		fmt.Fprintf(&b, "\n- %s: %s", o.Predicate.Label(), o.Reason)
		if o.Evidence != nil && strings.TrimSpace(o.Evidence.Output) != "" {
			out := o.Evidence.Output
			if len(out) > 2000 {
				out = "…" + out[len(out)-2000:]
			}
			fmt.Fprintf(&b, "\n```\n%s\n```", strings.TrimRight(out, "\n"))
		}
	}
	b.WriteString("\n\nFix what fails, then finish again.")
	return b.String()
}

// Detail is one line naming the failures.
func (r *Report) Detail() string {
	var parts []string
	for _, o := range r.Failures() {
		parts = append(parts, o.Predicate.Label()+": "+o.Reason)
	}
	return strings.Join(parts, "; ")
}

// Verify implements harness.Verifier.
func (v *Verifier) Verify(ctx context.Context, in harness.VerifyInput) (harness.Verdict, error) {
	rep, err := v.Check(ctx, in.FinalText)
	if err != nil {
		return harness.Verdict{}, err
	}
	if rep.Met() {
		return harness.Verdict{Met: true}, nil
	}
	return harness.Verdict{Message: rep.Message(), Detail: rep.Detail()}, nil
}

// Check evaluates every predicate now; final is the run's final answer.
// Commands run in order, in the sandbox; each run is recorded. Evidence
// counts only for the tree the check ends on: a command whose files a
// later command changed, and a tool result from before an edit, do not.
// The error is for ctx ending and a failed record.
func (v *Verifier) Check(ctx context.Context, final string) (Report, error) {
	v.check.Lock()
	defer v.check.Unlock()
	var rep Report
	rep.Outcomes = make([]Outcome, len(v.o.Predicates))
	tree := "" // the tree as it is now, when known
	for i := range v.o.Predicates {
		p := &v.o.Predicates[i]
		rep.Outcomes[i].Predicate = p
		if p.Type != PredCommand {
			continue
		}
		ev, now, err := v.run(ctx, p, tree)
		tree = now
		if err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Outcomes[i].Reason = err.Error()
			continue
		}
		rep.Outcomes[i].Evidence = &ev
	}
	var err error
	if tree == "" {
		tree, err = v.hasher.Hash(ctx, v.o.Command.Dir)
	}
	if err != nil {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		for i := range rep.Outcomes {
			rep.Outcomes[i].Reason = "the workspace tree cannot be hashed: " + err.Error()
		}
		return rep, nil
	}
	rep.Tree = tree
	for i := range rep.Outcomes {
		o := &rep.Outcomes[i]
		if o.Predicate.Type == PredCommand {
			if o.Evidence != nil {
				o.Met, o.Reason = commandMet(o.Predicate, o.Evidence, tree)
			}
			continue
		}
		o.Met, o.Reason = v.evaluate(ctx, o.Predicate, final, tree)
	}
	return rep, nil
}

// commandMet judges a command's evidence against the current tree.
func commandMet(p *Predicate, ev *Evidence, tree string) (bool, string) {
	switch {
	case !ev.Fresh(tree):
		return false, "stale: files changed after it ran (a later check command edited the tree); it will run again"
	case ev.TimedOut:
		return false, ev.Summary()
	case ev.ExitCode != p.ExitCode:
		return false, fmt.Sprintf("%s, want %d", ev.Summary(), p.ExitCode)
	}
	return true, ev.Summary()
}

// run runs a command predicate, reusing the latest evidence of the same
// command when it was taken on the tree as it is now, and records it.
// tree is the current tree hash when known ("" otherwise); run returns
// it as it is after the command ("" when unknown).
func (v *Verifier) run(ctx context.Context, p *Predicate, tree string) (Evidence, string, error) {
	key := p.evidenceKey()
	if tree == "" {
		var err error
		if tree, err = v.hasher.Hash(ctx, v.o.Command.Dir); err != nil {
			return Evidence{}, "", err
		}
	}
	v.mu.Lock()
	prev, ok := v.reusable(key, tree)
	v.mu.Unlock()
	if ok {
		return prev, tree, nil
	}
	o := v.o.Command
	o.Timeout, o.Tree = p.timeout, tree
	ev, err := RunCommand(ctx, o, p.Run)
	if err != nil {
		return ev, "", err
	}
	after := ev.TreeAfter
	if after == "" {
		after = ev.Tree
	}
	v.mu.Lock()
	v.last[key] = ev
	v.mu.Unlock()
	if v.o.Record != nil {
		data, err := json.Marshal(ev)
		if err == nil {
			err = v.o.Record(session.Entry{Type: session.TypeCustom, Kind: EvidenceKind, Data: data})
		}
		if err != nil {
			return ev, after, fmt.Errorf("recording the verification: %w", err)
		}
	}
	return ev, after, nil
}

// evaluate judges a predicate that runs no command.
func (v *Verifier) evaluate(ctx context.Context, p *Predicate, final, tree string) (bool, string) {
	switch p.Type {
	case PredFile:
		path := p.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(v.o.Command.Dir, path)
		}
		if p.re == nil {
			if _, err := os.Stat(path); err != nil {
				return false, "it does not exist"
			}
			return true, "it exists"
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return false, fmt.Sprintf("cannot read it: %v", cleanPathErr(err))
		}
		if !p.re.Match(b) {
			return false, "its content does not match"
		}
		return true, "it matches"
	case PredFinalText:
		if !p.re.MatchString(final) {
			return false, "the final answer does not match"
		}
		return true, "it matches"
	case PredNoOpen:
		var open List
		if v.o.Ledger != nil {
			open = v.o.Ledger.List().Open()
		}
		if len(open) > 0 {
			return false, fmt.Sprintf("%d item(s) are still open:\n%s", len(open), strings.TrimRight(open.Render(), "\n"))
		}
		return true, "none open"
	case PredToolResult:
		return v.toolMet(p, tree)
	case PredGit:
		return v.gitMet(ctx, p)
	}
	return false, "unknown predicate type " + p.Type
}

func (v *Verifier) toolMet(p *Predicate, tree string) (bool, string) {
	want := p.Success == nil || *p.Success
	v.mu.Lock()
	defer v.mu.Unlock()
	stale := false
	for i := len(v.obs) - 1; i >= 0; i-- {
		o := v.obs[i]
		if o.tool != p.Tool || o.ok != want || (p.re != nil && !p.re.MatchString(o.text)) {
			continue
		}
		if o.tree != tree {
			stale = true
			continue
		}
		return true, "a matching result on the current tree"
	}
	if stale {
		return false, "the matching results are stale: files changed after them; call the tool again"
	}
	return false, fmt.Sprintf("no %s result of %s matching it", map[bool]string{true: "successful", false: "failed"}[want], p.Tool)
}

func (v *Verifier) gitMet(ctx context.Context, p *Predicate) (bool, string) {
	out, err := gitOut(ctx, v.o.Command.Dir, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return false, "git status failed: " + err.Error()
	}
	var dirty []string
	for _, line := range strings.Split(out, "\n") {
		if len(line) < 4 {
			continue
		}
		path := strings.Trim(line[3:], `"`)
		if path == ".rein/" || strings.HasPrefix(path, ".rein/") {
			continue
		}
		dirty = append(dirty, path)
	}
	if len(dirty) > 0 {
		if len(dirty) > 10 {
			dirty = append(dirty[:10], "…")
		}
		return false, "uncommitted changes: " + strings.Join(dirty, ", ")
	}
	if p.State == "committed" {
		head, err := gitHead(ctx, v.o.Command.Dir)
		if err != nil || head == "" {
			return false, "there is no commit"
		}
		if head == v.head {
			return false, "the tree is clean but nothing was committed since the run started"
		}
	}
	return true, "git " + p.State
}

// Middleware records the results of the tools that tool_result
// predicates name, with the tree hash just after each call. Put it in
// the harness's tool chain (Options.Middleware).
func (v *Verifier) Middleware() tool.Middleware {
	names := map[string]bool{}
	for _, p := range v.o.Predicates {
		if p.Type == PredToolResult {
			names[p.Tool] = true
		}
	}
	return func(next tool.Handler) tool.Handler {
		if len(names) == 0 {
			return next
		}
		return func(ctx context.Context, call *tool.Call) tool.Result {
			res := next(ctx, call)
			if !names[call.Name] {
				return res
			}
			tree, err := v.hasher.Hash(ctx, v.o.Command.Dir)
			if err != nil {
				return res
			}
			v.mu.Lock()
			v.obs = append(v.obs, observation{tool: call.Name, ok: !res.IsError, text: res.Text(), tree: tree})
			v.mu.Unlock()
			return res
		}
	}
}

func gitHead(ctx context.Context, dir string) (string, error) {
	out, err := gitOut(ctx, dir, "rev-parse", "--verify", "-q", "HEAD")
	return strings.TrimSpace(out), err
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("%s", strings.TrimSpace(string(ee.Stderr)))
		}
		return "", err
	}
	return string(out), nil
}

func cleanPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
