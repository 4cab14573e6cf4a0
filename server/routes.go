package server

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/permission"
	sessionlog "github.com/reinhq/rein/session"
)

// handler is a route's handler: an error is answered as JSON.
type handler func(w http.ResponseWriter, r *http.Request) error

// route is one method on one path pattern.
type route struct {
	Method, Path string
	h            handler
}

// Routes lists the server's routes as "METHOD /path/{param}", sorted; the
// openapi.json test compares them with the document.
func (s *Server) Routes() []string {
	var out []string
	for _, rt := range s.table() {
		out = append(out, rt.Method+" "+rt.Path)
	}
	sort.Strings(out)
	return out
}

func (s *Server) table() []route {
	return []route{
		{"GET", "/v1/health", s.health},
		{"GET", "/openapi.json", serveOpenAPI},
		{"GET", "/v1/sessions", s.listSessions},
		{"POST", "/v1/sessions", s.createSession},
		{"GET", "/v1/sessions/{id}", s.getSession},
		{"DELETE", "/v1/sessions/{id}", s.deleteSession},
		{"GET", "/v1/sessions/{id}/messages", s.getMessages},
		{"POST", "/v1/sessions/{id}/fork", s.forkSession},
		{"POST", "/v1/sessions/{id}/prompt", s.postPrompt},
		{"POST", "/v1/sessions/{id}/steer", s.modePrompt(ModeSteer)},
		{"POST", "/v1/sessions/{id}/follow_up", s.modePrompt(ModeFollowUp)},
		{"POST", "/v1/sessions/{id}/abort", s.postAbort},
		{"GET", "/v1/sessions/{id}/runs", s.listRuns},
		{"GET", "/v1/sessions/{id}/runs/{run}", s.getRun},
		{"GET", "/v1/sessions/{id}/events", s.events},
		{"GET", "/v1/sessions/{id}/permissions", s.listPermissions},
		{"POST", "/v1/sessions/{id}/permissions/{perm}", s.answerPermission},
		{"GET", "/v1/permissions", s.listPermissions},
		{"POST", "/v1/permissions/{perm}", s.answerPermission},
	}
}

// routes builds the mux: each path dispatches on the method itself so
// that a wrong method and an unknown path get JSON answers (405 with
// Allow, 404).
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	byPath := map[string]map[string]handler{}
	var paths []string
	for _, rt := range s.table() {
		if byPath[rt.Path] == nil {
			byPath[rt.Path] = map[string]handler{}
			paths = append(paths, rt.Path)
		}
		byPath[rt.Path][rt.Method] = rt.h
	}
	for _, p := range paths {
		methods := byPath[p]
		var allow []string
		for m := range methods {
			allow = append(allow, m)
		}
		sort.Strings(allow)
		s.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			h, ok := methods[r.Method]
			if !ok && r.Method == http.MethodHead {
				h, ok = methods[http.MethodGet]
			}
			if !ok {
				w.Header().Set("Allow", strings.Join(allow, ", "))
				writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Message: fmt.Sprintf("%s %s is not a route: use %s", r.Method, r.URL.Path, strings.Join(allow, " or "))})
				return
			}
			if err := h(w, r); err != nil {
				writeError(w, err)
			}
		})
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{Status: http.StatusNotFound, Code: "not_found", Message: fmt.Sprintf("no route %s %s: GET /openapi.json lists the routes", r.Method, r.URL.Path)})
	})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "sessions": n})
	return nil
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	out := make([]SessionInfo, 0, len(all))
	for _, ss := range all {
		out = append(out, ss.info())
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.Before(out[j].Created) || out[i].Created.Equal(out[j].Created) && out[i].ID < out[j].ID
	})
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out})
	return nil
}

// createBody is the body of POST /v1/sessions.
type createBody struct {
	Model          string `json:"model"`
	PermissionMode string `json:"permission_mode"`
	// Resume opens a stored session: "last", an id or a prefix of one,
	// or a file path.
	Resume string `json:"resume"`
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var b createBody
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	req := OpenRequest{Model: b.Model, PermissionMode: b.PermissionMode}
	if b.Resume != "" {
		path, err := coding.FindSession(s.o.Workdir, b.Resume)
		if err != nil {
			return &apiError{Status: http.StatusNotFound, Code: "session_not_found", Message: err.Error()}
		}
		req.Session = path
	}
	ss, err := s.open(r, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, ss.info())
	return nil
}

