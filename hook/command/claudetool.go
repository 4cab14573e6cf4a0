package command

import (
	"encoding/json"
	"strings"

	"github.com/reinhq/rein/tool"
)

// ClaudeTool returns the name and input Claude Code would give a call of
// a rein built-in tool ("bash" → "Bash" with command, "read" → "Read"
// with file_path …), the form Claude Code's hooks and output formats
// use; other tools keep their own name and arguments. workdir makes
// relative paths absolute.
func ClaudeTool(name string, args json.RawMessage, workdir string) (string, json.RawMessage) {
	return claudeTool(name, args, workdir)
}

// toolResponse is the tool_response a PostToolUse hook receives: rein's
// content, error flag and details, with the fields Claude Code's hooks
// read added for its tools — stdout, stderr and interrupted for Bash
// (rein's bash merges the two streams into stdout), filePath for Write
// and Edit. ccInput is the call's input in Claude Code's form.
func toolResponse(name string, ccInput json.RawMessage, res tool.Result) map[string]any {
	text := res.Text()
	out := map[string]any{"content": text, "is_error": res.IsError, "details": res.Details}
	switch name {
	case "bash":
		stdout, interrupted := BashOutput(text)
		out["stdout"], out["stderr"], out["interrupted"], out["isImage"] = stdout, "", interrupted, false
	case "write", "edit":
		var in struct {
			FilePath string `json:"file_path"`
		}
		if json.Unmarshal(ccInput, &in) == nil && in.FilePath != "" {
			out["filePath"] = in.FilePath
		}
		out["success"] = !res.IsError
	}
	return out
}

// BashOutput splits rein's bash result into the command's output (rein
// merges stdout and stderr, in order) and whether a signal ended it: the
// closing status line ("exit code: N", "killed by signal S") is rein's
// note to the model, not output, and "(no output)" stands for none.
func BashOutput(text string) (stdout string, interrupted bool) {
	body := strings.TrimRight(text, "\n")
	i := strings.LastIndexByte(body, '\n')
	last := body[i+1:]
	switch {
	case strings.HasPrefix(last, "exit code: "):
	case strings.HasPrefix(last, "killed by signal "):
		interrupted = true
	default:
		return text, false
	}
	if i < 0 {
		return "", interrupted
	}
	stdout = body[:i]
	if stdout == "(no output)" {
		stdout = ""
	}
	return stdout, interrupted
}
