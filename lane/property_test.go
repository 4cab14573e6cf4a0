package lane_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/lane/lanetest"
)

// The property test drives a scheduler on a fake clock through random
// schedules of requests, releases, cancellations, clock moves, provider
// back-offs and session runs, one operation at a time, and checks every
// decision against a model:
//
//   - cap: the weight of granted slots never exceeds the cap;
//   - order: a request is granted only when no eligible request (its
//     provider not paused) with an earlier deadline (arrival + priority·
//     Aging) still waits, and the scheduler never idles while the first
//     eligible waiter fits;
//   - starvation: no request that arrived after a waiter's deadline is
//     granted before it while it is eligible;
//   - session FIFO: runs of a session start in the order they asked, one
//     at a time, and NoWait fails exactly when the session is taken.

type mreq struct {
	id        string
	prio      lane.Priority
	weight    int
	provider  string
	arrival   time.Time
	deadline  time.Time
	seq       int
	cancel    context.CancelFunc
	slot      *lane.Slot
	state     int // 0 waiting, 1 granted, 2 done
	grantedAt time.Time
}

type mrun struct {
	id      string
	session string
	cancel  context.CancelFunc
	run     *lane.Run
	state   int
}

type runResult struct {
	id  string
	run *lane.Run
	err error
}

type sim struct {
	t       *testing.T
	rng     *rand.Rand
	clock   *lanetest.Clock
	s       *lane.Scheduler
	evs     chan lane.Event
	o       lane.Options
	reqs    map[string]*mreq
	out     chan acquired
	runs    map[string]*mrun
	runOut  chan runResult
	fifo    map[string][]*mrun // waiting runs per session
	holder  map[string]*mrun
	paused  map[string]time.Time
	seq     int
	n       int
	used    int
	stats   *propStats
	early   []acquired
	queued  map[string]bool
	lastErr string
}

type propStats struct {
	schedules, ops, grants, runs                            int
	capViolations, orderViolations, starved, fifoViolations int
}

func (m *sim) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf(format, args...)
}

func (m *sim) eligible(r *mreq) bool { return m.eligibleAt(r, m.clock.Now()) }

func (m *sim) eligibleAt(r *mreq, at time.Time) bool { return !at.Before(m.paused[r.provider]) }

func before(a, b *mreq) bool {
	if !a.deadline.Equal(b.deadline) {
		return a.deadline.Before(b.deadline)
	}
	return a.seq < b.seq
}

// drain applies the events that have arrived: grants, expiries.
func (m *sim) drain() []*mreq {
	var granted []*mreq
	for {
		select {
		case e := <-m.evs:
			switch e.Type {
			case lane.EventGranted:
				r := m.reqs[e.Session]
				if r == nil || r.state != 0 {
					m.fail("grant of %q in state %v", e.Session, r)
				}
				r.state = 1
				m.used += r.weight
				m.stats.grants++
				if m.used > m.o.MaxRequests {
					m.stats.capViolations++
				}
				if !m.eligibleAt(r, e.At) {
					m.stats.orderViolations++
				}
				r.grantedAt = e.At
				granted = append(granted, r)
			case lane.EventQueued:
				m.queued[e.Session] = true
			case lane.EventExpired:
				if r := m.reqs[e.Session]; r != nil && r.state == 1 {
					r.state = 2
					m.used -= r.weight
				}
			}
		default:
			return granted
		}
	}
}

// check verifies the order properties after an operation granted gs.
func (m *sim) check(gs []*mreq) {
	var waiting, all []*mreq
	for _, r := range m.reqs {
		if r.state == 0 {
			all = append(all, r)
			if m.eligible(r) {
				waiting = append(waiting, r)
			}
		}
	}
	sort.Slice(waiting, func(i, j int) bool { return before(waiting[i], waiting[j]) })
	for _, g := range gs {
		// Whoever still waits now also waited when g was granted.
		for _, w := range all {
			if !m.eligibleAt(w, g.grantedAt) {
				continue
			}
			if before(w, g) {
				m.stats.orderViolations++
			}
			if g.arrival.After(w.deadline) {
				m.stats.starved++
			}
		}
	}
	if len(waiting) > 0 && m.used+waiting[0].weight <= m.o.MaxRequests {
		m.stats.orderViolations++
	}
	if st := m.s.Stats(); st.InUse != m.used {
		m.fail("scheduler says %d in use, model %d", st.InUse, m.used)
	}
}

func (m *sim) pick(state int) *mreq {
	var c []*mreq
	for _, r := range m.reqs {
		if r.state == state {
			c = append(c, r)
		}
	}
	if len(c) == 0 {
		return nil
	}
	sort.Slice(c, func(i, j int) bool { return c[i].seq < c[j].seq })
	return c[m.rng.IntN(len(c))]
}

