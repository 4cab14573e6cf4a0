package session

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEntryList grows a list by every means, in chunks of every size,
// and checks that it finds every entry where a plain slice has it.
func TestEntryList(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var l entryList
	var want []string
	next := 0
	id := func() string { next++; return fmt.Sprint(next) }
	for len(want) < 5000 {
		switch rng.IntN(3) {
		case 0: // grow some, maybe taking the last back
			for n := rng.IntN(40); n > 0; n-- {
				e := l.grow()
				e.ID = id()
				want = append(want, e.ID)
			}
			if len(want) > 0 && rng.IntN(2) == 0 {
				l.shrink()
				want = want[:len(want)-1]
			}
		default: // adopt an array of any size and claim some of it
			es := make([]Entry, rng.IntN(1500))
			for i := range es {
				es[i].ID = id()
			}
			l.adopt(es)
			for k := range es {
				if rng.IntN(8) == 0 {
					continue
				}
				w := es[k].ID
				if got := l.claim(k).ID; got != w {
					t.Fatalf("claimed %q, want %q", got, w)
				}
				want = append(want, w)
				if rng.IntN(50) == 0 {
					l.shrink()
					want = want[:len(want)-1]
				}
			}
			l.seal()
		}
		if l.len() != len(want) {
			t.Fatalf("%d entries, want %d", l.len(), len(want))
		}
		for i, w := range want {
			if got := l.at(i).ID; got != w {
				t.Fatalf("entry %d is %q, want %q", i, got, w)
			}
		}
	}
	all := l.all()
	for i, w := range want {
		if all[i].ID != w {
			t.Fatalf("all()[%d] is %q, want %q", i, all[i].ID, w)
		}
	}
}
