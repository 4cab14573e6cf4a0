package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Unreadable is a *.jsonl file of a sessions directory that List left
// out, with a few words saying why (an empty file, a first line that is
// not a session header, a file that cannot be opened).
type Unreadable struct {
	Path string
	Why  string
}

// Unlisted finds the *.jsonl files directly in dir that are not among
// infos (what List(dir) returned), so that a listing can show them
// instead of hiding them. A directory that cannot be read yields none.
func Unlisted(dir string, infos []Info) []Unreadable {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	listed := map[string]bool{}
	for _, in := range infos {
		listed[filepath.Base(in.Path)] = true
	}
	var out []Unreadable
	for _, de := range des {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") || listed[de.Name()] {
			continue
		}
		path := filepath.Join(dir, de.Name())
		out = append(out, Unreadable{Path: path, Why: whyUnreadable(path)})
	}
	return out
}

// whyUnreadable says in a few words why a session file cannot be listed.
func whyUnreadable(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if len(bytes.TrimSpace(line)) == 0 && err != nil {
		return "empty file: no session header, nothing to resume"
	}
	var h struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(line, &h) != nil || h.Type != HeaderType {
		return `not a session: the first line is not a {"type":"session",…} header`
	}
	return "unreadable session file"
}

// Nested is a session of a listing with its depth under the session
// that spawned it: 0 for a session a user started, 1 for its
// sub-agents, 2 for theirs.
type Nested struct {
	Info
	Depth int
}

// Nest orders infos for a listing: each session a user started (in the
// order given, newest first as List returns them), followed by the
// sub-agents it spawned, oldest first, each followed by its own. A
// sub-agent whose parent is not among infos is listed at depth 0. Every
// info appears exactly once, also when damaged headers form a cycle.
func Nest(infos []Info) []Nested {
	ids := map[string]bool{}
	for _, in := range infos {
		ids[in.ID] = true
	}
	kids := map[string][]Info{}
	var roots []Info
	for _, in := range infos {
		if in.Agent != nil && in.Agent.ParentSession != in.ID && ids[in.Agent.ParentSession] {
			kids[in.Agent.ParentSession] = append(kids[in.Agent.ParentSession], in)
		} else {
			roots = append(roots, in)
		}
	}
	var out []Nested
	seen := map[string]bool{}
	var walk func(in Info, depth int)
	walk = func(in Info, depth int) {
		if seen[in.ID] {
			return
		}
		seen[in.ID] = true
		out = append(out, Nested{in, depth})
		ks := kids[in.ID]
		sort.SliceStable(ks, func(i, j int) bool { return ks[i].Created.Before(ks[j].Created) })
		for _, k := range ks {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	// A cycle of headers (a damaged file) leaves sessions unreached.
	for _, in := range infos {
		if !seen[in.ID] {
			walk(in, 0)
		}
	}
	return out
}