func (m *sim) acquire() {
	m.n++
	m.seq++
	p := lane.Priority(m.rng.IntN(3))
	now := m.clock.Now()
	r := &mreq{id: fmt.Sprint("r", m.n), prio: p, weight: 1 + m.rng.IntN(m.o.MaxRequests),
		provider: fmt.Sprint("p", m.rng.IntN(2)), arrival: now, deadline: now.Add(time.Duration(p) * m.o.Aging), seq: m.seq}
	var ctx context.Context
	ctx, r.cancel = context.WithCancel(context.Background())
	m.reqs[r.id] = r
	// The request's own decision (queued or granted) is emitted on its
	// goroutine before Acquire returns or blocks: wait for it.
	acquireAsync(ctx, m.s, lane.Request{Session: r.id, Priority: p, Weight: r.weight, Provider: r.provider}, r.id, m.out)
	// Its grants (of itself, or of others) are emitted before its
	// queued event; a request granted at once has no queued event.
	var gs []*mreq
	for !m.queued[r.id] && r.state != 1 {
		m.evs <- <-m.evs
		gs = append(gs, m.drain()...)
	}
	gs = append(gs, m.drain()...)
	m.check(gs)
	m.collect(gs)
}

// collect picks up the slots of requests granted to waiting goroutines.
func (m *sim) collect(gs []*mreq) {
	for range gs {
		var a acquired
		if len(m.early) > 0 {
			a, m.early = m.early[0], m.early[1:]
		} else {
			a = <-m.out
		}
		if a.err != nil {
			m.fail("granted request %s returned %v", a.tag, a.err)
		}
		m.reqs[a.tag].slot = a.slot
	}
}

func (m *sim) release() {
	r := m.pick(1)
	if r == nil {
		return
	}
	r.state = 2
	m.used -= r.weight
	r.slot.Release()
	gs := m.drain()
	m.check(gs)
	m.collect(gs)
}

func (m *sim) cancelOne() {
	r := m.pick(0)
	if r == nil {
		return
	}
	r.cancel()
	for {
		a := <-m.out
		if a.tag != r.id {
			m.early = append(m.early, a) // granted when r left the queue
			continue
		}
		if a.err == nil {
			m.fail("cancelled %s was granted", r.id)
		}
		break
	}
	r.state = 2
	gs := m.drain()
	m.check(gs)
	m.collect(gs)
}

func (m *sim) advance() {
	m.clock.Advance(time.Duration(m.rng.IntN(4000)) * time.Millisecond)
	gs := m.drain()
	m.check(gs)
	m.collect(gs)
}

func (m *sim) backoff() {
	p := fmt.Sprint("p", m.rng.IntN(2))
	d := time.Duration(1+m.rng.IntN(5000)) * time.Millisecond
	if until := m.clock.Now().Add(d); until.After(m.paused[p]) {
		m.paused[p] = until
	}
	m.s.Backoff(p, d)
	// A paused head lets lighter requests behind it go.
	gs := m.drain()
	m.check(gs)
	m.collect(gs)
}

func (m *sim) enter() {
	m.n++
	sess := fmt.Sprint("s", m.rng.IntN(3))
	r := &mrun{id: fmt.Sprint("run", m.n), session: sess}
	noWait := m.rng.IntN(4) == 0
	var ctx context.Context
	ctx, r.cancel = context.WithCancel(context.Background())
	busy := m.holder[sess] != nil || len(m.fifo[sess]) > 0
	go func() {
		c, run, err := m.s.Enter(ctx, lane.RunOptions{Session: sess, NoWait: noWait})
		_ = c
		m.runOut <- runResult{r.id, run, err}
	}()
	if noWait {
		res := <-m.runOut
		if busy != (res.err != nil) {
			m.stats.fifoViolations++
		}
		if res.err == nil {
			r.run, r.state = res.run, 1
			m.holder[sess] = r
			m.stats.runs++
		}
		return
	}
	m.runs[r.id] = r
	if busy {
		for e := range m.evs {
			if e.Type == lane.EventRunWait {
				break
			}
		}
		m.fifo[sess] = append(m.fifo[sess], r)
		return
	}
	res := <-m.runOut
	if res.err != nil || res.id != r.id {
		m.fail("enter on a free session: %v", res.err)
	}
	r.run, r.state = res.run, 1
	m.holder[sess] = r
	m.stats.runs++
}

