// Package logs gives each of rein's subsystems its own log/slog logger
// with its own level, set from one specification such as
// REIN_LOG=guard=debug,compact=info.
//
// Logging is off unless asked for: a Set built from an empty
// specification, and a nil *Set, hand out loggers whose handler discards
// everything before any attribute is formatted, so a disabled subsystem
// costs one level check per call.
package logs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
)

// Subsystems are the names a specification may give. "all" (or "*")
// sets every one.
var subsystems = []string{"agent", "provider", "tool", "guard", "permission", "compact", "mcp", "telemetry"}

// Subsystems lists the subsystem names, sorted.
func Subsystems() []string {
	s := slices.Clone(subsystems)
	slices.Sort(s)
	return s
}

// Levels is a parsed specification: the level of each named subsystem.
type Levels map[string]slog.Level

// Parse reads a specification: comma-separated `subsystem=level` pairs,
// where level is debug, info, warn or error, and a bare level (or
// all=level) sets every subsystem not named otherwise. Whitespace around
// names is ignored; an empty specification gives no levels. An unknown
// subsystem or level is an error naming the choices.
func Parse(spec string) (Levels, error) {
	lv := Levels{}
	var all *slog.Level
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, level, ok := strings.Cut(part, "=")
		if !ok {
			name, level = "all", part
		}
		name, level = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(level)
		var l slog.Level
		if err := l.UnmarshalText([]byte(level)); err != nil {
			return nil, fmt.Errorf("log level %q of %q: use debug, info, warn or error", level, name)
		}
		switch {
		case name == "all" || name == "*":
			all = &l
		case slices.Contains(subsystems, name):
			lv[name] = l
		default:
			return nil, fmt.Errorf("no subsystem %q to log: use %s or all", name, strings.Join(Subsystems(), ", "))
		}
	}
	if all != nil {
		for _, s := range subsystems {
			if _, set := lv[s]; !set {
				lv[s] = *all
			}
		}
	}
	return lv, nil
}

// Set hands out the loggers of one specification, all writing text lines
// to one writer. It is safe for concurrent use; the nil Set discards.
type Set struct {
	levels Levels
	out    slog.Handler
}

// New returns a Set writing lines to w at the levels given. Its loggers
// share one handler, which writes each line whole.
func New(w io.Writer, lv Levels) *Set {
	return &Set{levels: lv, out: slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})}
}

// Enabled reports whether any subsystem logs at all.
func (s *Set) Enabled() bool { return s != nil && len(s.levels) > 0 }

// Logger returns the logger of a subsystem: its lines carry
// subsystem=NAME and are written at or above the subsystem's level;
// a subsystem not in the specification gets a discarding logger.
func (s *Set) Logger(subsystem string) *slog.Logger {
	if s == nil {
		return slog.New(slog.DiscardHandler)
	}
	l, ok := s.levels[subsystem]
	if !ok {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(&leveled{Handler: s.out.WithAttrs([]slog.Attr{slog.String("subsystem", subsystem)}), min: l})
}

// leveled filters a shared handler by a subsystem's own level.
type leveled struct {
	slog.Handler
	min slog.Level
}

func (h *leveled) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *leveled) WithAttrs(a []slog.Attr) slog.Handler {
	return &leveled{Handler: h.Handler.WithAttrs(a), min: h.min}
}

func (h *leveled) WithGroup(g string) slog.Handler {
	return &leveled{Handler: h.Handler.WithGroup(g), min: h.min}
}
