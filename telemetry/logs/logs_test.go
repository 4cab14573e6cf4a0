package logs

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec string
		want Levels
		err  string
	}{
		{spec: "", want: Levels{}},
		{spec: "guard=debug,compact=info", want: Levels{"guard": slog.LevelDebug, "compact": slog.LevelInfo}},
		{spec: " Guard = DEBUG , ", want: Levels{"guard": slog.LevelDebug}},
		{spec: "warn,tool=debug", want: Levels{"agent": slog.LevelWarn, "provider": slog.LevelWarn, "tool": slog.LevelDebug,
			"guard": slog.LevelWarn, "permission": slog.LevelWarn, "compact": slog.LevelWarn, "mcp": slog.LevelWarn, "telemetry": slog.LevelWarn}},
		{spec: "*=error", want: Levels{"agent": slog.LevelError, "provider": slog.LevelError, "tool": slog.LevelError,
			"guard": slog.LevelError, "permission": slog.LevelError, "compact": slog.LevelError, "mcp": slog.LevelError, "telemetry": slog.LevelError}},
		{spec: "gaurd=debug", err: `no subsystem "gaurd" to log: use agent, compact, guard, mcp, permission, provider, telemetry, tool or all`},
		{spec: "guard=loud", err: `log level "loud" of "guard": use debug, info, warn or error`},
	} {
		got, err := Parse(c.spec)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("Parse(%q) error %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.spec, got, err, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("Parse(%q)[%s] = %v, want %v", c.spec, k, got[k], v)
			}
		}
	}
}

// Each subsystem writes at its own level, tagged with its name; one not
// named, and the nil Set, write nothing.
func TestLoggersFilterBySubsystem(t *testing.T) {
	var buf bytes.Buffer
	lv, _ := Parse("guard=debug,compact=warn")
	set := New(&buf, lv)
	set.Logger("guard").Debug("seen", "rule", "same_call")
	set.Logger("compact").Info("hidden")
	set.Logger("compact").Warn("kept")
	set.Logger("tool").Error("not configured")
	var none *Set
	none.Logger("guard").Error("nil set")
	if none.Enabled() || !set.Enabled() {
		t.Error("Enabled is wrong")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines %q", lines)
	}
	if !strings.Contains(lines[0], "level=DEBUG msg=seen subsystem=guard rule=same_call") ||
		!strings.Contains(lines[1], "level=WARN msg=kept subsystem=compact") {
		t.Errorf("lines %q", lines)
	}
}

// A subsystem that is off costs no allocation per call.
func BenchmarkDisabledLogger(b *testing.B) {
	lv, _ := Parse("guard=debug")
	l := New(&bytes.Buffer{}, lv).Logger("tool")
	b.ReportAllocs()
	for b.Loop() {
		l.Debug("result", "tool", "read", "id", "call_1", "error", false)
	}
}
