package long

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/tool/builtin"
)

// guard refuses the tool calls of a worker session that would change the
// progress file directly: write and edit naming it, and bash commands that
// name it with a writing construct (a redirection, sed -i, tee, mv, cp,
// rm, an interpreter). The refusal says which work-item tool does the
// job. What slips past it (a script that writes the file without naming
// it) is caught after the session: the harness compares the file with
// what it last wrote and restores it (see Store.Changed).
type guard struct {
	ws       builtin.Workspace
	progress string // absolute, symbolic links resolved
	name     string // as the layout spells it
	refused  atomic.Int32
}

// count is the number of calls refused so far.
func (g *guard) count() int { return int(g.refused.Load()) }

func newGuard(root, progress string) (*guard, error) {
	ws, err := builtin.NewWorkspace(root)
	if err != nil {
		return nil, err
	}
	abs, err := ws.Resolve(progress)
	if err != nil {
		return nil, err
	}
	return &guard{ws: ws, progress: abs, name: progress}, nil
}

// refusal is the text the model gets.
func (g *guard) refusal() string {
	return fmt.Sprintf("Refused: %s is the plan, kept by the harness; it is not edited directly. "+
		"Use work_item_update to change a task's status (in_progress, or cancelled with a note) or to leave a note, "+
		"work_item_add to add a task (with verify commands), work_item_list to read the plan. "+
		"Do not mark the task done yourself: the harness runs its verify commands when the session ends and marks it done when they pass and the work is committed.", g.name)
}

// check is the tool_call handler.
func (g *guard) check(_ context.Context, e *hook.ToolCallEvent) (hook.ToolCallResult, error) {
	c := e.Call
	switch c.Name {
	case "write", "edit":
		var a struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
			return hook.ToolCallResult{}, nil
		}
		abs, err := g.ws.Resolve(a.Path)
		if err == nil && abs == g.progress {
			g.refused.Add(1)
			return hook.ToolCallResult{Block: true, Reason: g.refusal()}, nil
		}
	case "bash":
		var a struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(c.Args, &a) == nil && g.bashWrites(a.Command) {
			g.refused.Add(1)
			return hook.ToolCallResult{Block: true, Reason: g.refusal()}, nil
		}
	}
	return hook.ToolCallResult{}, nil
}

// writing matches the programs of a shell command that may write a file
// named among their operands.
var writing = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bsed\s+(-[a-zA-Z]*i|--in-place)|\b(tee|mv|cp|rm|truncate|dd|install|ln|python3?|node|perl|ruby|awk)\b|\bgit\s+(checkout|restore|rm|mv|stash)\b`)
})

// bashWrites reports whether command names the progress file and may
// write it: a redirection into it, or a writing program.
func (g *guard) bashWrites(command string) bool {
	base := filepath.Base(g.name)
	if !strings.Contains(command, base) {
		return false
	}
	redirect := regexp.MustCompile(`>>?\|?\s*['"]?[^\s;|&'"]*` + regexp.QuoteMeta(base))
	return redirect.MatchString(command) || writing().MatchString(command)
}
