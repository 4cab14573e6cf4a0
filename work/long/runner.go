package long

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/work"
)

// runner is what Init and Work share: the workspace, its layout and
// store, git, and the command runner.
type runner struct {
	o      *Options
	root   string
	layout Layout
	store  *Store
	git    git
	run    func(ctx context.Context, command string, timeout time.Duration) (CommandEvidence, string, error)
	lock   *flock.Flock
	spend  *spendLog // Work's run record
}

// ErrBusy is returned when another long-mode run holds the workspace.
var ErrBusy = errors.New("another rein long runs in this workspace")

// newRunner resolves the workspace and layout and takes the run lock,
// which the caller releases with close.
func newRunner(o *Options) (*runner, error) {
	ws, err := coding.OpenWorkspace(o.Agent.Workdir)
	if err != nil {
		return nil, err
	}
	root := ws.Root
	layout, err := LoadLayout(root, o.Overrides)
	if err != nil {
		return nil, err
	}
	env := coding.ChildEnv(o.Agent, root)
	r := &runner{o: o, root: root, layout: layout, store: NewStore(root, layout), git: git{root: root, env: env}, run: o.RunCommand}
	if r.run == nil {
		// Verify commands and the set-up script run as bash does: under
		// the workspace's security settings, trusted ones only.
		pol, cmdEnv, err := coding.CommandSandbox(o.Agent, root)
		if err != nil {
			return nil, err
		}
		r.run = workRunner(root, cmdEnv, pol, &work.TreeHasher{})
	}
	lockPath := filepath.Join(root, ".rein", "long", "run.lock")
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		return nil, err
	}
	r.lock = flock.New(lockPath)
	ok, err := r.lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", lockPath, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w (%s is locked); wait for it to end", ErrBusy, lockPath)
	}
	return r, nil
}

func (r *runner) close() { r.lock.Unlock() }

// agentOptions are the options of one session's agent, with budget as
// its cost limit when positive.
func (r *runner) agentOptions(budget float64) coding.Options {
	co := r.o.Agent
	co.Workdir = r.root
	if budget > 0 {
		co.Budget.Cost = budget
	}
	return co
}

// runSetup runs the set-up script when it exists.
func (r *runner) runSetup(ctx context.Context) (*CommandEvidence, error) {
	if _, err := os.Stat(r.store.SetupPath()); err != nil {
		return nil, nil
	}
	ev, _, err := r.run(ctx, "bash "+shellQuote(r.layout.Setup), r.layout.SetupTimeout)
	if err != nil {
		return nil, fmt.Errorf("running the set-up script %s: %w", r.layout.Setup, err)
	}
	return &ev, nil
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, `'\''`...)
		} else {
			out = append(out, s[i])
		}
	}
	return string(append(out, '\''))
}
