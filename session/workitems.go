package session

import (
	"encoding/json"
	"errors"
	"slices"
)

// WorkItems returns the work-item list of the active branch (a JSON
// array, see package work), or nil when it has none: the list of the
// work_items entry attached deepest on the path from the root to the
// leaf, the latest in the file among those at the same depth. A branch
// so sees the list as it stood at its branch point plus its own changes,
// not another branch's, and Navigate changes the list with the path. The
// caller must not change it.
func (s *Session) WorkItems() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log.itemsOn(s.log.leaf))
}

// WorkItemsAt returns the work-item list as it stands at tree entry id
// (see WorkItems); id "" is the empty path.
func (s *Session) WorkItemsAt(id string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log.itemsOn(id))
}

// itemsOn finds the list of the work_items entry that counts on the path
// from the root to leaf.
func (l *log) itemsOn(leaf string) json.RawMessage {
	if len(l.items) == 0 {
		return nil
	}
	var depth map[string]int
	if leaf != "" {
		idx := l.path(leaf)
		depth = make(map[string]int, len(idx))
		for k, i := range idx {
			depth[l.entries.at(i).ID] = len(idx) - k
		}
	}
	var best json.RawMessage
	bestDepth := -1
	for _, id := range l.items {
		e, ok := l.get(id)
		if !ok {
			continue
		}
		d := 0
		if e.Parent != "" {
			if d, ok = depth[e.Parent]; !ok {
				continue // attached to another branch
			}
		}
		if d >= bestDepth {
			best, bestDepth = e.Items, d
		}
	}
	return best
}

// checkItems checks the payload of a work_items entry: a JSON array.
func checkItems(items json.RawMessage) error {
	if len(items) == 0 {
		return errors.New("no Items")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(items, &list); err != nil {
		return errors.New("Items is not a JSON array")
	}
	return nil
}
