package trust

import (
	"fmt"
	"slices"
	"strings"
)

// Change is a file whose content is not trusted.
type Change struct {
	// Path is relative to the workspace root.
	Path string
	// New is set when the file was never trusted; Added then holds all
	// its items.
	New bool
	// Added and Removed are the items since the trusted version.
	Added, Removed []string
}

// Status is how a Snapshot compares with the store.
type Status struct {
	Snapshot *Snapshot
	// Changes are the files not trusted, by path.
	Changes []Change
	// Legacy is set when an earlier rein trusted the workspace (or a
	// folder above it) without recording content: the caller records the
	// snapshot (Store.Accept) and says so once.
	Legacy bool
	// Override is set when the caller trusts everything for this run
	// (REIN_TRUST_WORKSPACE=1): Trusted then says yes to every file.
	Override bool
}

// Check compares snap with the store. A workspace with nothing that
// needs trust is trusted; a broken store trusts nothing and is
// returned as the error beside a status listing every file as new.
func (s Store) Check(snap *Snapshot) (*Status, error) {
	st := &Status{Snapshot: snap}
	var d doc
	var err error
	if s.Path != "" {
		d, err = s.load()
	}
	var rec map[string]File
	if i := d.find(snap.Root); i >= 0 && err == nil {
		rec = d.Workspaces[i].Files
	} else if err == nil && d.legacy(snap.Root) >= 0 {
		st.Legacy = true
		return st, nil
	}
	for _, f := range snap.Files {
		old, ok := rec[f.Path]
		if ok && old.Hash == f.Hash {
			continue
		}
		c := Change{Path: f.Path, New: !ok}
		if ok {
			c.Added = minus(f.Items, old.Items)
			c.Removed = minus(old.Items, f.Items)
		} else {
			c.Added = f.Items
		}
		st.Changes = append(st.Changes, c)
	}
	return st, err
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// OK reports whether everything the workspace holds is trusted.
func (st *Status) OK() bool { return st.Override || len(st.Changes) == 0 }

// Trusted reports whether the file at path (absolute, or relative to the
// workspace root) may act. A file with nothing that needs trust is
// trusted.
func (st *Status) Trusted(path string) bool {
	if st == nil {
		return false
	}
	if st.Override || st.Legacy {
		return true
	}
	rel := st.Snapshot.rel(path)
	return !slices.ContainsFunc(st.Changes, func(c Change) bool { return c.Path == rel })
}

// Untrusted lists the paths of the files not trusted.
func (st *Status) Untrusted() []string {
	if st.OK() {
		return nil
	}
	out := make([]string, len(st.Changes))
	for i, c := range st.Changes {
		out[i] = c.Path
	}
	return out
}

// Describe lists the untrusted files and what is new in each, indented,
// one item a line: what the user reads before deciding.
func (st *Status) Describe() string {
	var b strings.Builder
	for _, c := range st.Changes {
		if c.New {
			fmt.Fprintf(&b, "  %s (not trusted before):\n", c.Path)
		} else {
			fmt.Fprintf(&b, "  %s (changed since you trusted it):\n", c.Path)
		}
		for _, it := range c.Added {
			fmt.Fprintf(&b, "    + %s\n", it)
		}
		for _, it := range c.Removed {
			fmt.Fprintf(&b, "    - %s\n", it)
		}
	}
	return b.String()
}

// EnvOverride is the environment variable that trusts a workspace's
// current content for one run, for CI jobs: "1" or "true".
const EnvOverride = "REIN_TRUST_WORKSPACE"

// UntrustedError stops a run that no one can ask: the workspace holds
// content that would run commands, change where requests go or loosen
// confinement, and the user has not trusted it.
type UntrustedError struct {
	Status *Status
}

func (e *UntrustedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "this workspace (%s) has settings that run commands, send requests or keys elsewhere, or loosen the sandbox, and you have not trusted them:\n", e.Status.Snapshot.Root)
	b.WriteString(e.Status.Describe())
	b.WriteString("Nothing was sent and nothing ran. Review them; then run `rein trust` in the workspace, or set " + EnvOverride + "=1 for this run (CI jobs).")
	return b.String()
}
