package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/tool"
)

// Notes the gate attaches to results.
const (
	NoteDenied  = "permission:denied"
	NoteAsked   = "permission:asked"
	NoteBlocked = "permission:blocked"
)

// HookVerdict is what PreToolUse hooks decided about a call.
type HookVerdict struct {
	// Effect is Deny, Ask, Allow or "" (no opinion).
	Effect Effect
	Reason string
	// Args, when non-nil, replace the call's arguments.
	Args json.RawMessage
	// Context is extra text for the model, added to the call's result.
	Context string
	// Stop, when set, denies the call and ends the run after the batch
	// (a hook's "continue": false); it says why.
	Stop string
}

// PreHook runs the PreToolUse hooks of a call. It must honour ctx.
type PreHook func(ctx context.Context, call *tool.Call, mode Mode) HookVerdict

// Options configure a Gate.
type Options struct {
	// Mode is the starting mode; empty means ModeAutoRead.
	Mode Mode
	// Rules are the allow, ask and deny rules, from every settings level.
	Rules []Rule
	// Workdir is the workspace: what relative paths resolve against and
	// what auto_edit lets edits change.
	Workdir string
	// Home is the user's home directory (protected settings files, ~ in
	// the blocker).
	Home string
	// Blocker configures the destructive-command blocker.
	Blocker BlockerMode
	// Asker answers calls that ask; nil denies them at once.
	Asker Asker
	// PreToolUse, when set, runs before the rules (see HookVerdict).
	PreToolUse PreHook
	// OnDecision receives every decision. It may be called from several
	// goroutines at once and must not block for long.
	OnDecision func(Decision)
	// Remember, when set, stores a rule a user allowed "always" in the
	// project's or the user's settings. The gate keeps the rule for the
	// rest of its life either way.
	Remember func(rule string, scope Scope) error
	// Clock stamps decisions; nil means time.Now.
	Clock func() time.Time
}

