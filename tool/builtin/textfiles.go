package builtin

import (
	"context"
	"io/fs"
)

// Files is another home for the text the file tools read and write: an
// editor's buffers, reached over ACP, so that the model sees unsaved
// changes and its edits land where the user looks. The tools check
// every path first (inside the workspace, no link leading out, a
// regular text file on disk for read and edit) and keep their own rules
// (sizes, line numbers, exact matches, atomic all-or-nothing edits);
// only the text comes from and goes to Files. Images, binary files,
// listings and searches stay on disk, and bash never sees Files.
//
// handled false means "not mine": the tool uses the disk as it would
// without Files. Implementations must honour ctx and be safe for
// concurrent use.
type Files interface {
	// ReadTextFile returns the text of the file at abs, an absolute
	// path inside the workspace.
	ReadTextFile(ctx context.Context, abs string) (text string, handled bool, err error)
	// WriteTextFile replaces the text of the file at abs; mode is what
	// a file written to disk would get.
	WriteTextFile(ctx context.Context, abs, text string, mode fs.FileMode) (handled bool, err error)
}

// readThrough returns the text Files holds for p, or handled false.
func (w Workspace) readThrough(ctx context.Context, p rooted) (string, bool, error) {
	if w.Files == nil {
		return "", false, nil
	}
	return w.Files.ReadTextFile(ctx, p.abs())
}

// write replaces p's content through Files when it takes it, else
// atomically on disk.
func (w Workspace) write(ctx context.Context, p rooted, data []byte, mode fs.FileMode) error {
	if w.Files != nil {
		handled, err := w.Files.WriteTextFile(ctx, p.abs(), string(data), mode)
		if handled || err != nil {
			return err
		}
	}
	return p.atomicWrite(data, mode)
}
