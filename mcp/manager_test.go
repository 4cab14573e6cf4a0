package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
	"go.uber.org/goleak"
)

// newManager starts a manager over servers and closes it with the test.
func newManager(t *testing.T, servers map[string]ServerConfig, opts Options) *Manager {
	t.Helper()
	if opts.Workdir == "" {
		opts.Workdir = t.TempDir()
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 20 * time.Second
	}
	m := New(&Config{Servers: servers}, opts)
	m.Start(context.Background())
	t.Cleanup(func() { m.Close() })
	return m
}

// call runs a tool through the same middleware the CLI puts around
// builtins (output limit with offloading, timeout).
func call(t testing.TB, reg *tool.Registry, workdir, name, args string, timeout time.Duration) tool.Result {
	t.Helper()
	h := tool.Chain(reg.Execute, tool.Limit(tool.LimitOptions{Workdir: workdir}), tool.Timeout(timeout))
	return h(context.Background(), &tool.Call{ID: "c1", Name: name, Args: json.RawMessage(args), Tool: reg.Get(name)})
}

func status(m *Manager, name string) Status {
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	return Status{}
}

func TestGoServerTools(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	ws := t.TempDir()
	m := newManager(t, map[string]ServerConfig{"go": testServerConfig(t, "ok")}, Options{Workdir: ws})
	st := status(m, "go")
	if st.State != StateReady {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	base, _ := tool.NewRegistry(&tool.Tool{Name: "read", Run: func(context.Context, *tool.Call) tool.Result { return tool.Text("builtin read") }})
	reg, err := m.Registry(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"read", "mcp__go__echo", "mcp__go__read", "mcp__go__mixed", "mcp__go__hang"} {
		if reg.Get(want) == nil {
			t.Errorf("tool %s missing; have %v", want, reg.Names())
		}
	}
	if reg.Get("mcp__go__bad_schema") != nil {
		t.Error("a tool with an invalid schema was offered")
	}
	if !strings.Contains(strings.Join(status(m, "go").Skipped, "\n"), "bad_schema: its input schema is not valid") {
		t.Errorf("skipped = %q", status(m, "go").Skipped)
	}

	res := call(t, reg, ws, "mcp__go__echo", `{"text":"hi"}`, time.Minute)
	if res.IsError || !strings.Contains(res.Text(), "echo: hi") || !strings.Contains(res.Text(), "BEGIN EXTERNAL CONTENT") {
		t.Fatalf("echo: %+v", res)
	}
	if len(res.Notes) == 0 || res.Notes[0] != Note {
		t.Errorf("notes = %v", res.Notes)
	}
	if res := call(t, reg, ws, "read", `{}`, time.Minute); res.Text() != "builtin read" {
		t.Errorf("builtin read = %q", res.Text())
	}
	if res := call(t, reg, ws, "mcp__go__read", `{}`, time.Minute); !strings.Contains(res.Text(), "read from the MCP server") {
		t.Errorf("mcp read = %q", res.Text())
	}
	// Arguments are validated against the server's schema before the call.
	if res := call(t, reg, ws, "mcp__go__echo", `{"text":5}`, time.Minute); !res.IsError || !strings.Contains(res.Text(), "Invalid arguments") {
		t.Errorf("bad args: %+v", res)
	}
	res = call(t, reg, ws, "mcp__go__fail", `{}`, time.Minute)
	if !res.IsError || !strings.Contains(res.Text(), "no such record") {
		t.Errorf("fail: %+v", res)
	}

	res = call(t, reg, ws, "mcp__go__mixed", `{}`, time.Minute)
	var kinds []string
	for _, c := range res.Content {
		kinds = append(kinds, string(c.Type))
	}
	if strings.Join(kinds, ",") != "text,image,text" {
		t.Fatalf("content kinds = %v", kinds)
	}
	if res.Content[1].MIMEType != "image/png" || res.Content[1].Data == "" {
		t.Errorf("image = %+v", res.Content[1])
	}
	txt := res.Text()
	for _, want := range []string{"here is a picture", "[resource link: file:///tmp/report.txt (report) text/plain]", "embedded note", "END EXTERNAL CONTENT"} {
		if !strings.Contains(txt, want) {
			t.Errorf("mixed text lacks %q:\n%s", want, txt)
		}
	}
	d, ok := res.Details.(*Details)
	if !ok || string(d.Structured) != `{"count":3,"ok":true}` || len(d.Resources) != 2 {
		t.Errorf("details = %+v", res.Details)
	}
}

func TestBigResultIsCutAndOffloaded(t *testing.T) {
	ws := t.TempDir()
	m := newManager(t, map[string]ServerConfig{"go": testServerConfig(t, "bigraw")}, Options{Workdir: ws})
	reg, _ := m.Registry(nil)
	res := call(t, reg, ws, "mcp__go__big", `{}`, 5*time.Minute)
	if res.IsError {
		t.Fatalf("big: %.300s", res.Text())
	}
	if n := len(res.Text()); n > 40_000 {
		t.Errorf("the model would see %d characters", n)
	}
	if !strings.Contains(res.Text(), ".rein/output/") {
		t.Errorf("no offload path in %.500s", res.Text())
	}
	entries, _ := filepath.Glob(filepath.Join(ws, ".rein", "output", "mcp__go__big-*"))
	if len(entries) != 1 {
		t.Fatalf("offloaded files: %v", entries)
	}
	fi, _ := os.Stat(entries[0])
	if fi.Size() < 50_000_000 {
		t.Errorf("offloaded %d bytes, want the whole 50 MB", fi.Size())
	}
	// The connection survives the big result.
	if st := status(m, "go"); st.State != StateReady || st.Restarts != 0 {
		t.Errorf("after big: %+v", st)
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func serverPID(m *Manager, name string) int {
	for _, s := range m.servers {
		if s.name == name {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.proc != nil {
				return s.proc.cmd.Process.Pid
			}
		}
	}
	return 0
}

func TestHangingCallTimesOutAndProcessStops(t *testing.T) {
	ws := t.TempDir()
	m := newManager(t, map[string]ServerConfig{"go": testServerConfig(t, "ok")}, Options{Workdir: ws, StopGrace: 300 * time.Millisecond})
	reg, _ := m.Registry(nil)
	pid := serverPID(m, "go")
	res := call(t, reg, ws, "mcp__go__hang", `{}`, 300*time.Millisecond)
	if !res.IsError || !strings.Contains(res.Text(), "timed out") {
		t.Fatalf("hang: %+v", res)
	}
	// The server still works for other calls.
	if res := call(t, reg, ws, "mcp__go__echo", `{"text":"x"}`, time.Minute); res.IsError {
		t.Errorf("echo after hang: %s", res.Text())
	}
	m.Close()
	if pid == 0 || alive(pid) {
		t.Errorf("server process %d still runs after Close", pid)
	}
	if status(m, "go").State != StateStopped {
		t.Errorf("state after close = %s", status(m, "go").State)
	}
}

func TestCrashMidCallRestartsOnce(t *testing.T) {
	ws := t.TempDir()
	var changes atomic.Int32
	m := newManager(t, map[string]ServerConfig{"go": testServerConfig(t, "ok")}, Options{Workdir: ws, OnChange: func() { changes.Add(1) }})
	reg, _ := m.Registry(nil)
	first := serverPID(m, "go")
	res := call(t, reg, ws, "mcp__go__die", `{}`, time.Minute)
	if !res.IsError || !strings.Contains(res.Text(), "stopped while running die") {
		t.Fatalf("die: %+v", res)
	}
	waitState(t, m, "go", StateReady)
	if pid := serverPID(m, "go"); pid == first || pid == 0 {
		t.Errorf("pid %d after restart, was %d", pid, first)
	}
	if alive(first) {
		t.Errorf("the crashed process %d still exists", first)
	}
	if res := call(t, reg, ws, "mcp__go__echo", `{"text":"again"}`, time.Minute); !strings.Contains(res.Text(), "echo: again") {
		t.Errorf("after restart: %s", res.Text())
	}
	// A second crash is final; calls then say why.
	call(t, reg, ws, "mcp__go__die", `{}`, time.Minute)
	waitState(t, m, "go", StateFailed)
	res = call(t, reg, ws, "mcp__go__echo", `{}`, time.Minute)
	if !res.IsError || !strings.Contains(res.Text(), "is not running") || !strings.Contains(res.Text(), "not restarted a second time") {
		t.Errorf("after second crash: %s", res.Text())
	}
	if st := status(m, "go"); st.Restarts != 1 || !strings.Contains(st.Error, "exit status 2") {
		t.Errorf("status = %+v", st)
	}
	if changes.Load() < 3 {
		t.Errorf("OnChange called %d times", changes.Load())
	}
	log, _ := os.ReadFile(m.LogPath("go"))
	if !strings.Contains(string(log), "out of memory (simulated)") {
		t.Errorf("stderr log:\n%s", log)
	}
}

func waitState(t *testing.T, m *Manager, name string, want State) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if status(m, name).State == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server %s: state %s, want %s (%s)", name, status(m, name).State, want, status(m, name).Error)
}

func TestToolListChanged(t *testing.T) {
	ws := t.TempDir()
	changed := make(chan struct{}, 8)
	m := newManager(t, map[string]ServerConfig{"go": testServerConfig(t, "ok")}, Options{Workdir: ws, OnChange: func() { changed <- struct{}{} }})
	<-changed // ready
	reg, _ := m.Registry(nil)
	if reg.Get("mcp__go__grown") != nil {
		t.Fatal("grown before grow")
	}
	call(t, reg, ws, "mcp__go__grow", `{}`, time.Minute)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no change after tools/list_changed")
	}
	reg, _ = m.Registry(nil)
	if res := call(t, reg, ws, "mcp__go__grown", `{}`, time.Minute); !strings.Contains(res.Text(), "grown works") {
		t.Errorf("grown: %+v", res)
	}
}

func TestBadServers(t *testing.T) {
	ws := t.TempDir()
	servers := map[string]ServerConfig{
		"missing": {Command: "rein-no-such-mcp-server", Args: []string{"--stdio"}},
		"exits":   testServerConfig(t, "exit"),
		"garbage": testServerConfig(t, "garbage"),
		"silent":  testServerConfig(t, "silent"),
		"off":     {Command: "whatever", Disabled: true},
	}
	start := time.Now()
	m := newManager(t, servers, Options{Workdir: ws, StartTimeout: 2 * time.Second, StopGrace: 200 * time.Millisecond})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Start took %v", d)
	}
	cases := map[string][]string{
		"missing": {"not found", "rein-no-such-mcp-server"},
		"exits":   {"exit status 3", "missing DATABASE_URL"},
		"garbage": {"other than JSON-RPC"},
		"silent":  {"no answer to initialize within 2s"},
	}
	for name, wants := range cases {
		st := status(m, name)
		if st.State != StateFailed {
			t.Errorf("%s: state %s", name, st.State)
		}
		for _, w := range wants {
			if !strings.Contains(st.Error, w) {
				t.Errorf("%s: error %q lacks %q", name, st.Error, w)
			}
		}
	}
	if st := status(m, "off"); st.State != StateDisabled {
		t.Errorf("off: %s", st.State)
	}
	if len(m.Tools()) != 0 {
		t.Errorf("tools of failed servers: %v", m.Tools())
	}
	// The processes of the failed servers are gone.
	for _, s := range m.servers {
		if s.proc != nil {
			t.Errorf("%s keeps a process", s.name)
		}
	}
	_ = llm.Text
}