// Decision is one decision about one call, as the session log keeps it.
type Decision struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Effect is the outcome: allow or deny.
	Effect Effect `json:"effect"`
	// Asked is set when the call went to the Asker.
	Asked bool `json:"asked,omitempty"`
	// Rule is the rule that decided (or asked), with its file in Source.
	Rule   string `json:"rule,omitempty"`
	Source string `json:"source,omitempty"`
	Mode   Mode   `json:"mode"`
	// By says who decided: rule, mode, hook, blocker, protected, user,
	// timeout, cancelled or no_asker.
	By string `json:"by"`
	// Answer is the user's answer when one was given.
	Answer AnswerKind `json:"answer,omitempty"`
	// Remembered is the rule stored by an "allow always" answer.
	Remembered string    `json:"remembered,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Time       time.Time `json:"time"`
}

// Gate decides and enforces permissions. Safe for concurrent use; the
// mode and rules may change while calls run.
type Gate struct {
	o Options

	realWork string // the workspace with links resolved
	// above holds what Lstat said of the workspace and each directory
	// above it, when none is a link, looked at once in New: every
	// decision's path probes start from it instead of asking the file
	// system again. Commands cannot change them: they are outside every
	// writable directory but the workspace, which a command inside it
	// cannot rename.
	above map[string]os.FileInfo

	mu    sync.RWMutex
	mode  Mode
	rules []Rule
}

// New returns a gate.
func New(o Options) *Gate {
	if o.Mode == "" {
		o.Mode = ModeAutoRead
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Workdir != "" {
		o.Workdir = filepath.Clean(o.Workdir)
	}
	g := &Gate{o: o, mode: o.Mode, rules: append([]Rule(nil), o.Rules...)}
	if o.Workdir != "" {
		g.realWork = o.Workdir
		if r := resolveLinks(o.Workdir); r != "" {
			g.realWork = r
		} else {
			g.above = lstatAbove(o.Workdir)
		}
	}
	return g
}

// Mode returns the current mode.
func (g *Gate) Mode() Mode {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.mode
}

// SetMode changes the mode for the calls that start after it.
func (g *Gate) SetMode(m Mode) error {
	if _, err := ParseMode(string(m)); err != nil {
		return err
	}
	g.mu.Lock()
	g.mode = m
	g.mu.Unlock()
	return nil
}

// AddRule adds a rule for the rest of the gate's life.
func (g *Gate) AddRule(r Rule) {
	g.mu.Lock()
	g.rules = append(g.rules, r)
	g.mu.Unlock()
}

// Rules returns the rules in force.
func (g *Gate) Rules() []Rule {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return append([]Rule(nil), g.rules...)
}

// Verdict is the gate's decision before anyone is asked.
type Verdict struct {
	Effect Effect
	// Rule and Source name the rule that decided, when one did.
	Rule, Source string
	// By says what decided (see Decision.By).
	By     string
	Reason string
	// Suggest is what an "allow always" answer would store, for display:
	// the rules of SuggestRules joined by ", ". Both are set only when
	// Effect is Ask.
	Suggest string
	// SuggestRules are the rules an "allow always" answer stores: together
	// they allow the call they were offered for.
	SuggestRules []string
	// Args, when non-nil, are the arguments a hook substituted.
	Args json.RawMessage
	// Context is text from hooks for the model.
	Context string
	// Stop ends the run after the batch (see HookVerdict.Stop).
	Stop string
}

// Decide returns the verdict for call without asking anyone and without
// recording it. PreToolUse hooks run.
func (g *Gate) Decide(ctx context.Context, call *tool.Call) Verdict {
	g.mu.RLock()
	mode, rules := g.mode, g.rules
	g.mu.RUnlock()
	var hv HookVerdict
	if g.o.PreToolUse != nil {
		hv = g.o.PreToolUse(ctx, call, mode)
	}
	c := call
	if hv.Args != nil {
		cc := *call
		cc.Args = hv.Args
		c = &cc
	}
	v := g.decide(c, mode, rules, hv)
	v.Args, v.Context = hv.Args, hv.Context
	if hv.Stop != "" {
		v.Effect, v.By, v.Reason, v.Stop = Deny, "hook", "A hook stopped the run: "+hv.Stop, hv.Stop
	}
	if mode == ModeDontAsk && v.Effect == Ask {
		v.Effect, v.Reason = Deny, orText(v.Reason, "")
		if v.Reason == "" {
			v.Reason = DontAskMessage
		} else {
			v.Reason += " " + DontAskMessage
		}
	}
	return v
}

// subject is what rules look at in one call.
type subject struct {
	tool     string
	readOnly bool
	bash     *script // bash calls
	command  string
	path     string // path tools: absolute, clean
	real     string // path with symbolic links resolved, when it differs
	inside   bool   // path is inside the workspace
	// touches are the paths a bash command reads and writes; probes
	// caches what the decision learnt of the file system.
	touches []touch
	probes  probeCache
	// texts are the texts deny and ask rules see (see denyTexts), made
	// when a rule first needs them (textsDone).
	texts     []string
	textsDone bool
	// agent is the subagent_type of an agent call.
	agent string
}

func (g *Gate) subject(call *tool.Call) subject {
	// A call made under an alias (Task or Agent for agent) is judged as
	// a call of the tool it reached.
	name := call.Name
	if call.Tool != nil {
		name = call.Tool.Name
	}
	s := subject{tool: name, readOnly: call.Tool != nil && call.Tool.ReadOnly}
	var args struct {
		Command      string `json:"command"`
		Path         string `json:"path"`
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(call.Args, &args)
	switch {
	case name == "agent":
		s.agent = strings.TrimSpace(args.SubagentType)
	case name == "bash":
		s.command = args.Command
		s.bash = parseScript(args.Command)
		s.touches = g.touches(s.bash)
		s.probes.above = g.above
		g.linkedPrograms(s.bash)
	case pathTools[name]:
		p := args.Path
		if p == "" {
			p = "."
		}
		s.path = g.abs(p)
		s.real = g.realPath(s.path)
		s.inside = within(g.o.Workdir, s.path) && (s.real == "" || within(g.o.Workdir, s.real))
	}
	return s
}

// denyTexts returns the texts deny and ask rules see for the bash
// command of s: those of each of its simple commands.
func (s *subject) denyTexts() []string {
	if !s.textsDone {
		s.textsDone = true
		s.texts = make([]string, 0, 2*len(s.bash.cmds))
		for j := range s.bash.cmds {
			s.texts = appendDenyTexts(s.texts, &s.bash.cmds[j])
		}
	}
	return s.texts
}

func (g *Gate) decide(call *tool.Call, mode Mode, rules []Rule, hv HookVerdict) Verdict {
	s := g.subject(call)
	if hv.Effect == Deny {
		return Verdict{Effect: Deny, By: "hook", Reason: orText(hv.Reason, "A PreToolUse hook denied this call.")}
	}
	if r := match(rules, Deny, &s); r != nil {
		return Verdict{Effect: Deny, By: "rule", Rule: r.Text, Source: r.Source,
			Reason: fmt.Sprintf("Permission denied by the rule %s (%s). Do not retry this call; find another way or ask the user.", r.Text, r.Source)}
	}
	if mode == ModePlan && !s.readOnly && !g.modeAllowsBash(&s, false) {
		return Verdict{Effect: Deny, By: "mode", Reason: PlanMessage}
	}
	if s.bash != nil && g.o.Blocker != BlockerOff {
		if f := g.block(s.bash); f != nil {
			eff := Deny
			if g.o.Blocker == BlockerAsk || mode == ModeAsk {
				eff = Ask
			}
			return Verdict{Effect: eff, By: "blocker", Rule: "destructive: " + f.what, Reason: f.message()}
		}
	}
	if s.bash != nil {
		if why := g.unknown(&s, rules); why != "" {
			return Verdict{Effect: Ask, By: "unknown", Rule: "unknown command",
				Reason: "What this command runs or touches cannot be known before it runs (" + why + "), so no rule and no check can vouch for it; it needs the user's approval. Write it with literal program names and paths if you can."}
		}
	}
	if p := g.protected(&s); p != "" {
		return Verdict{Effect: Ask, By: "protected", Rule: "protected path " + p,
			Reason: fmt.Sprintf("%s is a protected path (repository data, settings or hooks); changing it always needs the user's approval.", p)}
	}
	if hv.Effect == Ask {
		return g.offer(Verdict{Effect: Ask, By: "hook", Reason: hv.Reason}, &s)
	}
	if r := match(rules, Ask, &s); r != nil {
		return g.offer(Verdict{Effect: Ask, By: "rule", Rule: r.Text, Source: r.Source}, &s)
	}
	if hv.Effect == Allow {
		return Verdict{Effect: Allow, By: "hook", Reason: hv.Reason}
	}
	if r, ok := allowed(rules, &s); ok {
		v := Verdict{Effect: Allow, By: "rule"}
		if r != nil {
			v.Rule, v.Source = r.Text, r.Source
		}
		return v
	}
	eff := Ask
	// Read-only tools run inside the workspace (in plan mode anywhere, as
	// Claude Code's plan mode reads anywhere); bash runs what
	// modeAllowsBash vouches for.
	readsInside := s.readOnly && (s.path == "" || s.inside)
	switch mode {
	case ModeAutoAll:
		eff = Allow
	case ModeAutoEdit:
		if readsInside || (s.path != "" && s.inside && (call.Name == "edit" || call.Name == "write")) || g.modeAllowsBash(&s, true) {
			eff = Allow
		}
	case ModeAutoRead, ModeDontAsk:
		if readsInside || g.modeAllowsBash(&s, false) {
			eff = Allow
		}
	case ModePlan:
		if s.readOnly || g.modeAllowsBash(&s, false) {
			eff = Allow
		}
	}
	v := Verdict{Effect: eff, By: "mode", Rule: "mode " + string(mode)}
	if eff == Ask {
		v = g.offer(v, &s)
	}
	return v
}

// offer fills in the rules an "allow always" answer to v would store.
// Only verdicts that ask need them, so only those pay for them.
func (g *Gate) offer(v Verdict, s *subject) Verdict {
	v.SuggestRules = suggestRules(s, g.o.Workdir)
	v.Suggest = strings.Join(v.SuggestRules, ", ")
	return v
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// match returns the first rule of the effect that matches s: for bash,
// one that matches the whole command or any of its simple commands.
func match(rules []Rule, eff Effect, s *subject) *Rule {
	for i := range rules {
		r := &rules[i]
		if r.Effect != eff {
			continue
		}
		if s.bash != nil && r.globs != nil && eff != Allow {
			// A path rule covers what bash reads (Read) or writes (Edit).
			rd, ed := r.readKind(), r.editKind()
			for j := range s.touches {
				t := &s.touches[j]
				if (rd && t.read || ed && t.write) && hitOf(r, t, &s.probes) {
					return r
				}
			}
			continue
		}
		if !r.matchesTool(s.tool) {
			continue
		}
		switch {
		case r.spec == "":
			return r
		case r.agents != nil:
			if r.matchAgent(s.agent) {
				return r
			}
		case s.bash != nil:
			if r.matchCommand(strings.TrimSpace(s.command)) {
				return r
			}
			for _, t := range s.denyTexts() {
				if r.matchCommand(t) {
					return r
				}
			}
		case s.path != "":
			// Deny and ask rules match the path as written or where its
			// links lead; an allow rule must match both.
			hit := r.matchPath(s.path)
			if s.real != "" {
				if eff == Allow {
					hit = hit && r.matchPath(s.real)
				} else {
					hit = hit || r.matchPath(s.real)
				}
			}
			if !hit && eff != Allow {
				hit = r.linked(s.path) // a hard link of a file the rule covers
			}
			if hit {
				return r
			}
		}
	}
	return nil
}

// trivial commands need no rule of their own inside a compound command.
var trivial = map[string]bool{"cd": true, "pushd": true, "popd": true, "true": true, "false": true, ":": true}

// allowed reports whether allow rules allow s: for bash, every simple
// command must match an allow rule. The rule returned is the first that
// matched.
func allowed(rules []Rule, s *subject) (*Rule, bool) {
	if s.bash == nil {
		r := match(rules, Allow, s)
		return r, r != nil
	}
	var first *Rule
	for i := range rules {
		r := &rules[i]
		if r.Effect == Allow && r.spec == "" && r.matchesTool(s.tool) {
			return r, true
		}
	}
	if !s.bash.ok || len(s.bash.cmds) == 0 || s.bash.unknownWhy() != "" {
		return nil, false
	}
	for j := range s.bash.cmds {
		c := &s.bash.cmds[j]
		if len(c.words) == 0 || trivial[c.name()] && len(c.writes) == 0 {
			continue
		}
		var hit *Rule
		for i := range rules {
			r := &rules[i]
			if r.Effect == Allow && r.bashKind() && r.matchCommand(c.text()) {
				hit = r
				break
			}
		}
		if hit == nil {
			return nil, false
		}
		if first == nil {
			first = hit
		}
	}
	return first, first != nil
}

// subcommandTools are suggested with their subcommand: Bash(git diff *).
var subcommandTools = map[string]bool{"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "cargo": true,
	"docker": true, "kubectl": true, "make": false, "pip": true, "uv": true, "bun": true, "dotnet": true, "gh": true, "terraform": true}

// suggestRules are the rules an "allow always" answer stores for s: for
// bash, one for each simple command that is not trivial (every one must
// be allowed for the call to be, see allowed), so that the answer covers
// the command it was given for; none when a command's name is not a
// literal word.
func suggestRules(s *subject, root string) []string {
	switch {
	case s.bash != nil:
		if !s.bash.ok {
			return nil
		}
		var out []string
		for _, c := range s.bash.cmds {
			if len(c.words) == 0 || trivial[c.name()] && len(c.writes) == 0 {
				continue
			}
			if !c.lit[0] || strings.ContainsAny(c.words[0], "\n()") {
				return nil
			}
			w := c.words[:1]
			if subcommandTools[c.name()] && len(c.words) > 1 && c.lit[1] && !strings.HasPrefix(c.words[1], "-") && !strings.ContainsAny(c.words[1], "\n()*") {
				w = c.words[:2]
			}
			r := "Bash(" + strings.Join(w, " ") + " *)"
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
		return out
	case s.path != "":
		name := "Edit"
		if s.readOnly {
			name = "Read"
		}
		dir := s.path
		if s.tool == "edit" || s.tool == "write" || s.tool == "read" {
			dir = filepath.Dir(s.path)
		}
		if rel, err := filepath.Rel(root, dir); err == nil && within(root, dir) {
			if rel == "." {
				return []string{name + "(/**)"}
			}
			return []string{name + "(/" + filepath.ToSlash(rel) + "/**)"}
		}
		return []string{name + "(/" + filepath.ToSlash(dir) + "/**)"}
	default:
		if r := toolRuleName(s.tool); r != "" {
			return []string{r}
		}
	}
	return nil
}

// toolRuleName is the rule naming every call of a rein tool.
func toolRuleName(name string) string {
	switch name {
	case "bash":
		return "Bash"
	case "read":
		return "Read"
	case "edit", "write":
		return "Edit"
	}
	return name
}
