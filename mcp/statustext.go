package mcp

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// WriteStatus writes servers' states for people: per server a line of
// its name, state, transport and target, then its server name, error,
// log (relative to workspace when below it), tools and skipped tools,
// one a line.
func WriteStatus(w io.Writer, sts []Status, workspace string) {
	for _, st := range sts {
		fmt.Fprintf(w, "%s  %s  %s  %s\n", st.Name, st.State, st.Transport, st.Target)
		if st.Server != "" {
			fmt.Fprintf(w, "  server: %s\n", st.Server)
		}
		if st.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", st.Error)
		}
		if st.Log != "" && st.State != StateDisabled {
			log := st.Log
			if rel, err := filepath.Rel(workspace, log); err == nil && !strings.HasPrefix(rel, "..") {
				log = rel
			}
			fmt.Fprintf(w, "  log: %s\n", log)
		}
		for _, t := range st.Tools {
			fmt.Fprintf(w, "  tool: %s\n", t)
		}
		for _, s := range st.Skipped {
			fmt.Fprintf(w, "  skipped: %s\n", s)
		}
	}
}
