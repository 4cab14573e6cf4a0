package interop

import (
	"errors"
	"testing"
)

// Every format Export writes parses, in each spelling ParseFormat
// knows; rein's own format, detection and unknown names are refused.
func TestParseExportFormat(t *testing.T) {
	for in, want := range map[string]Format{
		"pi": Pi, "claude": Claude, "Claude-Code": Claude, "codex": Codex, "opencode": OpenCode,
		"md": Markdown, "markdown": Markdown, "html": HTML, "json": Bundle, "bundle": Bundle,
	} {
		if got, err := ParseExportFormat(in); err != nil || got != want {
			t.Errorf("ParseExportFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "auto", "rein", "yaml"} {
		if got, err := ParseExportFormat(in); !errors.Is(err, ErrExportFormat) || got != "" {
			t.Errorf("ParseExportFormat(%q) = %q, %v", in, got, err)
		}
	}
}
