package acp

import (
	"context"
	"slices"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/permission"
)

// modeNames describe rein's permission modes as ACP session modes.
var modeNames = map[permission.Mode][2]string{
	permission.ModePlan:     {"Plan", "read-only tools only; the model plans and changes nothing"},
	permission.ModeDontAsk:  {"Don't ask", "reads and read-only commands inside the workspace run; what would ask is denied"},
	permission.ModeAsk:      {"Ask", "every tool call asks unless a rule allows it"},
	permission.ModeAutoRead: {"Auto read", "reads and read-only commands inside the workspace run; edits and other commands ask"},
	permission.ModeAutoEdit: {"Auto edit", "reads, edits and mkdir/touch/mv/cp/rm inside the workspace run; other commands ask"},
	permission.ModeAutoAll:  {"Auto all", "everything runs unless a rule, a protected path or the blocker says otherwise"},
}

// modes is the session's mode state: rein's permission modes.
func (ss *acpSession) modes() *sdk.SessionModeState {
	cur := ss.agent.PermissionMode()
	if cur == "" {
		return nil
	}
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(cur)}
	for _, m := range permission.Modes() {
		n := modeNames[m]
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m), Name: n[0], Description: sdk.Ptr(n[1])})
	}
	return st
}

// SetSessionMode implements sdk.Agent: it sets the permission mode,
// from the next tool call on.
func (s *server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := ss.setMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	ss.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: p.ModeId}})
	return sdk.SetSessionModeResponse{}, nil
}

func (ss *acpSession) setMode(id string) error {
	g := ss.agent.Harness().Permission()
	if g == nil {
		return sdk.NewInvalidRequest(map[string]any{"error": "this session has no permission gate"})
	}
	m, err := permission.ParseMode(id)
	if err == nil {
		err = g.SetMode(m)
	}
	if err != nil {
		return sdk.NewInvalidParams(map[string]any{"modeId": id, "error": err.Error()})
	}
	return nil
}

// Config option ids.
const (
	optModel    = "model"
	optThinking = "thinking"
	optMode     = "mode"
)

// configOptions are the model, the reasoning effort and the permission
// mode as select options.
func (ss *acpSession) configOptions() []sdk.SessionConfigOption {
	h := ss.agent.Harness()
	cur := coding.ModelName(h.Model())
	models := []string{cur}
	if cat, err := coding.Catalog(ss.srv.o.Agent, ss.agent.Workspace()); err == nil {
		for _, target := range cat.Aliases() {
			if !slices.Contains(models, target) {
				models = append(models, target)
			}
		}
		slices.Sort(models[1:])
	}
	sel := func(id, name string, cat sdk.SessionConfigOptionCategory, cur string, values []string) sdk.SessionConfigOption {
		opts := make(sdk.SessionConfigSelectOptionsUngrouped, 0, len(values))
		for _, v := range values {
			opts = append(opts, sdk.SessionConfigSelectOption{Name: v, Value: sdk.SessionConfigValueId(v)})
		}
		return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{
			Id: sdk.SessionConfigId(id), Name: name, Category: sdk.Ptr(cat), Type: "select",
			CurrentValue: sdk.SessionConfigValueId(cur),
			Options:      sdk.SessionConfigSelectOptions{Ungrouped: &opts},
		}}
	}
	think := string(h.Thinking())
	if think == "" {
		think = "default"
	}
	out := []sdk.SessionConfigOption{
		sel(optModel, "Model", sdk.SessionConfigOptionCategoryModel, cur, models),
		sel(optThinking, "Thinking", sdk.SessionConfigOptionCategoryThoughtLevel, think,
			[]string{"default", string(llm.ThinkingOff), string(llm.ThinkingMinimal), string(llm.ThinkingLow), string(llm.ThinkingMedium), string(llm.ThinkingHigh), string(llm.ThinkingXHigh)}),
	}
	if m := ss.agent.PermissionMode(); m != "" {
		var ms []string
		for _, x := range permission.Modes() {
			ms = append(ms, string(x))
		}
		out = append(out, sel(optMode, "Permission mode", sdk.SessionConfigOptionCategoryMode, string(m), ms))
	}
	return out
}

// SetSessionConfigOption implements sdk.Agent: model, thinking or mode.
func (s *server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "rein's config options are selects: send a value id"})
	}
	v := p.ValueId
	ss, err := s.session(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	val := string(v.Value)
	switch string(v.ConfigId) {
	case optModel:
		if ss.agent.Busy() {
			return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "the model cannot change while a prompt runs"})
		}
		err = ss.runCommand(ctx, "model", val)
	case optThinking:
		if val == "default" {
			val = ""
		}
		err = ss.agent.Harness().SetThinking(llm.ThinkingLevel(val))
	case optMode:
		if err = ss.setMode(val); err == nil {
			ss.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(val)}})
		}
	default:
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"configId": string(v.ConfigId), "error": "unknown config option: use model, thinking or mode"})
	}
	if err != nil {
		var re *sdk.RequestError
		if !asRequestError(err, &re) {
			err = sdk.NewInvalidParams(map[string]any{"value": string(v.Value), "error": err.Error()})
		}
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: ss.configOptions()}, nil
}

// runCommand runs one of coding's commands by name.
func (ss *acpSession) runCommand(ctx context.Context, name, args string) error {
	c, err := coding.Lookup(ss.agent.Commands(), name)
	if err != nil {
		return err
	}
	_, err = c.Run(ctx, args)
	return err
}

// announce sends the commands the session offers: rein's slash
// commands, the prompt templates and the skills.
func (ss *acpSession) announce() {
	var cmds []sdk.AvailableCommand
	seen := map[string]bool{}
	for _, c := range ss.agent.Commands() {
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Help}
		if c.Args != "" || c.Prompt {
			hint := c.Args
			if hint == "" {
				hint = "arguments"
			}
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		cmds = append(cmds, ac)
	}
	if f := ss.agent.Found(); f != nil {
		for _, sk := range f.Skills {
			if seen[sk.Name] {
				continue
			}
			seen[sk.Name] = true
			cmds = append(cmds, sdk.AvailableCommand{Name: sk.Name, Description: "skill: " + sk.Description,
				Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "what to do"}}})
		}
	}
	ss.update(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}
