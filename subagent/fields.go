package subagent

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/tool"
)

// definitionKeys are the front-matter (and --agents JSON) keys rein
// reads. "prompt" is the --agents form of a file's body.
var definitionKeys = []string{"name", "description", "prompt", "tools", "disallowedTools", "model", "permissionMode",
	"maxTurns", "skills", "mcpServers", "background", "timeout", "maxCostUsd", "maxInputTokens", "maxOutputTokens"}

// claudeOnlyKeys are Claude Code keys rein accepts without acting on
// them; all but color are said once as a warning.
var claudeOnlyKeys = map[string]bool{"color": true, "hooks": false, "memory": false, "isolation": false, "effort": false, "initialPrompt": false}

// reinTools are rein's own tool names, known without a Claude Code
// name: the built-ins, the agent tools and the tools added by the
// front door.
var reinTools = []string{"read", "write", "edit", "bash", "grep", "find", "ls", "agent", "agent_cancel", "skill", "work_complete"}

// validName reports whether a name holds what Claude Code accepts, less
// the characters that would break a rule such as Agent(a, b): a letter or
// digit, then up to 127 letters, digits, blanks and "_.:-". (A regexp
// with Unicode classes would cost every start of rein tens of
// milliseconds to compile.)
func validName(name string) bool {
	n := 0
	for i, r := range name {
		n++
		word := unicode.IsLetter(r) || unicode.IsNumber(r)
		if n > 128 || i == 0 && !word || !word && !strings.ContainsRune(" _.:-", r) {
			return false
		}
	}
	return n > 0
}

// decode turns the keys of one definition (front matter decoded from
// YAML, or one --agents JSON object) into d. A problem that makes the
// definition unusable is returned as an error whose text reads after
// the definition's source ("maxTurns is -1; …"); lesser problems become
// d.Warnings. known reports whether a tool name is known.
func decode(raw map[string]any, d *Definition, known func(string) bool) error {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := raw[k]
		if slices.Contains(definitionKeys, k) {
			if err := decodeKey(k, v, d); err != nil {
				return err
			}
			continue
		}
		if quiet, ok := claudeOnlyKeys[k]; ok {
			if !quiet {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s is a Claude Code key rein does not act on; ignored", k))
			}
			continue
		}
		d.Warnings = append(d.Warnings, fmt.Sprintf("unknown key %q; ignored (known keys: %s)", k, strings.Join(definitionKeys, ", ")))
	}
	if d.Name == "" {
		return fmt.Errorf("has no name; add a line such as name: code-reviewer")
	}
	if !validName(d.Name) {
		return fmt.Errorf("name %q is not a valid agent name (up to 128 letters, digits, blanks, '-', '_', '.' and ':', starting with a letter or digit)", d.Name)
	}
	if strings.TrimSpace(d.Description) == "" {
		return fmt.Errorf("has no description; add one saying when to use the agent, such as description: Reviews code after changes")
	}
	for _, list := range [][]string{d.Tools, d.DisallowedTools} {
		for _, t := range list {
			if !known(t) {
				d.Warnings = append(d.Warnings, fmt.Sprintf("unknown tool %q; it matches no tool", t))
			}
		}
	}
	return nil
}

func decodeKey(k string, v any, d *Definition) error {
	var err error
	switch k {
	case "name":
		d.Name, err = text(k, v)
	case "description":
		d.Description, err = text(k, v)
	case "prompt":
		d.Prompt, err = text(k, v)
	case "model":
		d.Model, err = text(k, v)
	case "tools":
		d.Tools, err = list(k, v)
		if err == nil && d.Tools == nil {
			d.Tools = []string{} // tools: [] gives the agent no tools
		}
	case "disallowedTools":
		d.DisallowedTools, err = list(k, v)
	case "skills":
		d.Skills, err = list(k, v)
	case "mcpServers":
		d.MCPServers, d.MCPConfigs, err = servers(v)
	case "permissionMode":
		var s string
		if s, err = text(k, v); err == nil && s != "" {
			d.PermissionMode, err = permission.ParseMode(s)
			if err != nil {
				err = fmt.Errorf("permissionMode %q is not a mode; use default, acceptEdits, plan, bypassPermissions, dontAsk or rein's ask, auto_read, auto_edit, auto_all", s)
			}
		}
	case "maxTurns":
		d.MaxTurns, err = turns(v)
	case "background":
		switch v {
		case nil, false, "false":
			d.Background = false
		case true, "true":
			d.Background = true
		default:
			return fmt.Errorf("background is %v; write true or false", v)
		}
	case "timeout":
		d.Timeout, err = timeout(v)
	case "maxCostUsd":
		d.Budget.CostUSD, err = amount(k, v, false)
	case "maxInputTokens":
		var n float64
		n, err = amount(k, v, true)
		d.Budget.InputTokens = int(n)
	case "maxOutputTokens":
		var n float64
		n, err = amount(k, v, true)
		d.Budget.OutputTokens = int(n)
	}
	return err
}

