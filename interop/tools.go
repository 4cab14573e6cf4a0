package interop

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// ReinTools are the tools whose calls stay structured in an import.
var ReinTools = []string{"read", "write", "edit", "bash", "grep", "find", "ls", "agent"}

func isReinTool(name string) bool { return slices.Contains(ReinTools, name) }

// toolNames maps, per format, the format's tool names onto rein's. A
// name missing here is the same on both sides only for pi.
var toolNames = map[Format]map[string]string{
	// A sub-agent call (Claude Code's Agent, earlier Task; opencode's
	// task) has rein's agent tool's arguments: subagent_type,
	// description, prompt.
	Claude: {"Read": "read", "Write": "write", "Edit": "edit", "MultiEdit": "edit", "Bash": "bash",
		"Grep": "grep", "Glob": "find", "LS": "ls", "Agent": "agent", "Task": "agent"},
	OpenCode: {"read": "read", "write": "write", "edit": "edit", "multiedit": "edit", "bash": "bash",
		"grep": "grep", "glob": "find", "list": "ls", "task": "agent"},
	Codex: {"shell": "bash", "shell_command": "bash", "exec_command": "bash", "local_shell": "bash", "container.exec": "bash",
		"read": "read", "write": "write", "edit": "edit", "grep": "grep", "find": "find", "ls": "ls"},
}

// keyNames maps, per format, argument names onto rein's, at the top level
// and inside the items of an "edits" list.
var keyNames = map[Format]map[string]string{
	Pi:       {"oldText": "old_text", "newText": "new_text", "ignoreCase": "ignore_case"},
	Claude:   {"file_path": "path", "notebook_path": "path", "old_string": "old_text", "new_string": "new_text", "-i": "ignore_case", "-C": "context", "head_limit": "limit"},
	OpenCode: {"filePath": "path", "oldString": "old_text", "newString": "new_text", "include": "glob", "ignoreCase": "ignore_case"},
	Codex:    {"cmd": "command", "timeout_ms": "timeout"},
}