// open opens an agent and registers its session.
func (s *Server) open(r *http.Request, req OpenRequest) (*session, error) {
	s.mu.Lock()
	full := len(s.sessions) >= s.o.MaxSessions
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, unavailable("closed", "the server is shutting down")
	}
	if full {
		return nil, unavailable("too_many_sessions", fmt.Sprintf("%d sessions are open: delete one or retry later", s.o.MaxSessions))
	}
	a, err := s.o.Open(r.Context(), req)
	if err != nil {
		var locked *sessionlog.LockedError
		if errors.As(err, &locked) {
			return nil, &apiError{Status: http.StatusConflict, Code: "session_locked", Message: err.Error()}
		}
		return nil, &apiError{Status: http.StatusBadRequest, Code: "open_failed", Message: err.Error()}
	}
	ss := newSession(s, a)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ss.close()
		return nil, unavailable("closed", "the server is shutting down")
	}
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss, nil
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ss.info())
	return nil
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	s.mu.Lock()
	ss, ok := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if !ok {
		_, err := s.session(id)
		return err
	}
	if err := ss.close(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"closed": id})
	return nil
}

func (s *Server) getMessages(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	msgs := ss.messages()
	if msgs == nil {
		msgs = []llm.Message{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": msgs})
	return nil
}

// forkBody is the body of POST …/fork.
type forkBody struct {
	// EntryID is the entry to fork at; "" forks at the current leaf.
	EntryID string `json:"entry_id"`
}

func (s *Server) forkSession(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	var b forkBody
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if ss.agent.Session() == nil {
		return &apiError{Status: http.StatusConflict, Code: "no_session_log", Message: "this session keeps no log to fork"}
	}
	path, err := ss.agent.ForkCopy(b.EntryID)
	if err != nil {
		return badRequest("fork: %v", err)
	}
	nss, err := s.open(r, OpenRequest{Session: path})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, nss.info())
	return nil
}

// promptBody is the body of the prompt, steer and follow-up routes.
type promptBody struct {
	Text string `json:"text"`
	// Mode is queue (the default), steer, follow_up or interrupt.
	Mode string `json:"mode"`
}

func (s *Server) postPrompt(w http.ResponseWriter, r *http.Request) error {
	return s.prompt(w, r, "")
}

func (s *Server) modePrompt(mode string) handler {
	return func(w http.ResponseWriter, r *http.Request) error { return s.prompt(w, r, mode) }
}

func (s *Server) prompt(w http.ResponseWriter, r *http.Request, mode string) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	var b promptBody
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if mode != "" {
		if b.Mode != "" && b.Mode != mode {
			return badRequest("mode %q does not fit this route, which is %s", b.Mode, mode)
		}
		b.Mode = mode
	}
	acc, err := ss.prompt(b.Text, b.Mode)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, acc)
	return nil
}

// abortBody is the body of POST …/abort.
type abortBody struct {
	// All also cancels the queued prompts.
	All bool `json:"all"`
}

func (s *Server) postAbort(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	var b abortBody
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	aborted, cancelled := ss.abort(b.All)
	writeJSON(w, http.StatusOK, map[string]any{"aborted": aborted, "cancelled": cancelled})
	return nil
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": ss.listRuns()})
	return nil
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.session(r.PathValue("id"))
	if err != nil {
		return err
	}
	run, ok := ss.findRun(r.PathValue("run"))
	if !ok {
		return &apiError{Status: http.StatusNotFound, Code: "run_not_found", Message: fmt.Sprintf("no run %q in this session (it keeps the latest %d)", r.PathValue("run"), maxRuns)}
	}
	writeJSON(w, http.StatusOK, run)
	return nil
}

func (s *Server) listPermissions(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if id != "" {
		if _, err := s.session(id); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"permissions": s.perms.list(id)})
	return nil
}

func (s *Server) answerPermission(w http.ResponseWriter, r *http.Request) error {
	var ans permission.Answer
	if err := decodeBody(r, &ans); err != nil {
		return err
	}
	switch ans.Kind {
	case permission.AllowOnce, permission.AllowAlways, permission.DenyCall:
	default:
		return badRequest("unknown answer kind %q: use allow_once, allow_always or deny", ans.Kind)
	}
	switch ans.Scope {
	case "", permission.ScopeProject, permission.ScopeUser:
	default:
		return badRequest("unknown scope %q: use project or user", ans.Scope)
	}
	if ans.By == "" {
		ans.By = "http"
	}
	if err := s.perms.answer(r.PathValue("id"), r.PathValue("perm"), ans); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"answered": r.PathValue("perm"), "kind": ans.Kind})
	return nil
}
