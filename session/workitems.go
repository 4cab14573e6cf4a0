package session

import (
	"encoding/json"
	"errors"
	"slices"
)

// WorkItems returns the list of the latest work_items entry (a JSON
// array, see package work), or nil when the session has none. The
// caller must not change it.
func (s *Session) WorkItems() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log.items)
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