// amount reads a budget key: a positive number (a whole one for token
// counts); an absent value sets no limit.
func amount(k string, v any, whole bool) (float64, error) {
	var n float64
	switch v := v.(type) {
	case nil:
		return 0, nil
	case int:
		n = float64(v)
	case int64:
		n = float64(v)
	case uint64:
		n = float64(v)
	case float64:
		n = v
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			n = -1
		} else {
			n = f
		}
	default:
		n = -1
	}
	if whole && (n != math.Trunc(n) || n > math.MaxInt32) || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		if whole {
			return 0, fmt.Errorf("%s is %v; write a whole number of tokens of at least 1, or leave it out for no limit of the agent's own", k, v)
		}
		return 0, fmt.Errorf("%s is %v; write a dollar amount above 0 such as 0.50, or leave it out for no limit of the agent's own", k, v)
	}
	return n, nil
}

// text reads a key whose value is text; numbers and booleans are taken
// as written, an absent value (key:) is "".
func text(k string, v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return strings.TrimSpace(v), nil
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("%s is not text", k)
}

// list reads a list of names: a YAML or JSON list, or one string of
// comma- or blank-separated items ("Read, Grep, Bash(git log *)").
func list(k string, v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return tool.SplitList(v), nil
	case []any:
		out := []string{}
		for _, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("%s holds %v, which is not a name", k, item)
			}
			out = append(out, tool.SplitList(s)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is neither a list nor comma-separated names", k)
}

// servers reads mcpServers: names of servers configured elsewhere, or
// inline objects {name: config}.
func servers(v any) ([]string, map[string]json.RawMessage, error) {
	items, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil, nil, nil
		}
		if s, isText := v.(string); isText {
			return tool.SplitList(s), nil, nil
		}
		if m, isMap := v.(map[string]any); isMap {
			items = []any{m}
		} else {
			return nil, nil, fmt.Errorf("mcpServers is neither a list of server names nor of {name: config} objects")
		}
	}
	var names []string
	var cfgs map[string]json.RawMessage
	for _, it := range items {
		switch it := it.(type) {
		case string:
			names = append(names, it)
		case map[string]any:
			for name, cfg := range it {
				b, err := json.Marshal(cfg)
				if err != nil {
					return nil, nil, fmt.Errorf("mcpServers entry %q cannot be read: %v", name, err)
				}
				if cfgs == nil {
					cfgs = map[string]json.RawMessage{}
				}
				cfgs[name] = b
				names = append(names, name)
			}
		default:
			return nil, nil, fmt.Errorf("mcpServers holds %v, which is neither a server name nor a {name: config} object", it)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), cfgs, nil
}

// turns reads maxTurns: a whole number of at least 1.
func turns(v any) (int, error) {
	bad := func() (int, error) {
		return 0, fmt.Errorf("maxTurns is %v; write a whole number of at least 1, or leave it out for the default", v)
	}
	var n float64
	switch v := v.(type) {
	case nil:
		return 0, nil
	case int:
		n = float64(v)
	case int64:
		n = float64(v)
	case uint64:
		n = float64(v)
	case float64:
		n = v
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return bad()
		}
		n = f
	default:
		return bad()
	}
	if n < 1 || n != math.Trunc(n) || n > math.MaxInt32 {
		return bad()
	}
	return int(n), nil
}

// timeout reads rein's timeout key: a duration ("10m") or seconds.
func timeout(v any) (time.Duration, error) {
	bad := func() (time.Duration, error) {
		return 0, fmt.Errorf("timeout is %v; write a duration such as 10m or a number of seconds", v)
	}
	switch v := v.(type) {
	case nil:
		return 0, nil
	case int:
		if v > 0 {
			return time.Duration(v) * time.Second, nil
		}
	case float64:
		if v > 0 && v < math.MaxInt32 {
			return time.Duration(v * float64(time.Second)), nil
		}
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err == nil && d > 0 {
			return d, nil
		}
	}
	return bad()
}

// knownTool reports whether name is a tool rein knows: one of tools
// (rein's names of the tools on offer; nil means rein's own), a Claude
// Code name, or an MCP tool.
func knownTool(tools []string) func(string) bool {
	if tools == nil {
		tools = reinTools
	}
	return func(name string) bool {
		if _, ok := permission.ToolsNamed(name); ok {
			return true
		}
		base, _, _ := strings.Cut(name, "(")
		base = strings.TrimSpace(base)
		return strings.HasPrefix(base, "mcp__") || slices.Contains(tools, base) || slices.Contains(tools, strings.ToLower(base))
	}
}
