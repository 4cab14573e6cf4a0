package long

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/reinhq/rein/coding"
)

// DefaultInitRetries is how many times an initializer whose files are not
// valid is told what to fix before Init gives up.
const DefaultInitRetries = 3

// InitOptions configure Init.
type InitOptions struct {
	Options
	// Retries bounds the rounds of fixes the initializer is asked for
	// after its first attempt; 0 means DefaultInitRetries, negative none.
	Retries int
}

// InitResult is the end of an initializer session.
type InitResult struct {
	Layout Layout
	Counts Counts
	// Attempts is the number of rounds the model took (1: valid at once).
	Attempts int
	Cost     float64
	// Commit is the commit holding the three files ("" when they were
	// already committed as they are).
	Commit  string
	Session string
}

// InitError is an initializer session that did not produce valid files.
type InitError struct {
	Attempts int
	Problems Problems
}

func (e *InitError) Error() string {
	return fmt.Sprintf("the initializer did not write a valid plan in %d attempt(s); nothing was committed. Still wrong:\n%s", e.Attempts, e.Problems.Error())
}

// ErrPlanExists is returned by Init when the progress file exists.
var ErrPlanExists = errors.New("a plan exists")

// Init runs an initializer session for goal: the model writes the
// progress file, the notes file and the set-up script. When it stops, the
// harness checks them — the plan parses and validates, the notes are not
// empty, the script is valid bash and exits 0 — and sends every problem
// back to the model, up to Retries more times. Only valid files count:
// they are then committed (the workspace is made a git repository first
// when it is not one). A workspace with a progress file already is
// refused with ErrPlanExists.
func Init(ctx context.Context, o InitOptions, goal string) (InitResult, error) {
	if strings.TrimSpace(goal) == "" {
		return InitResult{}, errors.New("no goal: say what the long task is to achieve, e.g. rein long init \"port the CLI to cobra\"")
	}
	if err := o.check(o.Agent.Budget.Cost); err != nil {
		return InitResult{}, err
	}
	r, err := newRunner(&o.Options)
	if err != nil {
		return InitResult{}, err
	}
	defer r.close()
	out := InitResult{Layout: r.layout}
	if _, err := os.Stat(r.store.ProgressPath()); err == nil {
		return out, fmt.Errorf("%w: %s is already there; rein long work carries it out (remove it to plan again)", ErrPlanExists, r.layout.Progress)
	}
	if !r.git.isRepo(ctx) {
		if _, err := r.git.run(ctx, "init", "--quiet"); err != nil {
			return out, err
		}
	}
	retries := o.Retries
	if retries == 0 {
		retries = DefaultInitRetries
	}
	a, err := coding.Open(ctx, r.agentOptions(0))
	if err != nil {
		return out, err
	}
	defer a.Close()
	if sess := a.Session(); sess != nil {
		out.Session = sess.Path()
	}
	prompt := initPrompt(r.layout, goal)
	for {
		out.Attempts++
		res, err := a.Submit(ctx, prompt)
		out.Cost += res.Usage.Cost.Total
		if err != nil {
			return out, fmt.Errorf("initializer session: %w", err)
		}
		probs := r.checkInit(ctx)
		if len(probs) == 0 {
			break
		}
		if out.Attempts > retries || retries < 0 {
			return out, &InitError{Attempts: out.Attempts, Problems: probs}
		}
		prompt = fixPrompt(r.layout, probs)
	}
	plan, err := r.store.Load()
	if err != nil {
		return out, err
	}
	out.Counts = plan.Counts()
	made, err := r.git.commitFiles(ctx, "long: plan of "+strconv.Itoa(len(plan.Tasks))+" tasks: "+firstLine(goal, 60), r.layout.Progress, r.layout.Notes, r.layout.Setup)
	if err != nil {
		return out, fmt.Errorf("committing the plan: %w", err)
	}
	if made {
		out.Commit, _ = r.git.head(ctx)
	}
	return out, nil
}

// checkInit lists what is wrong with the initializer's three files.
func (r *runner) checkInit(ctx context.Context) Problems {
	var probs Problems
	l := r.layout
	data, err := os.ReadFile(r.store.ProgressPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		probs = append(probs, &FileError{File: l.Progress, Msg: "missing: write the plan there"})
	case err != nil:
		probs = append(probs, &FileError{File: l.Progress, Msg: err.Error()})
	default:
		if _, err := Parse(l.Preset, l.Progress, data); err != nil {
			var ps Problems
			if errors.As(err, &ps) {
				probs = append(probs, ps...)
			} else {
				probs = append(probs, &FileError{File: l.Progress, Msg: err.Error()})
			}
		}
	}
	if notes, err := os.ReadFile(r.store.NotesPath()); err != nil || len(bytes.TrimSpace(notes)) == 0 {
		probs = append(probs, &FileError{File: l.Notes, Msg: "missing or empty: write what the next session must know (the goal, the layout of the workspace, decisions)"})
	}
	script, err := os.ReadFile(r.store.SetupPath())
	if err != nil || len(bytes.TrimSpace(script)) == 0 {
		return append(probs, &FileError{File: l.Setup, Msg: "missing or empty: write the bash script that prepares the workspace for a session"})
	}
	if p := bashSyntax(ctx, r.store.SetupPath(), l.Setup); p != nil {
		return append(probs, p)
	}
	ev, err := r.runSetup(ctx)
	switch {
	case err != nil:
		probs = append(probs, &FileError{File: l.Setup, Msg: err.Error()})
	case ev != nil && !ev.Passed():
		probs = append(probs, &FileError{File: l.Setup, Msg: fmt.Sprintf("the script failed (%s); it must exit 0. Its output ends with:\n%s", outcome(*ev), indent(lastLines(ev.Output, 15)))})
	}
	return probs
}

var bashLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+): (.*)`) })

// bashSyntax checks the script with bash -n.
func bashSyntax(ctx context.Context, path, name string) *FileError {
	out, err := exec.CommandContext(ctx, "bash", "-n", path).CombinedOutput()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(string(out))
	line := 0
	if m := bashLine().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if msg == "" {
		msg = err.Error()
	}
	return &FileError{File: name, Line: line, Msg: "not valid bash: " + msg}
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
