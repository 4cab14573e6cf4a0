package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm/faux"
)

// Open writes the demo project into dir (a new temporary directory when
// dir is "") and opens a coding agent on it that the scripted model
// drives: no session log, no turn cap, and every tool call allowed, as
// the folder is the demo's own. o carries what the front-end owns
// (Getenv, Warn, Redactor, Version, Frontend); its workspace, model,
// session and permission settings are replaced. A directory that holds
// files is refused before anything is written.
func Open(ctx context.Context, dir string, o coding.Options) (*coding.Agent, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "rein-demo-")
		if err != nil {
			return nil, err
		}
		dir = d
	}
	if err := Write(dir); err != nil {
		return nil, err
	}
	provider := faux.New(Script()...)
	provider.IDPrefix = "call_"
	o.Workdir, o.Provider, o.ModelInfo, o.Model = dir, provider, faux.Model(), ""
	o.Session, o.NoSession, o.MaxTurns = "", true, -1
	o.DefaultMode, o.PermissionMode = "auto_all", ""
	return coding.Open(ctx, o)
}

// Summary is what a run of the demo did, for its closing report.
type Summary struct {
	// End is the agent's end event: how the run stopped, its turns and
	// usage.
	End agent.Event
	// Calls counts the tool calls by tool.
	Calls map[string]int
	// Workspace is the demo's folder; Saved are the full outputs the
	// tools saved under .rein/output, relative to it, with their size.
	Workspace string
	Saved     []Saved
}

// Saved is one full tool output kept on disk.
type Saved struct {
	Path string
	Size int64
}

// Summarize sums up a demo run from its end event and tool-call counts,
// listing the outputs saved in the workspace.
func Summarize(root string, end agent.Event, calls map[string]int) Summary {
	s := Summary{End: end, Calls: calls, Workspace: root}
	files, _ := filepath.Glob(filepath.Join(root, ".rein", "output", "*.*"))
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), ".") {
			continue
		}
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(root, f)
		s.Saved = append(s.Saved, Saved{Path: rel, Size: fi.Size()})
	}
	return s
}

// WriteText writes the summary as aligned lines: stop, turns, tool calls
// by tool, tokens, saved outputs and the workspace, which is kept.
func (s Summary) WriteText(w io.Writer) error {
	var tools []string
	n := 0
	for name, c := range s.Calls {
		tools = append(tools, fmt.Sprintf("%s %d", name, c))
		n += c
	}
	sort.Strings(tools)
	var b strings.Builder
	fmt.Fprintf(&b, "  stop:       %s\n", s.End.Stop)
	fmt.Fprintf(&b, "  turns:      %d\n", s.End.Turn)
	fmt.Fprintf(&b, "  tool calls: %d (%s)\n", n, strings.Join(tools, ", "))
	fmt.Fprintf(&b, "  tokens:     %d in, %d out (estimated by the scripted model)\n", s.End.Usage.PromptTokens(), s.End.Usage.Output)
	for _, f := range s.Saved {
		fmt.Fprintf(&b, "  saved:      %s (%d bytes, the full output the model saw only the head and tail of)\n", f.Path, f.Size)
	}
	fmt.Fprintf(&b, "  workspace:  %s (kept, so you can look at the files)\n", s.Workspace)
	_, err := io.WriteString(w, b.String())
	return err
}
