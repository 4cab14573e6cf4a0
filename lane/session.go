package lane

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// RunOptions describe a run asking for its session.
type RunOptions struct {
	// Session is the session's key (its id or file path); required.
	Session string
	// LockFile, when set, extends the FIFO across processes: a small
	// lock file beside the session (such as <session>.run.lock) held
	// while this process runs the session. Every run of a session must
	// name the same file. "" keeps the lane within this process.
	LockFile string
	// NoWait fails at once with a *BusyError when the session runs or
	// has runs queued, instead of waiting in line.
	NoWait bool
	// Priority of the run's model requests; when zero, the context's.
	Priority Priority
}

// Run is a session's turn to run: while it is held, no other run of the
// session starts, in this process or (with LockFile) in another. Runs
// of a session start in the order they asked (strict FIFO).
type Run struct {
	s        *Scheduler
	l        *sessionLane
	session  string
	priority Priority
	since    time.Time
	waited   time.Duration
	ready    chan struct{}
	granted  bool // guarded by s.mu
	done     bool // guarded by s.mu
	cancel   context.CancelCauseFunc
	tk       *ticket // its place in the queue across processes, while it waits
	last     atomic.Int64
	timer    Timer
	once     sync.Once
}

// sessionLane is the FIFO of one session key.
type sessionLane struct {
	key      string
	lockFile string
	holder   *Run
	waiters  []*Run
	lock     *fileLock // held while holder or waiters of this process run
	poll     Timer     // retries the lock file for the head waiter
}

// Enter waits for the session's turn (or, with NoWait, fails with a
// *BusyError when it is taken) and returns a context for the run and the
// run. The context carries the run: model requests made with it take
// the run's priority, and their progress resets the run's idle timeout.
// It is cancelled with an *IdleError when the run is taken back after
// Options.RunIdle without progress. The caller must Release the run.
//
// When ctx ends while waiting, Enter returns its error and holds
// nothing. A bad LockFile (its folder cannot be made) is an error.
func (s *Scheduler) Enter(ctx context.Context, o RunOptions) (context.Context, *Run, error) {
	if o.Session == "" {
		return nil, nil, &ConfigError{"Session", "a run needs a session key"}
	}
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	ri, _ := ctx.Value(ctxKey{}).(runInfo)
	if o.Priority == 0 {
		o.Priority = ri.priority
	}
	r := &Run{s: s, session: o.Session, priority: o.Priority, since: s.clock.Now(), ready: make(chan struct{})}
	s.mu.Lock()
	l := s.sessions[o.Session]
	if l == nil {
		l = &sessionLane{key: o.Session, lockFile: o.LockFile}
		s.sessions[o.Session] = l
	}
	r.l = l
	if l.holder != nil || len(l.waiters) > 0 {
		if o.NoWait {
			err := &BusyError{Session: o.Session, Queued: len(l.waiters)}
			s.mu.Unlock()
			return nil, nil, err
		}
		if l.lockFile != "" {
			tk, err := takeTicket(l.lockFile)
			if err != nil {
				s.mu.Unlock()
				return nil, nil, err
			}
			r.tk = tk
		}
		l.waiters = append(l.waiters, r)
		s.mu.Unlock()
		s.emit(Event{Type: EventRunWait, Session: o.Session, Priority: o.Priority})
		return s.waitRun(ctx, r, ri)
	}
	if l.lockFile != "" && l.lock == nil {
		// Runs of other processes that wait for the session go first.
		var fl *fileLock
		pid, err := 0, error(nil)
		if first(l.lockFile, "") {
			fl, pid, err = tryLock(l.lockFile)
		} else {
			pid = readHolder(l.lockFile)
		}
		if err != nil {
			s.dropLocked(l)
			s.mu.Unlock()
			return nil, nil, err
		}
		if fl == nil {
			if o.NoWait {
				s.dropLocked(l)
				s.mu.Unlock()
				return nil, nil, &BusyError{Session: o.Session, PID: pid}
			}
			if r.tk, err = takeTicket(l.lockFile); err != nil {
				s.dropLocked(l)
				s.mu.Unlock()
				return nil, nil, err
			}
			l.waiters = append(l.waiters, r)
			s.schedulePollLocked(l)
			s.mu.Unlock()
			s.emit(Event{Type: EventRunWait, Session: o.Session, Priority: o.Priority})
			return s.waitRun(ctx, r, ri)
		}
		l.lock = fl
	}
	ev := s.grantLocked(l, r)
	s.mu.Unlock()
	s.emit(ev)
	return s.startRun(ctx, r, ri)
}

// waitRun waits for r's grant or ctx's end.
func (s *Scheduler) waitRun(ctx context.Context, r *Run, ri runInfo) (context.Context, *Run, error) {
	select {
	case <-r.ready:
		return s.startRun(ctx, r, ri)
	case <-ctx.Done():
	}
	s.mu.Lock()
	if r.granted {
		s.mu.Unlock()
		r.Release()
		return nil, nil, context.Cause(ctx)
	}
	l := r.l
	for i, w := range l.waiters {
		if w == r {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			break
		}
	}
	r.tk.drop(l.lockFile)
	if l.holder == nil && len(l.waiters) == 0 {
		s.dropLocked(l)
	}
	s.mu.Unlock()
	return nil, nil, context.Cause(ctx)
}

