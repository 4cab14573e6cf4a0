package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm/faux"
)

func TestTokenOriginAndHostRules(t *testing.T) {
	f := newFixture(t, texts(1, "x"), func(o *Options) {
		o.Token = "s3cret-token"
		o.AllowOrigins = []string{"http://app.example"}
		o.LoopbackOnly = true
	})
	tok := f.token
	f.token = ""
	cases := []struct {
		name   string
		method string
		path   string
		hdr    []string
		status int
		code   string
	}{
		{"no token", "GET", "/v1/sessions", nil, 401, "unauthorized"},
		{"bad token", "GET", "/v1/sessions", []string{"Authorization", "Bearer nope"}, 401, "unauthorized"},
		{"not bearer", "GET", "/v1/sessions", []string{"Authorization", "Basic " + tok}, 401, "unauthorized"},
		{"good token", "GET", "/v1/sessions", []string{"Authorization", "Bearer " + tok}, 200, ""},
		{"health needs none", "GET", "/v1/health", nil, 200, ""},
		{"foreign origin, good token", "GET", "/v1/sessions", []string{"Authorization", "Bearer " + tok, "Origin", "http://evil.example"}, 403, "origin_not_allowed"},
		{"foreign origin on health", "GET", "/v1/health", []string{"Origin", "http://evil.example"}, 403, "origin_not_allowed"},
		{"allowed origin", "GET", "/v1/sessions", []string{"Authorization", "Bearer " + tok, "Origin", "http://app.example"}, 200, ""},
		{"preflight of allowed origin", "OPTIONS", "/v1/sessions", []string{"Origin", "http://app.example", "Access-Control-Request-Method", "POST"}, 204, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e errorBody
			var out any = &e
			if c.code == "" {
				out = nil
			}
			resp := f.call(t, c.method, c.path, nil, out, c.hdr...)
			if resp.StatusCode != c.status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, c.status)
			}
			if c.code != "" && (e.Error == nil || e.Error.Code != c.code || e.Error.Message == "") {
				t.Errorf("error = %+v, want code %s", e.Error, c.code)
			}
			if c.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}

	// Without a token, a loopback server refuses a Host that is not a
	// loopback name (a DNS name rebound to 127.0.0.1).
	g := newFixture(t, texts(1, "x"), func(o *Options) { o.LoopbackOnly = true })
	req, _ := http.NewRequest("GET", g.ts.URL+"/v1/sessions", nil)
	req.Host = "attacker.example:80"
	resp, err := g.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("rebound host = %d, want 421", resp.StatusCode)
	}
	if resp := g.call(t, "GET", "/v1/sessions", nil, nil); resp.StatusCode != 200 {
		t.Errorf("loopback host = %d", resp.StatusCode)
	}
}

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8765", "", true},
		{"[::1]:0", "", true},
		{"localhost:1", "", true},
		{"0.0.0.0:8765", "", false},
		{"192.168.1.2:80", "", false},
		{":8765", "", false},
		{"0.0.0.0:8765", "tok", true},
		{"nonsense", "", false},
	} {
		if err := CheckListen(c.addr, c.token); (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, %q) = %v", c.addr, c.token, err)
		}
	}
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, texts(2, "x"), func(o *Options) { o.MaxBodyBytes = 256 })
	id := f.create(t, nil)
	big := `{"text": "` + strings.Repeat("a", 300) + `"}`
	cases := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"malformed JSON", "POST", "/v1/sessions/" + id + "/prompt", `{"text": `, 400, "bad_request"},
		{"not an object", "POST", "/v1/sessions/" + id + "/prompt", `[1,2]`, 400, "bad_request"},
		{"unknown member", "POST", "/v1/sessions/" + id + "/prompt", `{"txt": "a"}`, 400, "bad_request"},
		{"two values", "POST", "/v1/sessions/" + id + "/prompt", `{"text": "a"} {}`, 400, "bad_request"},
		{"empty prompt", "POST", "/v1/sessions/" + id + "/prompt", `{}`, 400, "bad_request"},
		{"unknown mode", "POST", "/v1/sessions/" + id + "/prompt", `{"text": "a", "mode": "later"}`, 400, "bad_request"},
		{"mode against route", "POST", "/v1/sessions/" + id + "/steer", `{"text": "a", "mode": "queue"}`, 400, "bad_request"},
		{"body over limit", "POST", "/v1/sessions/" + id + "/prompt", big, 413, "body_too_large"},
		{"unknown route", "GET", "/v2/nothing", nil, 404, "not_found"},
		{"wrong method", "PUT", "/v1/sessions", nil, 405, "method_not_allowed"},
		{"unknown session", "POST", "/v1/sessions/nope/prompt", `{"text": "a"}`, 404, "session_not_found"},
		{"unknown session events", "GET", "/v1/sessions/nope/events", nil, 404, "session_not_found"},
		{"bad Last-Event-ID", "GET", "/v1/sessions/" + id + "/events?after=x", nil, 400, "bad_request"},
		{"unknown run", "GET", "/v1/sessions/" + id + "/runs/nope", nil, 404, "run_not_found"},
		{"unknown permission", "POST", "/v1/permissions/nope", `{"kind": "allow_once"}`, 404, "permission_not_found"},
		{"bad answer kind", "POST", "/v1/permissions/nope", `{"kind": "maybe"}`, 400, "bad_request"},
		{"resume of nothing", "POST", "/v1/sessions", `{"resume": "ffffffff"}`, 404, "session_not_found"},
		{"bad permission mode", "POST", "/v1/sessions", `{"permission_mode": "yolo"}`, 400, "open_failed"},
		{"fork at unknown entry", "POST", "/v1/sessions/" + id + "/fork", `{"entry_id": "zzz"}`, 400, "bad_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e errorBody
			resp := f.call(t, c.method, c.path, c.body, &e)
			if resp.StatusCode != c.status || e.Error == nil || e.Error.Code != c.code || e.Error.Message == "" {
				t.Fatalf("= %d %+v, want %d %s", resp.StatusCode, e.Error, c.status, c.code)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
	// Nothing of that left a run behind: the session takes a prompt.
	st := f.open(t, id, 0)
	defer st.close()
	acc := f.prompt(t, id, "still fine", "")
	if acc.Queued {
		t.Errorf("after bad input the session is busy: %+v", acc)
	}
	st.until(t, runEnded(acc.RunID))
	if !f.srv.Idle() {
		t.Error("a run is left")
	}
}

func TestOpenAPIMatchesRoutes(t *testing.T) {
	f := newFixture(t, texts(1, "x"), nil)
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if resp := f.call(t, "GET", "/openapi.json", nil, &doc); resp.StatusCode != 200 || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi.json = %d %q", resp.StatusCode, doc.OpenAPI)
	}
	var inDoc []string
	for p, ops := range doc.Paths {
		for m := range ops {
			if m == "parameters" {
				continue
			}
			inDoc = append(inDoc, strings.ToUpper(m)+" "+p)
		}
	}
	slices.Sort(inDoc)
	if routes := f.srv.Routes(); !slices.Equal(inDoc, routes) {
		t.Errorf("openapi.json paths:\n%v\nroutes:\n%v", inDoc, routes)
	}
}

