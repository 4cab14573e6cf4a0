package server

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
)

// Prompt modes: what a prompt does when the session is busy. When it is
// idle every mode starts a run at once.
const (
	// ModeQueue runs the prompt after the running and queued ones.
	ModeQueue = "queue"
	// ModeSteer delivers the prompt to the running run at its next step.
	ModeSteer = "steer"
	// ModeFollowUp delivers it when the running run would otherwise stop.
	ModeFollowUp = "follow_up"
	// ModeInterrupt aborts the running run and runs the prompt next.
	ModeInterrupt = "interrupt"
)

// run is one prompt of a session.
type run struct {
	id      string
	text    string
	mode    string
	status  string // queued, running, completed, aborted, failed, cancelled
	created time.Time
	started time.Time
	ended   time.Time
	res     harness.Result
	err     error
}

// runInfo is a run as clients see it.
type runInfo struct {
	ID      string     `json:"id"`
	Mode    string     `json:"mode"`
	Status  string     `json:"status"`
	Prompt  string     `json:"prompt"`
	Created time.Time  `json:"created"`
	Started *time.Time `json:"started,omitempty"`
	Ended   *time.Time `json:"ended,omitempty"`
	Stop    string     `json:"stop,omitempty"`
	Detail  string     `json:"detail,omitempty"`
	Error   string     `json:"error,omitempty"`
	Text    string     `json:"text,omitempty"`
	Turns   int        `json:"turns,omitempty"`
	Usage   *llm.Usage `json:"usage,omitempty"`
}

func (r *run) info() runInfo {
	in := runInfo{ID: r.id, Mode: r.mode, Status: r.status, Prompt: r.text, Created: r.created}
	if !r.started.IsZero() {
		t := r.started
		in.Started = &t
	}
	if !r.ended.IsZero() {
		t := r.ended
		in.Ended = &t
		in.Stop, in.Detail, in.Turns = string(r.res.Stop), r.res.Detail, r.res.Turns
		in.Text = coding.FinalText(r.res)
		if r.res.Turns > 0 {
			u := r.res.Usage
			in.Usage = &u
		}
	}
	if r.err != nil {
		in.Error = r.err.Error()
	}
	return in
}

func (r *run) finish(now time.Time, status string, res harness.Result, err error) {
	r.ended, r.status, r.res, r.err = now, status, res, err
}

// Accepted is the answer to a prompt: the run it became (or, for a steer
// or follow-up delivered to a running run, that run), whether it waits
// and its place in the queue (0: it runs or was delivered now).
type Accepted struct {
	RunID    string `json:"run_id"`
	Queued   bool   `json:"queued"`
	Position int    `json:"position"`
	Mode     string `json:"mode"`
}

// prompt accepts text in mode. It never drops a prompt silently: either
// the answer says where it went or the error says why it was refused
// (a full queue is a 503 with Retry-After).
func (ss *session) prompt(text, mode string) (Accepted, error) {
	switch mode {
	case "":
		mode = ModeQueue
	case ModeQueue, ModeSteer, ModeFollowUp, ModeInterrupt:
	default:
		return Accepted{}, badRequest("unknown mode %q: use queue, steer, follow_up or interrupt", mode)
	}
	if text == "" {
		return Accepted{}, badRequest("the prompt is empty: send {\"text\": \"…\"}")
	}
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return Accepted{}, &apiError{Status: http.StatusGone, Code: "session_closed", Message: "the session was closed"}
	}
	if cur := ss.current; cur != nil && (mode == ModeSteer || mode == ModeFollowUp) {
		// Delivered to the running run; the harness keeps it for the
		// next run should this one end first.
		var err error
		if mode == ModeSteer {
			err = ss.agent.Steer(text)
		} else {
			err = ss.agent.FollowUp(text)
		}
		ss.mu.Unlock()
		if err != nil {
			return Accepted{}, &apiError{Status: http.StatusConflict, Code: "not_delivered", Message: err.Error()}
		}
		return Accepted{RunID: cur.id, Mode: mode}, nil
	}
	if len(ss.queue) >= ss.s.o.MaxQueue {
		ss.mu.Unlock()
		return Accepted{}, unavailable("queue_full", fmt.Sprintf("%d prompts already wait in this session: retry later", len(ss.queue)))
	}
	r := &run{id: ss.s.o.NewID(), text: text, mode: mode, status: "queued", created: ss.s.o.Now()}
	abort := false
	if mode == ModeInterrupt {
		ss.queue = append([]*run{r}, ss.queue...)
		abort = ss.current != nil
	} else {
		ss.queue = append(ss.queue, r)
	}
	acc := Accepted{RunID: r.id, Mode: mode}
	if ss.current != nil || ss.working {
		acc.Queued = true
		for i, q := range ss.queue {
			if q == r {
				acc.Position = i + 1
			}
		}
	}
	start := !ss.working
	if start {
		ss.working = true
		ss.done = make(chan struct{})
		ss.s.wg.Add(1)
	}
	ss.publishRun(r.info())
	ss.mu.Unlock()
	if abort {
		ss.agent.Abort()
	}
	if start {
		go ss.work()
	}
	return acc, nil
}

