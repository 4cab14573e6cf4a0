package session

import (
	"fmt"
	"testing"
)

// TestSlabNext fills many elements in place, more than an array holds,
// and checks that they are handed out intact and that dropped ones are
// cleared.
func TestSlabNext(t *testing.T) {
	var s slab[Entry]
	for _, n := range []int{0, 1, 3, 200, 1000, 2} {
		for k := range n {
			s.next(k, 16).ID = fmt.Sprint(k)
		}
		got := s.take(n, 16)
		if len(got) != n || cap(got) != n {
			t.Fatalf("took %d/%d, want %d", len(got), cap(got), n)
		}
		for k := range got {
			if got[k].ID != fmt.Sprint(k) {
				t.Fatalf("element %d of %d is %q", k, n, got[k].ID)
			}
		}
		s.next(0, 16).ID = "dropped"
		s.drop(1)
		if e := s.take(1, 16)[0]; e.ID != "" {
			t.Fatalf("a dropped element was handed out: %q", e.ID)
		}
	}
}
