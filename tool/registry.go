package tool

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/reinhq/rein/llm"
)

// Registry is an immutable set of tools, in a fixed order. Build one with
// NewRegistry; narrow it with Select. Safe for concurrent use.
type Registry struct {
	tools  []*Tool
	byName map[string]*Tool
	specs  []llm.ToolSpec
}

// NewRegistry returns a registry of tools. It fails on duplicate names,
// missing run functions and schemas that are not valid JSON Schema.
func NewRegistry(tools ...*Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]*Tool, len(tools))}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if _, dup := r.byName[t.Name]; dup {
			return nil, fmt.Errorf("tool: two tools are named %q", t.Name)
		}
		if t.schema == nil {
			if err := t.resolve(); err != nil {
				return nil, err
			}
		}
		r.byName[t.Name] = t
		r.tools = append(r.tools, t)
		r.specs = append(r.specs, t.Spec())
	}
	for _, t := range r.tools {
		for _, a := range t.Aliases {
			if _, taken := r.byName[a]; !taken {
				r.byName[a] = t
			}
		}
	}
	return r, nil
}

// Get returns the tool with the given name or alias, or nil.
func (r *Registry) Get(name string) *Tool {
	if r == nil {
		return nil
	}
	return r.byName[name]
}

// Tools returns the tools in registry order. The slice must not be changed.
func (r *Registry) Tools() []*Tool {
	if r == nil {
		return nil
	}
	return r.tools
}

// Names returns the tool names in registry order.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name
	}
	return names
}

// Specs returns the tool descriptions sent to models. The slice must not
// be changed.
func (r *Registry) Specs() []llm.ToolSpec {
	if r == nil {
		return nil
	}
	return r.specs
}

// Toolsets returns rein's named toolsets: "coding" (read, write, edit,
// bash, grep, find, ls) and "readonly" (read, grep, find, ls).
func Toolsets() map[string][]string {
	return map[string][]string{
		"coding":   {"read", "write", "edit", "bash", "grep", "find", "ls"},
		"readonly": {"read", "grep", "find", "ls"},
	}
}

// Select returns a registry narrowed by allow and deny lists. Entries are
// tool names or toolset names (see Toolsets). An empty allow list keeps
// every tool; deny removes tools after that. Naming a tool or toolset
// that does not exist is an error that lists what does.
func (r *Registry) Select(allow, deny []string) (*Registry, error) {
	sets := Toolsets()
	expand := func(list []string) (map[string]bool, error) {
		out := map[string]bool{}
		for _, item := range list {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if names, ok := sets[item]; ok {
				for _, n := range names {
					if r.Get(n) != nil {
						out[n] = true
					}
				}
				continue
			}
			if r.Get(item) == nil {
				return nil, fmt.Errorf("unknown tool or toolset %q; tools: %s; toolsets: %s",
					item, strings.Join(r.Names(), ", "), strings.Join(sortedKeys(sets), ", "))
			}
			out[item] = true
		}
		return out, nil
	}
	allowed, err := expand(allow)
	if err != nil {
		return nil, err
	}
	denied, err := expand(deny)
	if err != nil {
		return nil, err
	}
	var keep []*Tool
	for _, t := range r.tools {
		if (len(allowed) == 0 || allowed[t.Name]) && !denied[t.Name] {
			keep = append(keep, t)
		}
	}
	return NewRegistry(keep...)
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Execute is the innermost handler of every chain: it answers a call to
// an unknown tool with the list of available tools, validates the
// arguments against the tool's schema, and runs the tool. A panicking tool
// becomes an error result; Execute never panics.
func (r *Registry) Execute(ctx context.Context, call *Call) (res Result) {
	t := call.Tool
	if t == nil {
		t = r.Get(call.Name)
	}
	if t == nil {
		if len(r.Names()) == 0 {
			return Errorf("Unknown tool %q. No tools are available here: answer in text.", call.Name)
		}
		return Errorf("Unknown tool %q. Available tools: %s.", call.Name, strings.Join(r.Names(), ", "))
	}
	if err := t.Validate(call.Args); err != nil {
		return Errorf("Invalid arguments for %s: %v. Expected arguments (JSON Schema): %s", t.Name, err, t.Schema)
	}
	defer func() {
		if p := recover(); p != nil {
			res = Errorf("Tool %s failed unexpectedly: %v", t.Name, p)
			res.Details = string(debug.Stack())
		}
	}()
	return t.Run(ctx, call)
}