// toRein maps a call of format f onto rein's tool and arguments. ok is
// false when rein has no such tool; name and args are then the source's.
func toRein(f Format, name string, args json.RawMessage) (string, json.RawMessage, bool) {
	mapped := name
	if names := toolNames[f]; names != nil {
		m, found := names[name]
		if !found {
			return name, args, false
		}
		mapped = m
	}
	if !isReinTool(mapped) {
		return name, args, false
	}
	if f == Pi && !mentionsAny(args, keyNames[Pi]) {
		return mapped, args, true // pi spells rein's arguments the same
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return mapped, args, true
	}
	obj = renameKeys(obj, keyNames[f], false)
	switch {
	case mapped == "edit" && obj["edits"] == nil && obj["old_text"] != nil:
		// One replacement at the top level (Claude's and opencode's edit).
		one := map[string]json.RawMessage{"old_text": obj["old_text"], "new_text": obj["new_text"]}
		delete(obj, "old_text")
		delete(obj, "new_text")
		b, _ := json.Marshal([]map[string]json.RawMessage{one})
		obj["edits"] = b
	case mapped == "bash":
		if f == Claude || f == OpenCode || f == Codex {
			obj["timeout"] = scale(obj["timeout"], 1000, false)
		}
		if cmd := obj["command"]; len(cmd) > 0 && cmd[0] == '[' {
			obj["command"] = joinArgv(cmd)
		}
		if f == Claude || f == OpenCode {
			delete(obj, "description") // a label for people, not part of the command
		}
	}
	for k, v := range obj {
		if v == nil {
			delete(obj, k)
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return mapped, args, true
	}
	return mapped, b, true
}

// fromRein maps one of rein's calls onto format f's tool and arguments.
// Tools the format lacks keep rein's name and arguments.
func fromRein(f Format, name string, args json.RawMessage) (string, json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil || !isReinTool(name) {
		return name, args
	}
	out := name
	switch f {
	case Claude:
		out = map[string]string{"read": "Read", "write": "Write", "edit": "Edit", "bash": "Bash", "grep": "Grep", "find": "Glob", "ls": "LS", "agent": "Agent"}[name]
	case OpenCode:
		out = map[string]string{"read": "read", "write": "write", "edit": "edit", "bash": "bash", "grep": "grep", "find": "glob", "ls": "list", "agent": "task"}[name]
	case Codex:
		switch name {
		case "bash":
			out = "exec_command"
		case "agent":
			return name, args // codex has no such tool: rein's name and arguments
		}
	}
	if name == "bash" && (f == Claude || f == OpenCode || f == Codex) {
		obj["timeout"] = scale(obj["timeout"], 1000, true)
		if obj["timeout"] == nil {
			delete(obj, "timeout")
		}
	}
	if name == "edit" && (f == Claude || f == OpenCode) {
		var edits []map[string]json.RawMessage
		if json.Unmarshal(obj["edits"], &edits) == nil && len(edits) == 1 {
			delete(obj, "edits")
			obj["old_text"], obj["new_text"] = edits[0]["old_text"], edits[0]["new_text"]
		} else if f == Claude {
			out = "MultiEdit"
		}
	}
	names := keyNames[f]
	switch {
	case f == Codex && name != "bash":
		names = nil
	case (f == Claude || f == OpenCode) && (name == "grep" || name == "find" || name == "ls"):
		names = without(names, "path")
	}
	obj = renameKeys(obj, names, true)
	b, err := json.Marshal(obj)
	if err != nil {
		return out, args
	}
	return out, b
}

// mentionsAny reports whether args contain any of the names' keys.
func mentionsAny(args []byte, names map[string]string) bool {
	for k := range names {
		if bytes.Contains(args, []byte(`"`+k+`"`)) {
			return true
		}
	}
	return false
}

// without returns names less the entries whose value is v.
func without(names map[string]string, v string) map[string]string {
	out := make(map[string]string, len(names))
	for k, n := range names {
		if n != v {
			out[k] = n
		}
	}
	return out
}

// renameKeys renames the members of obj (and of the objects in its
// "edits" list) by names, or by its inverse when back is set.
func renameKeys(obj map[string]json.RawMessage, names map[string]string, back bool) map[string]json.RawMessage {
	if len(names) == 0 {
		return obj
	}
	lookup := names
	if back {
		lookup = make(map[string]string, len(names))
		for k, v := range names {
			if _, dup := lookup[v]; !dup || k == "file_path" || k == "cmd" {
				lookup[v] = k
			}
		}
	}
	out := make(map[string]json.RawMessage, len(obj))
	for k, v := range obj {
		if k == "edits" {
			var items []map[string]json.RawMessage
			if json.Unmarshal(v, &items) == nil {
				for i := range items {
					items[i] = renameKeys(items[i], names, back)
				}
				if b, err := json.Marshal(items); err == nil {
					v = b
				}
			}
		}
		if n, ok := lookup[k]; ok {
			k = n
		}
		out[k] = v
	}
	return out
}

// scale converts a timeout between seconds and milliseconds: up
// multiplies by factor, else divides (rounding up).
func scale(v json.RawMessage, factor int64, up bool) json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	n, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return v
	}
	if up {
		return json.RawMessage(strconv.FormatInt(int64(n*float64(factor)), 10))
	}
	return json.RawMessage(strconv.FormatInt((int64(n)+factor-1)/factor, 10))
}

// joinArgv turns an argv list (codex's shell tool) into one command line:
// the script of `bash -lc SCRIPT`, or the words quoted for a shell.
func joinArgv(raw json.RawMessage) json.RawMessage {
	var argv []string
	if json.Unmarshal(raw, &argv) != nil {
		return raw
	}
	if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh" || strings.HasSuffix(argv[0], "/bash")) && (argv[1] == "-lc" || argv[1] == "-c") {
		b, _ := json.Marshal(argv[2])
		return b
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	b, _ := json.Marshal(strings.Join(q, " "))
	return b
}
