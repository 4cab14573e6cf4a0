package command

import (
	"encoding/json"
	"path/filepath"
)

// claudeTool returns the name and input Claude Code would give a call of
// a rein built-in tool, so hooks written for Claude Code see what they
// expect; other tools keep their own name and arguments.
func claudeTool(name string, args json.RawMessage, workdir string) (string, json.RawMessage) {
	if name == "agent" {
		// Its arguments (subagent_type, description, prompt,
		// run_in_background) are Claude Code's already.
		return "Agent", args
	}
	var a struct {
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
		Path    string `json:"path"`
		Content string `json:"content"`
		Offset  int    `json:"offset"`
		Limit   int    `json:"limit"`
		Pattern string `json:"pattern"`
		Edits   []struct {
			OldText string `json:"old_text"`
			NewText string `json:"new_text"`
		} `json:"edits"`
	}
	if json.Unmarshal(args, &a) != nil {
		return name, args
	}
	abs := func(p string) string {
		if p == "" {
			return workdir
		}
		if !filepath.IsAbs(p) {
			return filepath.Join(workdir, p)
		}
		return p
	}
	var out any
	switch name {
	case "bash":
		m := map[string]any{"command": a.Command}
		if a.Timeout > 0 {
			m["timeout"] = a.Timeout * 1000
		}
		name, out = "Bash", m
	case "write":
		name, out = "Write", map[string]any{"file_path": abs(a.Path), "content": a.Content}
	case "edit":
		if len(a.Edits) == 1 {
			name, out = "Edit", map[string]any{"file_path": abs(a.Path), "old_string": a.Edits[0].OldText, "new_string": a.Edits[0].NewText}
		} else {
			edits := make([]map[string]string, len(a.Edits))
			for i, e := range a.Edits {
				edits[i] = map[string]string{"old_string": e.OldText, "new_string": e.NewText}
			}
			name, out = "MultiEdit", map[string]any{"file_path": abs(a.Path), "edits": edits}
		}
	case "read":
		m := map[string]any{"file_path": abs(a.Path)}
		if a.Offset > 0 {
			m["offset"] = a.Offset
		}
		if a.Limit > 0 {
			m["limit"] = a.Limit
		}
		name, out = "Read", m
	case "grep":
		name, out = "Grep", map[string]any{"pattern": a.Pattern, "path": abs(a.Path)}
	case "find":
		name, out = "Glob", map[string]any{"pattern": a.Pattern, "path": abs(a.Path)}
	case "ls":
		name, out = "LS", map[string]any{"path": abs(a.Path)}
	default:
		return name, args
	}
	b, err := json.Marshal(out)
	if err != nil {
		return name, args
	}
	return name, b
}

// toolNames are the names a tool matcher is tried against: Claude
// Code's name of the tool, rein's, and Task, the older name of Claude
// Code's Agent tool.
func toolNames(claude, rein string) []string {
	if claude == "Agent" {
		return []string{claude, rein, "Task"}
	}
	return []string{claude, rein}
}

// reinInput turns a hook's updatedInput, written in Claude Code's shape
// for the tool, back into rein's arguments, keeping what the hook did
// not set from the original arguments.
func reinInput(tool string, orig, updated json.RawMessage) json.RawMessage {
	var base map[string]any
	if json.Unmarshal(orig, &base) != nil || base == nil {
		base = map[string]any{}
	}
	var u map[string]any
	if json.Unmarshal(updated, &u) != nil {
		return nil
	}
	rename := map[string]string{"file_path": "path"}
	switch tool {
	case "bash":
		if t, ok := u["timeout"].(float64); ok {
			u["timeout"] = int(t / 1000)
		}
	case "edit":
		if o, ok := u["old_string"]; ok {
			base["edits"] = []map[string]any{{"old_text": o, "new_text": u["new_string"]}}
			delete(u, "old_string")
			delete(u, "new_string")
		}
		if es, ok := u["edits"].([]any); ok {
			var edits []map[string]any
			for _, e := range es {
				if m, ok := e.(map[string]any); ok {
					edits = append(edits, map[string]any{"old_text": m["old_string"], "new_text": m["new_string"]})
				}
			}
			u["edits"] = edits
		}
	}
	for k, v := range u {
		if r, ok := rename[k]; ok {
			k = r
		}
		base[k] = v
	}
	b, err := json.Marshal(base)
	if err != nil {
		return nil
	}
	return b
}
