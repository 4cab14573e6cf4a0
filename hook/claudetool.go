package hook

import "encoding/json"

// ClaudeTool returns the name and input Claude Code would give a call of
// a rein built-in tool ("bash" → "Bash" with command, "read" → "Read"
// with file_path …), the form Claude Code's hooks and output formats
// use; other tools keep their own name and arguments. workdir makes
// relative paths absolute.
func ClaudeTool(name string, args json.RawMessage, workdir string) (string, json.RawMessage) {
	return claudeTool(name, args, workdir)
}
