package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Store is the user's record of trusted workspace content, one JSON
// file (~/.config/rein/trusted.json). Writes hold a lock file beside it
// and replace the file atomically, so two rein processes do not lose
// each other's records.
type Store struct{ Path string }

// Entry is one trusted workspace.
type Entry struct {
	// Path is the workspace root, absolute with links resolved.
	Path string `json:"path"`
	// Time is when the user last trusted it.
	Time time.Time `json:"time,omitzero"`
	// Files are the trusted files by path relative to the root.
	Files map[string]File `json:"files"`
	// Legacy marks an entry written by an earlier rein, which trusted
	// the folder without recording its content.
	Legacy bool `json:"-"`
}

// MarshalJSON writes an earlier rein's entry as it was, a bare path, so
// that rewriting the store keeps it for the workspaces it covers.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.Legacy {
		return json.Marshal(e.Path)
	}
	type plain Entry
	return json.Marshal(plain(e))
}

// doc is the store's file. Version 1 was {"workspaces": ["/path", …]}.
type doc struct {
	Version    int     `json:"version"`
	Workspaces []Entry `json:"workspaces"`
}

func (s Store) load() (doc, error) {
	d := doc{Version: 2}
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	var raw struct {
		Workspaces []json.RawMessage `json:"workspaces"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return d, fmt.Errorf("the trust file %s is not valid JSON (%v); fix or delete it, then trust the workspace again", s.Path, err)
	}
	for _, w := range raw.Workspaces {
		var path string
		if json.Unmarshal(w, &path) == nil {
			d.Workspaces = append(d.Workspaces, Entry{Path: path, Legacy: true})
			continue
		}
		var e Entry
		if err := json.Unmarshal(w, &e); err != nil || e.Path == "" {
			return d, fmt.Errorf("the trust file %s has an entry rein cannot read (%s); fix or delete it, then trust the workspace again", s.Path, compact(w))
		}
		for p, f := range e.Files {
			f.Path = p
			e.Files[p] = f
		}
		d.Workspaces = append(d.Workspaces, e)
	}
	return d, nil
}

func (s Store) save(d doc) error {
	d.Version = 2
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), ".trusted-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(out, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), s.Path)
}

// change loads the store under its lock, lets fn change it, and saves
// it.
func (s Store) change(fn func(d *doc) error) error {
	if s.Path == "" {
		return errors.New("no user config directory to keep trust in: set HOME or XDG_CONFIG_HOME")
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	lock := flock.New(s.Path + ".lock")
	if err := lock.Lock(); err != nil {
		return err
	}
	defer lock.Unlock()
	d, err := s.load()
	if err != nil {
		return err
	}
	if err := fn(&d); err != nil {
		return err
	}
	return s.save(d)
}

// find returns the entry of root, or -1.
func (d *doc) find(root string) int {
	return slices.IndexFunc(d.Workspaces, func(e Entry) bool { return e.Path == root && !e.Legacy })
}

// legacy returns the earlier rein's entry that covers root (root itself
// or a folder above it), or -1.
func (d *doc) legacy(root string) int {
	return slices.IndexFunc(d.Workspaces, func(e Entry) bool {
		return e.Legacy && (e.Path == root || within(e.Path, root))
	})
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// List returns the trusted workspaces.
func (s Store) List() ([]Entry, error) {
	if s.Path == "" {
		return nil, nil
	}
	d, err := s.load()
	return d.Workspaces, err
}

// Accept trusts everything the snapshot holds: the workspace's record
// becomes exactly its files.
func (s Store) Accept(snap *Snapshot) error {
	return s.change(func(d *doc) error {
		e := Entry{Path: snap.Root, Time: time.Now().UTC(), Files: map[string]File{}}
		for _, f := range snap.Files {
			e.Files[f.Path] = f
		}
		d.Workspaces = slices.DeleteFunc(d.Workspaces, func(e Entry) bool { return e.Legacy && e.Path == snap.Root })
		if i := d.find(snap.Root); i >= 0 {
			d.Workspaces[i] = e
		} else {
			d.Workspaces = append(d.Workspaces, e)
		}
		return nil
	})
}

// Revoke forgets the workspace (and an earlier rein's folder entry for
// it); it reports whether there was anything to forget.
func (s Store) Revoke(root string) (bool, error) {
	root = canonical(root)
	found := false
	err := s.change(func(d *doc) error {
		n := len(d.Workspaces)
		d.Workspaces = slices.DeleteFunc(d.Workspaces, func(e Entry) bool { return e.Path == root })
		found = len(d.Workspaces) < n
		return nil
	})
	return found, err
}

// Update runs write, which changes the watched file rel of the workspace
// (rein storing an "allow always" answer in .rein/settings.local.json),
// and records the file's new content as trusted when its old content
// was: the user's own answer never asks for trust. A file whose old
// content was not trusted stays untrusted, so writing to it does not
// bless what someone else put there. It reports whether the new content
// was recorded.
func (s Store) Update(root, rel string, write func() error) (bool, error) {
	root = canonical(root)
	before, err := ScanFile(root, rel)
	if err != nil {
		return false, err
	}
	d, err := s.load()
	if err != nil && s.Path != "" {
		return false, err
	}
	was := before == nil
	if i := d.find(root); i >= 0 && before != nil {
		rec, ok := d.Workspaces[i].Files[rel]
		was = ok && rec.Hash == before.Hash
	}
	if err := write(); err != nil {
		return false, err
	}
	if !was || s.Path == "" {
		return false, nil
	}
	after, err := ScanFile(root, rel)
	if err != nil {
		return false, err
	}
	return true, s.change(func(d *doc) error {
		i := d.find(root)
		if i < 0 {
			d.Workspaces = append(d.Workspaces, Entry{Path: root, Files: map[string]File{}})
			i = len(d.Workspaces) - 1
		}
		e := &d.Workspaces[i]
		if e.Files == nil {
			e.Files = map[string]File{}
		}
		if after == nil {
			delete(e.Files, rel)
		} else {
			e.Files[rel] = *after
		}
		return nil
	})
}
