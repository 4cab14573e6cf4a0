package coding

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/reinhq/rein/interop"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
)

// Imported is what ImportFile carried into a workspace.
type Imported struct {
	// Path and ID are the new session's file and id (a bundle's main
	// session's).
	Path, ID string
	// From is the file that was imported.
	From string
	// Bundle is set when the file was a rein bundle, restored with its
	// own ids; Conversation is set otherwise: what was read, with its
	// source and report.
	Bundle       *interop.Restored
	Conversation *interop.Conversation
	// Children are the sub-agent sessions imported with it, in the order
	// of Conversation.Children (closed).
	Children []ImportedChild
}

// ImportedChild is a sub-agent's session imported beside its parent.
type ImportedChild struct {
	ID           string
	Conversation *interop.Conversation
}

// ImportFile imports the recording at path into the sessions of
// workspace root: a rein bundle is restored (its sessions and run
// records, ids kept); another harness's session, in format f (or
// detected when f is ""), becomes a new session recording its source,
// its sub-agents' sessions linked under it. Entries pass through r. The
// file is only read, and a recording is streamed into the new session
// (interop.ImportFile), so the import does not hold the conversation.
// When a sub-agent cannot be imported or linked, the error comes with
// the Imported so far (its Children those written).
func ImportFile(path string, f interop.Format, root string, r *redact.Redactor) (*Imported, error) {
	bundle, err := isBundleFile(path)
	if err != nil {
		return nil, err
	}
	if bundle {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		res, err := interop.RestoreBundle(data, path, session.DefaultDir(root), root, telemetry.DefaultDir(root), r.Bytes)
		if err != nil {
			return nil, err
		}
		return &Imported{Path: res.Paths[0], ID: res.IDs[0], From: path, Bundle: res}, nil
	}
	opts := session.Options{Dir: session.DefaultDir(root), Cwd: root, Redact: r.Bytes}
	in, err := interop.ImportFile(path, f, opts)
	if err != nil {
		return nil, err
	}
	c := in.Conversation
	im := &Imported{Path: in.Path, ID: in.ID, From: path, Conversation: c}
	if len(c.Children) == 0 {
		return im, nil
	}
	s, err := session.Open(in.Path, opts)
	if err != nil {
		return im, fmt.Errorf("the sub-agents of %s: %w", path, err)
	}
	defer s.Close()
	children, err := interop.ImportChildren(c, s, opts)
	for i, child := range children {
		cc := c.Children[i]
		if err == nil {
			err = subagent.RecordImported(s, child, cc.Link.Type, cc.Name, cc.Link.ParentCall, cc.Link.Depth)
		}
		im.Children = append(im.Children, ImportedChild{ID: child.ID(), Conversation: cc})
		child.Close()
	}
	if err != nil {
		return im, fmt.Errorf("the sub-agents of %s: %w", path, err)
	}
	return im, nil
}

// isBundleFile reports whether the file at path starts like a rein
// bundle, reading only its head.
func isBundleFile(path string) (bool, error) {
	fh, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer fh.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, err
	}
	return interop.IsBundle(head[:n]), nil
}
