package long

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs git commands in one workspace. rein commits only its own files
// (the progress and notes files); the model commits its work itself.
type git struct {
	root string
	env  []string
}

// GitError is a git command that failed.
type GitError struct {
	Args   []string
	Output string
	Err    error
}

func (e *GitError) Error() string {
	out := strings.TrimSpace(e.Output)
	if out == "" {
		return fmt.Sprintf("git %s: %v", strings.Join(e.Args, " "), e.Err)
	}
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, out)
}

func (e *GitError) Unwrap() error { return e.Err }

func (g git) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", g.root}, args...)...)
	cmd.Env = append(append([]string(nil), g.env...), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), &GitError{Args: args, Output: errb.String() + out.String(), Err: err}
	}
	return out.String(), nil
}

// isRepo reports whether the root is inside a git work tree.
func (g git) isRepo(ctx context.Context) bool {
	out, err := g.run(ctx, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(out) == "true"
}

// head is the commit HEAD names, or "" before the first commit.
func (g git) head(ctx context.Context) (string, error) {
	out, err := g.run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		var ge *GitError
		var ee *exec.ExitError
		if errors.As(err, &ge) && errors.As(ge.Err, &ee) && ee.ExitCode() == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// tree is the tree object of commit.
func (g git) tree(ctx context.Context, commit string) (string, error) {
	out, err := g.run(ctx, "rev-parse", commit+"^{tree}")
	return strings.TrimSpace(out), err
}

// commitsSince lists the commits after from up to HEAD (all of HEAD's
// history when from is ""), newest first, as "hash subject".
func (g git) commitsSince(ctx context.Context, from string) ([]string, error) {
	head, err := g.head(ctx)
	if err != nil || head == "" || head == from {
		return nil, err
	}
	rng := head
	if from != "" {
		rng = from + ".." + head
	}
	out, err := g.run(ctx, "log", "--format=%H %s", rng)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSpace(out), "\n"), nil
}

// dirty lists the paths with changes not committed (untracked files
// included), leaving out .rein/ and the names in except.
func (g git) dirty(ctx context.Context, except ...string) ([]string, error) {
	out, err := g.run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, e := range except {
		skip[filepath.ToSlash(filepath.Clean(e))] = true
	}
	var paths []string
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		path := r[3:]
		if r[0] == 'R' || r[0] == 'C' {
			i++ // the source path follows
		}
		if skip[path] || path == ".rein" || strings.HasPrefix(path, ".rein/") {
			continue
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// identity returns -c options giving a committer when the repository
// names none, so that rein's own commits do not fail on a fresh machine.
func (g git) identity(ctx context.Context) []string {
	if _, err := g.run(ctx, "var", "GIT_COMMITTER_IDENT"); err == nil {
		return nil
	}
	return []string{"-c", "user.name=rein", "-c", "user.email=rein@localhost"}
}

// commitFiles commits the current content of files, and nothing else,
// with message. It does nothing when they match HEAD. It reports whether
// it made a commit.
func (g git) commitFiles(ctx context.Context, message string, files ...string) (bool, error) {
	var present []string
	for _, f := range files {
		if _, err := g.run(ctx, "ls-files", "--error-unmatch", "--", f); err == nil {
			present = append(present, f)
			continue
		}
		if out, _ := g.run(ctx, "status", "--porcelain", "--", f); strings.TrimSpace(out) != "" {
			present = append(present, f)
		}
	}
	if len(present) == 0 {
		return false, nil
	}
	if _, err := g.run(ctx, append([]string{"add", "--"}, present...)...); err != nil {
		return false, err
	}
	head, err := g.head(ctx)
	if err != nil {
		return false, err
	}
	if head != "" {
		if _, err := g.run(ctx, append([]string{"diff", "--quiet", "HEAD", "--"}, present...)...); err == nil {
			return false, nil
		}
	}
	args := append(g.identity(ctx), "commit", "--quiet", "-m", message, "--only", "--")
	if _, err := g.run(ctx, append(args, present...)...); err != nil {
		return false, err
	}
	return true, nil
}