// approvalScript writes a file, which the ask mode holds for approval.
func approvalScript() []faux.Reply {
	return []faux.Reply{faux.Calls("", faux.Call("write", `{"path": "out.txt", "content": "written"}`)), faux.Text("done")}
}

func TestApprovalsAnsweredOverHTTP(t *testing.T) {
	for _, c := range []struct {
		name    string
		answer  string
		timeout time.Duration
		written bool
	}{
		{"allow", "allow_once", 0, true},
		{"deny", "deny", 0, false},
		{"timeout", "", time.Millisecond, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, approvalScript, func(o *Options) {
				if c.timeout > 0 {
					o.ApprovalTimeout = c.timeout
				}
			})
			id := f.create(t, map[string]string{"permission_mode": "ask"})
			st := f.open(t, id, 0)
			defer st.close()
			acc := f.prompt(t, id, "write the file", "")
			evs := st.until(t, func(ev sseEvent) bool { return ev.typ() == "permission_request" || runEnded(acc.RunID)(ev) })
			req := evs[len(evs)-1]
			if req.typ() != "permission_request" {
				t.Fatalf("the run ended without asking: %s", req.data)
			}
			var p struct{ Permission struct{ ID, Tool string } }
			json.Unmarshal(req.data, &p)
			if p.Permission.Tool != "write" || p.Permission.ID == "" {
				t.Fatalf("request = %s", req.data)
			}
			if c.answer != "" {
				var list struct{ Permissions []Permission }
				f.call(t, "GET", "/v1/sessions/"+id+"/permissions", nil, &list)
				if len(list.Permissions) != 1 || list.Permissions[0].ID != p.Permission.ID {
					t.Errorf("waiting = %+v", list.Permissions)
				}
				if resp := f.call(t, "POST", "/v1/permissions/"+p.Permission.ID, map[string]string{"kind": c.answer}, nil); resp.StatusCode != 200 {
					t.Fatalf("answer = %d", resp.StatusCode)
				}
			}
			evs = st.until(t, runEnded(acc.RunID))
			_, err := os.Stat(filepath.Join(f.dir, "out.txt"))
			if (err == nil) != c.written {
				t.Errorf("written = %v, want %v", err == nil, c.written)
			}
			if c.timeout > 0 {
				found := false
				for _, ev := range evs {
					found = found || ev.typ() == "tool_end" && strings.Contains(string(ev.data), "no answer within")
				}
				if !found {
					t.Error("the timed-out denial does not say why")
				}
			}
			if r := evs[len(evs)-1].run(); r.Status != "completed" {
				t.Errorf("run = %+v", r)
			}
			// An answer after the fact is refused, not lost silently.
			if resp := f.call(t, "POST", "/v1/permissions/"+p.Permission.ID, map[string]string{"kind": "allow_once"}, nil); resp.StatusCode != 404 {
				t.Errorf("late answer = %d, want 404", resp.StatusCode)
			}
		})
	}
}

// TestSlowClientDoesNotSlowRuns holds an event stream open without
// reading it while a long reply streams: the run finishes anyway.
func TestSlowClientDoesNotSlowRuns(t *testing.T) {
	long := strings.Repeat("word ", 40000)
	f := newFixture(t, texts(2, long), nil)
	id := f.create(t, nil)
	conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(1024)
	}
	fmt.Fprintf(conn, "GET /v1/sessions/%s/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", id)
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(status, "200") {
		t.Fatalf("status line %q %v", status, err)
	}
	st := f.open(t, id, 0)
	defer st.close()
	acc := f.prompt(t, id, "talk a lot", "")
	// The reader that keeps up sees the whole run while the other one
	// reads nothing.
	evs := st.until(t, runEnded(acc.RunID))
	if r := evs[len(evs)-1].run(); r.Status != "completed" || len(r.Text) != len(long) {
		t.Errorf("run = %s, %d bytes", r.Status, len(r.Text))
	}
}