// work runs the queued prompts one after another until none waits. It
// runs under the server's context: only Abort, an interrupt, the
// session's deletion or the server's Close stop a run.
func (ss *session) work() {
	defer ss.s.wg.Done()
	for {
		ss.mu.Lock()
		if len(ss.queue) == 0 || ss.closed {
			ss.working = false
			close(ss.done)
			ss.mu.Unlock()
			return
		}
		r := ss.queue[0]
		ss.queue = ss.queue[1:]
		r.status, r.started = "running", ss.s.o.Now()
		ss.current = r
		ss.publishRun(r.info())
		ss.mu.Unlock()

		res, err := ss.agent.SubmitWait(ss.s.ctx, r.text)

		ss.mu.Lock()
		r.finish(ss.s.o.Now(), runStatus(res, err), res, err)
		ss.current = nil
		ss.remember(r)
		ss.s.perms.dropSession(ss)
		ss.publishRun(r.info())
		ss.mu.Unlock()
	}
}

func runStatus(res harness.Result, err error) string {
	var blocked *coding.BlockedError
	switch {
	case errors.As(err, &blocked):
		return "blocked"
	case err != nil:
		return "failed"
	case res.Stop == "aborted":
		return "aborted"
	case res.Stop == "completed":
		return "completed"
	}
	return string(res.Stop)
}

// abort stops the running run; queued ones stay unless all is set.
func (ss *session) abort(all bool) (aborted string, cancelled int) {
	ss.mu.Lock()
	if ss.current != nil {
		aborted = ss.current.id
	}
	var dropped []*run
	if all {
		dropped = ss.queue
		ss.queue = nil
		for _, r := range dropped {
			r.finish(ss.s.o.Now(), "cancelled", harness.Result{}, errors.New("cancelled by an abort"))
			ss.remember(r)
			ss.publishRun(r.info())
		}
	}
	ss.mu.Unlock()
	ss.agent.Abort()
	return aborted, len(dropped)
}

// findRun returns the run id, running, queued or remembered.
func (ss *session) findRun(id string) (runInfo, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.current != nil && ss.current.id == id {
		return ss.current.info(), true
	}
	for _, r := range ss.queue {
		if r.id == id {
			return r.info(), true
		}
	}
	for _, r := range ss.runs {
		if r.id == id {
			return r.info(), true
		}
	}
	return runInfo{}, false
}

// listRuns lists the remembered, running and queued runs, oldest first.
func (ss *session) listRuns() []runInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]runInfo, 0, len(ss.runs)+1+len(ss.queue))
	for _, r := range ss.runs {
		out = append(out, r.info())
	}
	if ss.current != nil {
		out = append(out, ss.current.info())
	}
	for _, r := range ss.queue {
		out = append(out, r.info())
	}
	return out
}