func (m *sim) leave() {
	var held []*mrun
	for _, s := range []string{"s0", "s1", "s2"} {
		if h := m.holder[s]; h != nil {
			held = append(held, h)
		}
	}
	if len(held) == 0 {
		return
	}
	h := held[m.rng.IntN(len(held))]
	delete(m.holder, h.session)
	h.run.Release()
	q := m.fifo[h.session]
	if len(q) == 0 {
		return
	}
	next := q[0]
	m.fifo[h.session] = q[1:]
	res := <-m.runOut
	if res.err != nil || res.id != next.id {
		m.stats.fifoViolations++
		m.fail("session %s went to %s (%v), want %s", h.session, res.id, res.err, next.id)
	}
	next.run, next.state = res.run, 1
	m.holder[h.session] = next
	m.stats.runs++
}

func (m *sim) cancelRun() {
	for _, s := range []string{"s0", "s1", "s2"} {
		q := m.fifo[s]
		if len(q) == 0 {
			continue
		}
		i := m.rng.IntN(len(q))
		r := q[i]
		m.fifo[s] = append(q[:i:i], q[i+1:]...)
		r.cancel()
		if res := <-m.runOut; res.id != r.id || res.err == nil {
			m.fail("cancelled run %s: got %s %v", r.id, res.id, res.err)
		}
		return
	}
}

// finish releases everything so no goroutine outlives the schedule.
func (m *sim) finish() {
	for _, s := range []string{"s0", "s1", "s2"} {
		for _, r := range m.fifo[s] {
			r.cancel()
			<-m.runOut
		}
		m.fifo[s] = nil
		if h := m.holder[s]; h != nil {
			h.run.Release()
		}
	}
	waiting := 0
	for _, r := range m.reqs {
		if r.state == 0 {
			waiting++
			r.cancel()
		}
	}
	for range waiting {
		if a := <-m.out; a.slot != nil {
			a.slot.Release()
		}
	}
	for _, r := range m.reqs {
		if r.state == 1 {
			r.slot.Release()
		}
		r.cancel()
	}
	if st := m.s.Stats(); st.InUse != 0 || st.Waiting != 0 || st.Runs != 0 || st.Queued != 0 {
		for _, r := range m.reqs {
			m.t.Logf("%s state %d slot %v w %d", r.id, r.state, r.slot != nil, r.weight)
		}
		m.fail("left over: %+v", st)
	}
}

func runSchedule(t *testing.T, seed uint64, st *propStats) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	o := lane.Options{MaxRequests: 1 + rng.IntN(4), Aging: time.Duration(1+rng.IntN(5)) * time.Second,
		RequestIdle: time.Duration(5+rng.IntN(20)) * time.Second, BackoffMax: 10 * time.Second}
	clock := lanetest.New(epoch)
	evs := make(chan lane.Event, 1024)
	o.Clock = clock
	o.Observe = func(e lane.Event) {
		if e.Type != lane.EventReleased && e.Type != lane.EventRunStart && e.Type != lane.EventRunEnd {
			evs <- e
		}
	}
	s, err := lane.New(o)
	if err != nil {
		t.Fatal(err)
	}
	m := &sim{t: t, rng: rng, clock: clock, s: s, evs: evs, o: s.Options(), reqs: map[string]*mreq{},
		out: make(chan acquired, 256), runs: map[string]*mrun{}, runOut: make(chan runResult, 256),
		fifo: map[string][]*mrun{}, holder: map[string]*mrun{}, paused: map[string]time.Time{}, stats: st, queued: map[string]bool{}}
	ops := 10 + rng.IntN(30)
	for range ops {
		switch k := rng.IntN(100); {
		case k < 30:
			m.acquire()
		case k < 50:
			m.release()
		case k < 58:
			m.cancelOne()
		case k < 68:
			m.advance()
		case k < 73:
			m.backoff()
		case k < 85:
			m.enter()
		case k < 95:
			m.leave()
		default:
			m.cancelRun()
		}
		st.ops++
	}
	m.finish()
	st.schedules++
}

func TestPropertyRandomSchedules(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	var st propStats
	for seed := range uint64(n) {
		runSchedule(t, seed, &st)
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
	t.Logf("%d schedules, %d operations, %d grants, %d runs: %d cap, %d order, %d starvation, %d FIFO violations",
		st.schedules, st.ops, st.grants, st.runs, st.capViolations, st.orderViolations, st.starved, st.fifoViolations)
	if st.capViolations+st.orderViolations+st.starved+st.fifoViolations != 0 {
		t.Fatal("violations")
	}
	if st.grants < n || st.runs < n {
		t.Fatalf("the schedules exercised too little: %d grants, %d runs", st.grants, st.runs)
	}
}
