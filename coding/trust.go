package coding

import (
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/trust"
)

// ConfigDir is rein's user config directory (~/.config/rein), or "" when
// the environment names no home.
func ConfigDir(getenv func(string) string) string {
	if p := catalog.UserConfigPath(getenv); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// TrustStore is the user's record of trusted workspace content; its
// Path is "" without a user config directory.
func TrustStore(getenv func(string) string) trust.Store {
	d := ConfigDir(getenv)
	if d == "" {
		return trust.Store{}
	}
	return trust.Store{Path: filepath.Join(d, "trusted.json")}
}

// WorkspaceTrust scans the workspace's files that can act and compares
// them with the user's record. REIN_TRUST_WORKSPACE=1 trusts everything
// for this run. A workspace an earlier rein trusted by folder only has
// its current content recorded now, once, with a note. A broken record
// trusts nothing, with a warning.
func WorkspaceTrust(o Options, root string) (*trust.Status, error) {
	o.defaults()
	snap, err := trust.Scan(root)
	if err != nil {
		return nil, err
	}
	store := TrustStore(o.Getenv)
	st, err := store.Check(snap)
	if err != nil {
		o.warnf("warning: %v", err)
	}
	switch strings.ToLower(o.Getenv(trust.EnvOverride)) {
	case "1", "true", "yes":
		st.Override = true
	}
	if st.Legacy {
		if err := store.Accept(snap); err != nil {
			o.warnf("warning: could not record this workspace's trusted files: %v", err)
		} else if len(snap.Files) > 0 {
			o.warnf("note: you trusted %s with an earlier rein; its %d settings file(s) are now recorded, and a change to them will ask again (rein trust --list)", snap.Root, len(snap.Files))
		}
	}
	return st, nil
}

// settleTrust decides what the workspace's untrusted content does before
// anything is read from it: with everything trusted, nothing; else
// ConfirmTrust asks (a yes records the content), a run no one can ask
// stops with a *trust.UntrustedError, and an interactive run without
// ConfirmTrust goes on without that content, saying once what it
// ignores.
func (s *setup) settleTrust() error {
	st, err := WorkspaceTrust(s.o, s.ws.Root)
	if err != nil {
		return err
	}
	s.trust = st
	if st.OK() || st.Legacy {
		return nil
	}
	switch {
	case s.o.ConfirmTrust != nil:
		if s.o.ConfirmTrust(st) {
			if err := TrustStore(s.o.Getenv).Accept(st.Snapshot); err != nil {
				s.o.warnf("warning: could not record the trust (%v); it holds for this run only", err)
			}
			st.Override = true
			return nil
		}
	case !s.o.Interactive:
		return &trust.UntrustedError{Status: st}
	}
	s.o.warnf("note: this workspace is not trusted, so rein ignores what these files would do (rein trust applies them):\n%s", strings.TrimRight(st.Describe(), "\n"))
	return nil
}

// trusted reports whether the workspace file at path (relative to the
// root, or absolute) may act; nothing is before settleTrust.
func (s *setup) trusted(path string) bool { return s.trust.Trusted(path) }
