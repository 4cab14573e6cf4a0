package builtin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/tool"
)

// LsDefaultLimit is how many entries ls lists when no limit is given.
const LsDefaultLimit = 500

type lsArgs struct {
	Path  string `json:"path,omitempty" jsonschema:"Directory to list, relative to the workspace root. Default: the workspace root."`
	Limit int    `json:"limit,omitempty" jsonschema:"Maximum entries. Default 500."`
	Long  bool   `json:"long,omitempty" jsonschema:"Show mode, owner, group, size and mtime."`
}

// LsDetails is the Details of an ls result.
type LsDetails struct {
	Entries int `json:"entries"` // all entries, listed or not
	Shown   int `json:"shown"`
}

const lsDescription = `List one workspace directory: names sorted, directories end in /, symlinks as name -> target, dotfiles included, ignore files not applied. long adds mode, owner, group, size and mtime (ls -l). At most limit entries (default 500, about 15 KB).

Use instead of ls in bash; find searches a tree by name.`

// Ls returns the ls tool: the entries of one directory.
func Ls(w Workspace) *tool.Tool {
	t := tool.MustNew("ls", lsDescription, func(ctx context.Context, call *tool.Call, in lsArgs) (tool.Result, error) {
		return ls(ctx, w, in)
	})
	t.ReadOnly = true
	t.Idempotent = true
	return t
}

func ls(ctx context.Context, w Workspace, in lsArgs) (tool.Result, error) {
	if in.Limit < 0 {
		return tool.Result{}, fmt.Errorf("limit must be 1 or more (got %d)", in.Limit)
	}
	limit := in.Limit
	if limit == 0 {
		limit = LsDefaultLimit
	}
	abs, err := w.Resolve(in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	shown := w.display(abs)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return tool.Result{}, errors.New(w.notFound(abs))
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot list %s: %v", shown, err)
	}
	if !fi.IsDir() && in.Long {
		st, err := os.Lstat(abs)
		if err != nil {
			st = fi
		}
		return tool.Text(longLines(filepath.Dir(abs), []fs.FileInfo{st})[0]), nil
	}
	if !fi.IsDir() {
		return tool.Text(fmt.Sprintf("%s is a file (%s), not a directory; use read to see its content.", shown, humanSize(fi.Size()))), nil
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot list %s: %v", shown, err)
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	d := LsDetails{Entries: len(entries), Shown: min(len(entries), limit)}
	if len(entries) == 0 {
		return tool.Result{Content: tool.Text(fmt.Sprintf("(%s is empty)", shown)).Content, Details: d}, nil
	}
	var long []string
	var b strings.Builder
	if in.Long {
		long = longEntries(abs, entries[:d.Shown])
		// The directory itself first, as ls -la shows it.
		b.WriteString(longLines(filepath.Dir(abs), []fs.FileInfo{dotInfo{fi}})[0] + "\n")
	}
	capped := false
	for i, e := range entries[:d.Shown] {
		if long != nil {
			if b.Len()+len(long[i]) > MaxResultBytes-300 {
				d.Shown, capped = i, true
				break
			}
			b.WriteString(long[i] + "\n")
			continue
		}
		if b.Len() > MaxResultBytes-300 {
			d.Shown, capped = i, true
			break
		}
		name := e.Name()
		switch t := e.Type(); {
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(abs, name))
			if err != nil {
				target = "?"
			}
			if st, err := os.Stat(filepath.Join(abs, name)); err == nil && st.IsDir() {
				name += "/"
			}
			fmt.Fprintf(&b, "%s -> %s\n", name, target)
		case t.IsDir():
			b.WriteString(name + "/\n")
		default:
			b.WriteString(name + "\n")
		}
	}
	switch {
	case capped:
		fmt.Fprintf(&b, "[%d of %d entries listed (the output is capped at about %d KB); use find with a pattern]\n", d.Shown, d.Entries, MaxResultBytes/1000)
	case d.Entries > d.Shown:
		fmt.Fprintf(&b, "[%d of %d entries listed; raise limit, or use find with a pattern]\n", d.Shown, d.Entries)
	}
	return tool.Result{Content: tool.Text(strings.TrimSuffix(b.String(), "\n")).Content, Details: d}, nil
}