func TestRememberedToolsDoNotWait(t *testing.T) {
	ws := t.TempDir()
	servers := map[string]ServerConfig{"slow": testServerConfig(t, "slow")}
	m1 := New(&Config{Servers: servers}, Options{Workdir: ws})
	m1.Start(context.Background())
	if st := status(m1, "slow"); st.State != StateReady {
		t.Fatalf("first start: %s %s", st.State, st.Error)
	}
	m1.Close()
	for _, f := range []string{"slow.tools.json", "slow.log", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(ws, ".rein", "mcp", f)); err != nil {
			t.Fatal(err)
		}
	}
	m2 := New(&Config{Servers: servers}, Options{Workdir: ws})
	defer m2.Close()
	start := time.Now()
	m2.Start(context.Background())
	waited := time.Since(start)
	st := status(m2, "slow")
	if st.State != StateStarting || !strings.Contains(st.Error, "from the last start") {
		// A very slow machine may have started it already; the rest of
		// the test still holds.
		t.Logf("state after Start (%v): %s", waited, st.State)
	}
	reg, _ := m2.Registry(nil)
	if reg.Get("mcp__slow__echo") == nil {
		t.Fatalf("remembered tools not offered: %v", reg.Names())
	}
	res := call(t, reg, ws, "mcp__slow__echo", `{"text":"waited"}`, time.Minute)
	if res.IsError || !strings.Contains(res.Text(), "echo: waited") {
		t.Fatalf("call during start: %+v", res)
	}
	// A changed configuration forgets the remembered tools.
	changed := map[string]ServerConfig{"slow": testServerConfig(t, "slow")}
	c := changed["slow"]
	c.Args = append(c.Args, "-test.v=false")
	changed["slow"] = c
	m3 := New(&Config{Servers: changed}, Options{Workdir: ws, Wait: time.Millisecond})
	defer m3.Close()
	m3.Start(context.Background())
	if len(m3.Tools()) != 0 && status(m3, "slow").State != StateReady {
		t.Errorf("tools of another configuration offered: %d", len(m3.Tools()))
	}
}

