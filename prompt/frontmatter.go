package prompt

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/reinhq/rein/tool"
	"go.yaml.in/yaml/v3"
)

// errNoFrontMatter means the text does not start with a --- line.
var errNoFrontMatter = errors.New("has no front matter (a block between --- lines at the top)")

// frontMatter is the YAML block of a skill, template, command or rule.
// Anything else in the block is ignored.
type frontMatter struct {
	Name         string
	Description  string
	ArgumentHint string
	// Model names the model a command runs with (Claude Code's "model").
	Model string
	// AllowedTools are the tools a command or skill may use
	// ("allowed-tools": a list, or one string of comma- or
	// blank-separated rules such as "Bash(git add:*), Read").
	AllowedTools []string
	// Paths are the globs a rule applies to ("paths").
	Paths []string
}

// FrontMatterError is front matter that cannot be read. Line is the
// line of the file the problem is on (1-based), 0 when it is not known.
type FrontMatterError struct {
	Line int
	// Msg reads after a file name: "has front matter that …".
	Msg string
}

func (e *FrontMatterError) Error() string { return e.Msg }

// ErrNoFrontMatter means the text does not start with a --- line.
var ErrNoFrontMatter = errNoFrontMatter

// ParseFrontMatter splits text into the YAML block between the --- lines
// at its top, decoded into a map (nil when the block is empty), and the
// body after it. It returns ErrNoFrontMatter when text has no block,
// and a *FrontMatterError when the block never ends or is not valid
// YAML; the body is returned in every case.
func ParseFrontMatter(text string) (map[string]any, string, error) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, text, errNoFrontMatter
	}
	var block, body string
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		body = strings.TrimPrefix(strings.TrimPrefix(rest, "---"), "\n")
	} else {
		i := strings.Index(rest, "\n---\n")
		switch {
		case i >= 0:
			block, body = rest[:i], rest[i+5:]
		case strings.HasSuffix(rest, "\n---"):
			block = rest[:len(rest)-4]
		default:
			return nil, text, &FrontMatterError{Line: 1, Msg: "has front matter that never ends (no closing --- line)"}
		}
	}
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(block), &raw); err != nil {
		msg := yamlMessage(err)
		line := 0
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			line++ // the block starts on the file's second line
		}
		return nil, body, &FrontMatterError{Line: line, Msg: fmt.Sprintf("has front matter that is not valid YAML (%s)", msg)}
	}
	return raw, body, nil
}

var yamlLine = regexp.MustCompile(`(?:^|\s)line (\d+):`)

// splitFrontMatter parses the front matter at the top of text and
// returns it with the body after it.
func splitFrontMatter(text string) (frontMatter, string, error) {
	var fm frontMatter
	raw, body, err := ParseFrontMatter(text)
	if err != nil {
		return fm, body, err
	}
	for key, dst := range map[string]*[]string{"allowed-tools": &fm.AllowedTools, "allowed_tools": &fm.AllowedTools, "paths": &fm.Paths} {
		v, ok := raw[key]
		if !ok || v == nil {
			continue
		}
		list, err := stringList(v)
		if err != nil {
			return fm, body, fmt.Errorf("has front matter whose %q is %v", key, err)
		}
		*dst = list
	}
	for key, dst := range map[string]*string{"name": &fm.Name, "description": &fm.Description, "argument-hint": &fm.ArgumentHint, "argument_hint": &fm.ArgumentHint, "model": &fm.Model} {
		v, ok := raw[key]
		if !ok || v == nil {
			continue
		}
		switch v := v.(type) {
		case string:
			*dst = strings.TrimSpace(v)
		case int, float64, bool:
			*dst = fmt.Sprint(v)
		default:
			return fm, body, fmt.Errorf("has front matter whose %q is not text", key)
		}
	}
	return fm, body, nil
}

// stringList reads a front-matter value that is a list of strings or
// one string of comma- or blank-separated items; a blank inside
// parentheses does not separate ("Bash(git add:*)" is one item).
func stringList(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return tool.SplitList(v), nil
	case []any:
		var out []string
		for _, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("a list with an item that is not text (%v)", item)
			}
			out = append(out, tool.SplitList(s)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("neither text nor a list of text")
}

func yamlMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// oneLine joins the lines of s with spaces and cuts it to at most n
// runes, marking a cut with an ellipsis.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
