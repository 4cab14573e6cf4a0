package acp

import (
	"context"
	"fmt"
	"io/fs"

	sdk "github.com/coder/acp-go-sdk"
)

// clientFiles is the builtin.Files of a session whose client offers
// fs/read_text_file or fs/write_text_file: the read, write and edit
// tools take and put text through the client, after rein has checked
// the path. A method the client did not offer is left to the disk.
type clientFiles struct {
	ss          *acpSession
	read, write bool
}

// ReadTextFile asks the client for the file's text (its buffer when the
// file is open in the editor).
func (c *clientFiles) ReadTextFile(ctx context.Context, abs string) (string, bool, error) {
	if !c.read {
		return "", false, nil
	}
	resp, err := c.ss.srv.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(c.ss.id), Path: abs})
	if err != nil {
		return "", true, fmt.Errorf("the editor could not read it: %w", err)
	}
	return resp.Content, true, nil
}

// WriteTextFile hands the new text to the client, which writes the file
// (or its buffer) as the editor does.
func (c *clientFiles) WriteTextFile(ctx context.Context, abs, text string, _ fs.FileMode) (bool, error) {
	if !c.write {
		return false, nil
	}
	if _, err := c.ss.srv.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(c.ss.id), Path: abs, Content: text}); err != nil {
		return true, fmt.Errorf("the editor could not write it: %w", err)
	}
	return true, nil
}
