package coding

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/prompt"
)

// invoke resolves "/name args" against the templates, Claude Code's
// commands and the skills (see prompt.Found.Invoke). ok is false for
// other text, which is sent as it is.
func invoke(f *prompt.Found, text string, warn func(string)) (prompt.Invocation, bool) {
	if f == nil {
		return prompt.Invocation{}, false
	}
	inv, ok := f.Invoke(text)
	if !ok {
		return inv, false
	}
	for _, n := range inv.Notes {
		warn("note: " + n)
	}
	return inv, true
}

// invoke is the package's invoke with the agent's own prompt commands
// (/init) first.
func (a *Agent) invoke(text string) (prompt.Invocation, bool) {
	if name, args, ok := prompt.ParseCommand(text); ok && name == "init" {
		return prompt.Invocation{Name: name, Kind: prompt.InvokeTemplate, Text: initPrompt(a.Workspace(), args)}, true
	}
	return invoke(a.found, text, a.s.o.Warn)
}

// apply switches the model and narrows the tools for one prompt as a
// command's front matter asks ("model", "allowed-tools"), and returns
// what puts them back. A skill's allowed-tools do not narrow: in Claude
// Code they are tools the skill may use without asking, and rein's
// permission rules decide that. A model that does not resolve, or tools
// of which none is on offer, leave things as they are, with a warning.
func (a *Agent) apply(inv prompt.Invocation) (restore func()) {
	h := a.h
	var undo []func()
	restore = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	if inv.Model != "" {
		m, p, err := a.s.resolveModel(inv.Model)
		if err != nil {
			a.s.o.Warn(fmt.Sprintf("warning: /%s asks for the model %q: %v; the current model is used", inv.Name, inv.Model, err))
		} else {
			oldM, oldP := h.Model(), h.Provider()
			if h.SetProvider(p) == nil && h.SetModel(m) == nil {
				undo = append(undo, func() { h.SetProvider(oldP); h.SetModel(oldM) })
			}
		}
	}
	if inv.Kind == prompt.InvokeTemplate && len(inv.AllowedTools) > 0 {
		active := h.ActiveTools()
		var keep []string
		for _, name := range inv.AllowedTools {
			tools, _ := permission.ToolsNamed(name)
			for _, t := range tools {
				if slices.Contains(active, t) && !slices.Contains(keep, t) {
					keep = append(keep, t)
				}
			}
		}
		switch {
		case len(keep) == 0:
			a.s.o.Warn(fmt.Sprintf("warning: /%s allows only %s, none of which is on offer; the tools are left as they are", inv.Name, strings.Join(inv.AllowedTools, ", ")))
		case h.SetActiveTools(keep) == nil:
			undo = append(undo, func() { h.SetActiveTools(active) })
		}
	}
	return restore
}
