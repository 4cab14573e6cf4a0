package server

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/permission"
)

// approvals are the approval requests waiting for a client's answer,
// by request id. Each one is denied when ApprovalTimeout passes without
// an answer, so a client that never answers cannot hold a run.
type approvals struct {
	s  *Server
	mu sync.Mutex
	m  map[string]*pending
}

type pending struct {
	ss    *session
	ap    *coding.Approval
	timer *time.Timer
}

func newApprovals(s *Server) *approvals {
	return &approvals{s: s, m: map[string]*pending{}}
}

// add registers a request under its session and its id (which the
// harness makes unique within one agent).
func (a *approvals) add(ss *session, ap *coding.Approval) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := &pending{ss: ss, ap: ap}
	id := ss.id + "\x00" + ap.ID
	p.timer = time.AfterFunc(a.s.o.ApprovalTimeout, func() {
		a.mu.Lock()
		cur, ok := a.m[id]
		if ok && cur == p {
			delete(a.m, id)
		}
		a.mu.Unlock()
		if ok && cur == p {
			p.ap.Answer(permission.Answer{Kind: permission.DenyCall, Reason: fmt.Sprintf("no answer within %s", a.s.o.ApprovalTimeout), By: "timeout"})
		}
	})
	a.m[id] = p
}

// answer answers request id of a session ("" matches any session).
func (a *approvals) answer(sessionID, id string, ans permission.Answer) error {
	a.mu.Lock()
	var p *pending
	var key string
	n := 0
	for k, q := range a.m {
		if q.ap.ID == id && (sessionID == "" || q.ss.id == sessionID) {
			p, key = q, k
			n++
		}
	}
	if n == 1 {
		delete(a.m, key)
	}
	a.mu.Unlock()
	if n > 1 {
		return &apiError{Status: http.StatusConflict, Code: "permission_ambiguous", Message: fmt.Sprintf("approval request %q waits in several sessions: answer it at /v1/sessions/SESSION/permissions/%s", id, id)}
	}
	if p == nil {
		return &apiError{Status: http.StatusNotFound, Code: "permission_not_found", Message: fmt.Sprintf("no approval request %q is waiting: it was answered, timed out or its run ended", id)}
	}
	p.timer.Stop()
	if err := p.ap.Answer(ans); err != nil {
		return &apiError{Status: http.StatusConflict, Code: "permission_ended", Message: err.Error()}
	}
	return nil
}

// list returns the requests waiting in a session ("" for all).
func (a *approvals) list(sessionID string) []Permission {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []Permission{}
	for _, p := range a.m {
		if sessionID == "" || p.ss.id == sessionID {
			out = append(out, Permission{Session: p.ss.id, Request: p.ap.Request})
		}
	}
	return out
}

// Permission is a waiting approval request and its session.
type Permission struct {
	Session string `json:"session"`
	permission.Request
}

// dropSession forgets the requests of a session whose run ended (the
// harness ended them too).
func (a *approvals) dropSession(ss *session) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, p := range a.m {
		if p.ss == ss {
			p.timer.Stop()
			delete(a.m, id)
		}
	}
}

// closeAll stops every timer.
func (a *approvals) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, p := range a.m {
		p.timer.Stop()
		delete(a.m, id)
	}
}