// startRun gives the granted run its context.
func (s *Scheduler) startRun(ctx context.Context, r *Run, ri runInfo) (context.Context, *Run, error) {
	ri.session, ri.priority, ri.run = r.session, r.priority, r
	rctx, cancel := context.WithCancelCause(context.WithValue(ctx, ctxKey{}, ri))
	s.mu.Lock()
	r.cancel = cancel
	done := r.done
	s.mu.Unlock()
	if done {
		cancel(&IdleError{What: "run", Session: r.session, Timeout: s.o.RunIdle})
	}
	return rctx, r, nil
}

// grantLocked makes r the holder of l.
func (s *Scheduler) grantLocked(l *sessionLane, r *Run) Event {
	now := s.clock.Now()
	l.holder = r
	r.granted = true
	r.waited = now.Sub(r.since)
	r.last.Store(now.UnixNano())
	if s.o.RunIdle > 0 {
		r.timer = s.clock.AfterFunc(s.o.RunIdle, r.checkIdle)
	}
	close(r.ready)
	return Event{Type: EventRunStart, Session: r.session, Priority: r.priority, Waited: r.waited}
}

// dropLocked forgets an idle lane and lets go of its lock file.
func (s *Scheduler) dropLocked(l *sessionLane) {
	if l.poll != nil {
		l.poll.Stop()
		l.poll = nil
	}
	l.lock.release()
	l.lock = nil
	if s.sessions[l.key] == l {
		delete(s.sessions, l.key)
	}
}

// schedulePollLocked retries the lock file for the head waiter after
// PollInterval.
func (s *Scheduler) schedulePollLocked(l *sessionLane) {
	if l.poll != nil {
		return
	}
	l.poll = s.clock.AfterFunc(s.o.PollInterval, func() {
		s.mu.Lock()
		l.poll = nil
		if s.sessions[l.key] != l || l.holder != nil || len(l.waiters) == 0 {
			s.mu.Unlock()
			return
		}
		r := l.waiters[0]
		if r.tk != nil && !first(l.lockFile, r.tk.name) {
			// A run of another process asked first.
			s.schedulePollLocked(l)
			s.mu.Unlock()
			return
		}
		fl, _, err := tryLock(l.lockFile)
		if err != nil || fl == nil {
			s.schedulePollLocked(l)
			s.mu.Unlock()
			return
		}
		l.lock = fl
		l.waiters = l.waiters[1:]
		r.tk.drop(l.lockFile)
		ev := s.grantLocked(l, r)
		s.mu.Unlock()
		s.emit(ev)
	})
}

// Session is the run's session key ("" for a nil run).
func (r *Run) Session() string {
	if r == nil {
		return ""
	}
	return r.session
}

// Priority is the priority of the run's model requests.
func (r *Run) Priority() Priority { return r.priority }

// Waited is how long the run waited for its turn.
func (r *Run) Waited() time.Duration { return r.waited }

// Touch records progress (a stream delta, tool output): it restarts the
// run's idle timeout. Cheap; safe from any goroutine; nil-safe.
func (r *Run) Touch() {
	if r == nil {
		return
	}
	r.last.Store(r.s.clock.Now().UnixNano())
}

// Release ends the run: the next run of the session (in arrival order)
// starts, and the run's context is cancelled. Idempotent; nil-safe.
func (r *Run) Release() {
	if r == nil {
		return
	}
	r.once.Do(func() {
		r.s.endRun(r, EventRunEnd)
		r.s.mu.Lock()
		cancel := r.cancel
		r.s.mu.Unlock()
		if cancel != nil {
			cancel(nil)
		}
	})
}

// endRun hands the session to its next waiter, once.
func (s *Scheduler) endRun(r *Run, how EventType) bool {
	s.mu.Lock()
	if r.done {
		s.mu.Unlock()
		return false
	}
	r.done = true
	if r.timer != nil {
		r.timer.Stop()
	}
	evs := []Event{{Type: how, Session: r.session, Priority: r.priority}}
	l := r.l
	if l.holder == r {
		l.holder = nil
		switch {
		case len(l.waiters) == 0:
			s.dropLocked(l)
		case l.lockFile != "" && (l.lock == nil || !first(l.lockFile, l.waiters[0].tk.String())):
			// A run of another process asked before this process's
			// next one: the session goes to it, and ours waits its turn.
			l.lock.release()
			l.lock = nil
			s.schedulePollLocked(l)
		default:
			next := l.waiters[0]
			l.waiters = l.waiters[1:]
			next.tk.drop(l.lockFile)
			evs = append(evs, s.grantLocked(l, next))
		}
	}
	s.mu.Unlock()
	s.emit(evs...)
	return true
}

func (r *Run) checkIdle() {
	s := r.s
	now := s.clock.Now()
	s.mu.Lock()
	if r.done {
		s.mu.Unlock()
		return
	}
	if left := s.o.RunIdle - now.Sub(time.Unix(0, r.last.Load())); left > 0 {
		r.timer = s.clock.AfterFunc(left, r.checkIdle)
		s.mu.Unlock()
		return
	}
	r.timer = nil
	s.mu.Unlock()
	if !s.endRun(r, EventExpired) {
		return
	}
	s.mu.Lock()
	cancel := r.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel(&IdleError{What: "run", Session: r.session, Timeout: s.o.RunIdle})
	}
}

// RunOf returns the run ctx belongs to (a context Enter returned, or one
// derived from it), nil when none. Run's methods are nil-safe, so
// lane.RunOf(ctx).Touch() is always allowed.
func RunOf(ctx context.Context) *Run {
	ri, _ := ctx.Value(ctxKey{}).(runInfo)
	return ri.run
}
