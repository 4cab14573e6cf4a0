package coding

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/session"
)

// FindEntry resolves an entry id, or a unique prefix of one, among the
// tree entries.
func FindEntry(entries []session.Entry, ref string) (string, error) {
	var matches []string
	for _, e := range entries {
		if !e.IsTree() {
			continue
		}
		if e.ID == ref {
			return ref, nil
		}
		if strings.HasPrefix(e.ID, ref) {
			matches = append(matches, e.ID)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no entry %q", ref)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("%q matches %d entries (%s); give more of the id", ref, len(matches), strings.Join(matches[:min(len(matches), 5)], ", "))
}

// FindSession resolves a session reference to its file: a file path,
// "last" (or "latest") for the newest session of the workspace (workdir,
// see WorkspaceDir), or an id or a unique prefix of one.
func FindSession(workdir, ref string) (string, error) {
	if ref == "" {
		return "", errors.New("name a session: a path, an id (or a unique prefix), or last")
	}
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		return ref, nil
	}
	root, err := WorkspaceDir(workdir)
	if err != nil {
		return "", err
	}
	dir := session.DefaultDir(root)
	infos, err := session.List(dir)
	if err != nil {
		return "", err
	}
	if len(infos) == 0 {
		return "", fmt.Errorf("no sessions in %s", dir)
	}
	if ref == "last" || ref == "latest" {
		return infos[0].Path, nil
	}
	var matches []session.Info
	for _, in := range infos {
		if strings.HasPrefix(in.ID, ref) || strings.HasPrefix(filepath.Base(in.Path), ref) {
			matches = append(matches, in)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no session %q in %s; rein sessions list shows them", ref, dir)
	case 1:
		return matches[0].Path, nil
	}
	ids := make([]string, len(matches))
	for i, m := range matches {
		ids[i] = ShortID(m.ID)
	}
	return "", fmt.Errorf("%q matches %d sessions (%s); give more of the id", ref, len(matches), strings.Join(ids, ", "))
}

// SessionMenu returns the workspace's latest sessions (workdir, see
// WorkspaceDir), newest first and at most n, with a menu of them to
// choose from: one numbered line each, from 1, with the short id, the
// time and the first message on one line. It fails when the workspace
// has no session.
func SessionMenu(workdir string, n int) ([]session.Info, string, error) {
	root, err := WorkspaceDir(workdir)
	if err != nil {
		return nil, "", err
	}
	infos, err := session.List(session.DefaultDir(root))
	if err != nil {
		return nil, "", err
	}
	if len(infos) == 0 {
		return nil, "", fmt.Errorf("no sessions to resume in %s", root)
	}
	infos = infos[:min(len(infos), n)]
	var b strings.Builder
	for i, in := range infos {
		first := strings.Join(strings.Fields(in.FirstMessage), " ")
		if len(first) > 60 {
			first = first[:57] + "…"
		}
		fmt.Fprintf(&b, "%2d  %s  %s  %s\n", i+1, ShortID(in.ID), in.Modified.Format("2006-01-02 15:04"), first)
	}
	return infos, b.String(), nil
}
