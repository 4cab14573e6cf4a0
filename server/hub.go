package server

import (
	"sort"
	"sync"
)

// record is one event of a session's stream: its sequence id, its type
// and its JSON object.
type record struct {
	seq  uint64
	typ  string
	data []byte
}

// isDelta reports whether an event of type typ is a streaming delta,
// kept only in the bounded ring: everything a delta says is repeated by
// the message_end or tool_end that follows it.
func isDelta(typ string) bool {
	return typ == "message_update" || typ == "tool_update"
}

// hub is the event log of one session: every event gets the next
// sequence id; durable events (everything but deltas) are kept for the
// session's life, deltas in a ring that keeps at least the last ringSize
// (and at most twice as many, so that dropping old ones is amortised). Publishing never
// blocks: subscribers are woken through a channel of one slot and read
// what they have not seen at their own pace, so a slow reader costs the
// run nothing.
type hub struct {
	mu       sync.Mutex
	seq      uint64
	durable  []record
	ring     []record // deltas, oldest first
	ringSize int
	subs     map[chan struct{}]struct{}
	closed   bool
}

func newHub(ringSize int) *hub {
	if ringSize <= 0 {
		ringSize = 1
	}
	return &hub{ringSize: ringSize, subs: map[chan struct{}]struct{}{}}
}

// publish appends an event and wakes the subscribers. It returns the
// event's sequence id.
func (h *hub) publish(typ string, data []byte) uint64 {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return 0
	}
	h.seq++
	r := record{seq: h.seq, typ: typ, data: data}
	if isDelta(typ) {
		if len(h.ring) >= 2*h.ringSize {
			h.ring = append(h.ring[:0], h.ring[len(h.ring)-h.ringSize:]...)
		}
		h.ring = append(h.ring, r)
	} else {
		h.durable = append(h.durable, r)
	}
	for c := range h.subs {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	h.mu.Unlock()
	return r.seq
}

// last is the newest sequence id (0 before the first event).
func (h *hub) last() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}

// after returns up to max events with a sequence id above seq, in order,
// and whether deltas between seq and the first returned event were
// dropped from the ring (the durable events still say all they said).
func (h *hub) after(seq uint64, max int) (out []record, gap bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := sort.Search(len(h.durable), func(i int) bool { return h.durable[i].seq > seq })
	r := sort.Search(len(h.ring), func(i int) bool { return h.ring[i].seq > seq })
	if len(h.ring) > 0 && h.ring[0].seq > seq+1 && r == 0 {
		// Some sequence ids between seq and the ring's oldest are
		// missing; they were deltas only if no durable event holds them.
		gap = h.ring[0].seq-seq-1 > uint64(countBetween(h.durable, seq, h.ring[0].seq))
	}
	for len(out) < max && (d < len(h.durable) || r < len(h.ring)) {
		if r >= len(h.ring) || (d < len(h.durable) && h.durable[d].seq < h.ring[r].seq) {
			out = append(out, h.durable[d])
			d++
		} else {
			out = append(out, h.ring[r])
			r++
		}
	}
	return out, gap
}

// countBetween counts the records of rs with lo < seq < hi.
func countBetween(rs []record, lo, hi uint64) int {
	a := sort.Search(len(rs), func(i int) bool { return rs[i].seq > lo })
	b := sort.Search(len(rs), func(i int) bool { return rs[i].seq >= hi })
	return b - a
}

// subscribe returns a channel that receives a value after new events
// (one pending wake-up at most) and is closed when the hub closes, and
// the function that ends the subscription.
func (h *hub) subscribe() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	if h.closed {
		close(c)
	} else {
		h.subs[c] = struct{}{}
	}
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		if _, ok := h.subs[c]; ok {
			delete(h.subs, c)
			close(c)
		}
		h.mu.Unlock()
	}
}

// subscribers counts the current subscribers.
func (h *hub) subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// close ends every subscription after the events published so far.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for c := range h.subs {
		delete(h.subs, c)
		close(c)
	}
}