func TestProcessGroupStopsWithTheSession(t *testing.T) {
	ws := t.TempDir()
	pidfile := filepath.Join(t.TempDir(), "pid")
	sc := testServerConfig(t, "spawn")
	sc.Env["REIN_MCP_TEST_PIDFILE"] = pidfile
	m := newManager(t, map[string]ServerConfig{"sp": sc}, Options{Workdir: ws, StopGrace: 200 * time.Millisecond})
	if st := status(m, "sp"); st.State != StateReady {
		t.Fatalf("%s: %s", st.State, st.Error)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	var helper int
	fmt.Sscan(string(b), &helper)
	leader := serverPID(m, "sp")
	if !alive(helper) || !alive(leader) {
		t.Fatalf("helper %d or server %d not running", helper, leader)
	}
	m.Close()
	// The helper is reparented when the server exits; it is gone only if
	// the whole group was stopped. Reaping by init may take a moment.
	for i := 0; i < 100 && alive(helper) && !zombie(helper); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(helper) && !zombie(helper) {
		t.Errorf("the server's helper %d outlived the session", helper)
	}
}

// zombie reports whether pid has exited but not been reaped yet.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

func TestBuiltinNameWins(t *testing.T) {
	m := inProcess(t)
	base, _ := tool.NewRegistry(&tool.Tool{Name: "mcp__go__echo", Run: func(context.Context, *tool.Call) tool.Result { return tool.Text("mine") }})
	reg, err := m.Registry(base)
	if err != nil {
		t.Fatal(err)
	}
	if res := reg.Get("mcp__go__echo").Run(context.Background(), &tool.Call{}); res.Text() != "mine" {
		t.Errorf("the builtin was replaced: %s", res.Text())
	}
	if !strings.Contains(strings.Join(status(m, "go").Skipped, "\n"), "mcp__go__echo: a builtin tool has this name") {
		t.Errorf("skipped = %v", status(m, "go").Skipped)
	}
}

// Options.Meta adds the caller's trace context to a tool call's _meta,
// where the server reads it.
func TestCallCarriesMeta(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ws := t.TempDir()
	m := newManager(t, map[string]ServerConfig{"go": testServerConfig(t, "meta")}, Options{Workdir: ws,
		Meta: func(context.Context) map[string]any { return map[string]any{"traceparent": tp} }})
	reg, err := m.Registry(nil)
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, reg, ws, "mcp__go__meta", `{}`, time.Minute)
	if res.IsError || !strings.Contains(res.Text(), `"traceparent":"`+tp+`"`) {
		t.Fatalf("the server saw %q", res.Text())
	}
}
