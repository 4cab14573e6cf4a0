package builtin

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinhq/rein/tool"
)

type writeArgs struct {
	Path    string `json:"path" jsonschema:"File in the workspace (relative or absolute); parent directories are created."`
	Content string `json:"content" jsonschema:"The complete new content of the file."`
}

// WriteDetails is the Details of a write result.
type WriteDetails struct {
	Path    string `json:"path"`
	Bytes   int    `json:"bytes"`
	Lines   int    `json:"lines"`
	Created bool   `json:"created"`
}

const writeDescription = `Create a workspace file or replace all of its content, atomically; missing folders are created and an existing file keeps its mode. Reports bytes and lines written. To change part of a file use edit: it is safer and shows a diff.`

// Write returns the write tool: atomic replacement of a file's content.
func Write(w Workspace) *tool.Tool {
	t := tool.MustNew("write", writeDescription, func(ctx context.Context, call *tool.Call, in writeArgs) (tool.Result, error) {
		return writeFile(ctx, w, in)
	})
	t.Mode = tool.Sequential
	return t
}

func writeFile(ctx context.Context, w Workspace, in writeArgs) (tool.Result, error) {
	if in.Path == "" {
		return tool.Result{}, fmt.Errorf("path is empty; give the file to write")
	}
	p, err := w.openRooted(in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	defer p.root.Close()
	shown := w.display(p.abs())
	mode, created, err := p.fileMode()
	if errors.Is(err, ErrOutside) {
		return tool.Result{}, err
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot write %s: %v", shown, err)
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if err := w.write(ctx, p, []byte(in.Content), mode); err != nil {
		if errors.Is(err, ErrOutside) {
			return tool.Result{}, err
		}
		return tool.Result{}, fmt.Errorf("cannot write %s: %v", shown, err)
	}
	d := WriteDetails{Path: shown, Bytes: len(in.Content), Lines: countLines(in.Content), Created: created}
	verb := "Overwrote"
	if created {
		verb = "Created"
	}
	return tool.Result{
		Content: tool.Text(fmt.Sprintf("%s %s: %s, %s.", verb, shown, plural(d.Bytes, "byte"), plural(d.Lines, "line"))).Content,
		Details: d,
	}, nil
}
